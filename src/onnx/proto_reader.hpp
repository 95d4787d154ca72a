// Reading one TensorProto (an initializer, a test's input or expected output)
// into a Constant; the ModelProto reader is declared in model_def.hpp.
#pragma once

#include "onnx/constant.hpp"

#include <span>
#include <string>

namespace onnx {
class TensorProto;
}  // namespace onnx

namespace topos::onnx::detail {

// The tensor's elements and extents. Throws ModelError when its data does not
// match its shape, ImportError for an element type or a data location that is
// not read (strings, complex numbers, external files). `where` names it in messages.
Constant read_tensor(const ::onnx::TensorProto& tensor, const std::string& where);

// The same from the bytes of a serialized TensorProto (a .pb file of ONNX's test data).
Constant parse_tensor(std::span<const std::byte> bytes, const std::string& where);

}  // namespace topos::onnx::detail
