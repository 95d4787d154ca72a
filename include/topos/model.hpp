// The model map of topos: record, run, differentiate, train: initialisers and modules.
#pragma once

#include <topos/autodiff/adjoints.hpp>
#include <topos/core/error.hpp>
#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/init.hpp>
#include <topos/model/linear.hpp>
#include <topos/model/mlp.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>
#include <topos/run/threads.hpp>
