// Permute: reorders axes; output axis i is operand axis order[i].
#include "emit/hlo_builder.hpp"
#include "ops/rows.hpp"

#include <array>

namespace topos::detail {
namespace {

Shape infer(const ShapeCheck& check) {
    const Axes& order = check.attributes<PermuteAttributes>().order;
    const Shape& shape = check.operand(0);
    check.require(order.size() == shape.rank(),
                  "the order names " + std::to_string(order.size()) + " axes but the operand has " +
                      std::to_string(shape.rank()) + "; list every axis exactly once");
    std::array<bool, Shape::max_rank> seen{};
    std::array<std::size_t, Shape::max_rank> extents{};
    for (std::size_t i = 0; i < order.size(); ++i) {
        check.require(order[i] < shape.rank() && !seen[order[i]],
                      "the order is not a permutation of the operand's axes; list every axis "
                      "from 0 to rank - 1 exactly once");
        seen[order[i]] = true;
        extents[i] = shape[order[i]];
    }
    return Shape(std::span<const std::size_t>(extents.data(), shape.rank()));
}

template <Element T>
void kernel(const Node& node, std::span<const View<T>> operands, T* out) {
    const Axes& order = node.attributes_as<PermuteAttributes>().order;
    const Shape& output = node.shape();
    const std::size_t rank = output.rank();
    const auto input_strides = operands[0].shape->strides();
    std::array<std::size_t, Shape::max_rank> stride{};  // input stride of each output axis
    for (std::size_t i = 0; i < rank; ++i) {
        stride[i] = input_strides[order[i]];
    }
    std::array<std::size_t, Shape::max_rank> counter{};
    std::size_t offset = 0;
    const std::size_t count = output.elements();
    for (std::size_t index = 0; index < count; ++index) {
        out[index] = operands[0].data[offset];
        for (std::size_t axis = rank; axis-- > 0;) {  // advance the odometer
            offset += stride[axis];
            if (++counter[axis] < output[axis]) {
                break;
            }
            offset -= stride[axis] * output[axis];
            counter[axis] = 0;
        }
    }
}

// The adjoint permutes back by the inverse order.
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Axes& order = c.node.attributes_as<PermuteAttributes>().order;
    std::array<std::size_t, Shape::max_rank> inverse{};
    for (std::size_t i = 0; i < order.size(); ++i) {
        inverse[order[i]] = i;
    }
    contributions[0] = c.build.permute(
        c.adjoint, Axes(std::span<const std::size_t>(inverse.data(), order.size())));
}

HloValue lower(HloBuilder& build) {
    return build.transpose(build.operand(0), build.node().attributes_as<PermuteAttributes>().order);
}

}  // namespace

OpInfo permute_row() {
    return {
        Opcode::Permute, "Permute", 1, infer, kernel<float>, kernel<double>, vjp, lower, 0, true};
}

}  // namespace topos::detail
