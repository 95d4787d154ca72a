// topos: record a computation on a tape, seal it into a network, run it through
// the exact interpreter, differentiate it. Everything, in one include.
#pragma once

#include <topos/compiler.hpp>
#include <topos/config.hpp>
#include <topos/data.hpp>
#include <topos/model.hpp>
