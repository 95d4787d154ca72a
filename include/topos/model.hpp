// The model map of topos: record, run, differentiate, train: initialisers,
// modules, optimizers, schedules, clipping and checkpoints.
#pragma once

#include <topos/autodiff/adjoints.hpp>
#include <topos/autodiff/grad.hpp>
#include <topos/core/error.hpp>
#include <topos/core/isa.hpp>
#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>
#include <topos/core/threads.hpp>
#include <topos/graph/compositions.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/attention.hpp>
#include <topos/model/batch_norm.hpp>
#include <topos/model/checkpoint.hpp>
#include <topos/model/clip.hpp>
#include <topos/model/conv2d.hpp>
#include <topos/model/dropout.hpp>
#include <topos/model/embedding.hpp>
#include <topos/model/function.hpp>
#include <topos/model/init.hpp>
#include <topos/model/layer_norm.hpp>
#include <topos/model/linear.hpp>
#include <topos/model/max_pool.hpp>
#include <topos/model/mixed_precision.hpp>
#include <topos/model/mlp.hpp>
#include <topos/model/module.hpp>
#include <topos/model/named.hpp>
#include <topos/model/optim.hpp>
#include <topos/model/schedule.hpp>
#include <topos/model/transformer.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>
