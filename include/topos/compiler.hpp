// The compiler map of topos: inspect the recorded spec (nodes, opcodes,
// attributes, describe), declare entries, lower them into plans, emit plans
// as StableHLO.
#pragma once

#include <topos/backend/backend.hpp>
#include <topos/emit/stablehlo.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/node.hpp>
#include <topos/graph/symbol.hpp>
#include <topos/graph/tape.hpp>
#include <topos/ops/opcode.hpp>
#include <topos/pattern/pattern.hpp>
#include <topos/plan/plan.hpp>
#include <topos/run/entry.hpp>
