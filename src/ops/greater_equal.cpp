// GreaterEqual: the mask 1 where a >= b, else 0.
#include "ops/common.hpp"
#include "ops/rows.hpp"

namespace topos::detail {
namespace {

template <Element T>
void kernel(const Node&, std::span<const View<T>> operands, T* out) {
    binary_map(operands, out, [](T a, T b) { return a >= b ? T{1} : T{0}; });
}

// a mask is piecewise constant: no derivative flows through it
void vjp(const VjpContext&, std::span<std::optional<Ref>>) {}

}  // namespace

OpInfo greater_equal_row() {
    return {Opcode::GreaterEqual, "GreaterEqual", 2, same_shape_binary, kernel<float>, kernel<double>, vjp};
}

}  // namespace topos::detail
