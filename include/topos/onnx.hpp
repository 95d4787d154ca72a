// topos::onnx, the ONNX importer (find_package(topos CONFIG COMPONENTS onnx),
// linking topos::onnx): a model file recorded on a tape.
#pragma once

#include <topos/onnx/errors.hpp>  // IWYU pragma: export
#include <topos/onnx/model.hpp>   // IWYU pragma: export
