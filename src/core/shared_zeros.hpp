// Tensors of zeros that view one buffer. Relu records Maximum against a Leaf
// of zeros of its operand's shape, so a network of many relus (a ResNet's
// stages hold nine, of up to 2M elements each) would hold a buffer of zeros
// for each. No tensor writes a buffer another tensor shares
// (tensor_access.hpp), and this one is always shared with the process-wide
// holder, so every zero tensor may view its first elements. The buffer is as
// large as the largest such tensor asked for; a larger request replaces it,
// and the one it replaces goes with the last tensor that views it.
#pragma once

#include <topos/core/tensor.hpp>

namespace topos::detail {

template <TensorElement T>
Tensor<T> shared_zeros(Shape shape);

}  // namespace topos::detail
