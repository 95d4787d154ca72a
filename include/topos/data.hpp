// topos::data: what feeds a training loop. Tables read from CSV files, arrays read from and
// written to NumPy's .npy files, seeded shuffling that is the same on every platform, batches,
// datasets of tensors sharing their first axis, a loader that gathers the next batch on a worker
// thread, augmentation of images (affine jitter, pixel noise), micro-batches summed in a fixed
// tree, and the progress line.
#pragma once

#include <topos/data/augment.hpp>
#include <topos/data/batches.hpp>
#include <topos/data/csv.hpp>
#include <topos/data/dataset.hpp>
#include <topos/data/generator.hpp>
#include <topos/data/loader.hpp>
#include <topos/data/micro_batches.hpp>
#include <topos/data/npy.hpp>
#include <topos/data/progress.hpp>
