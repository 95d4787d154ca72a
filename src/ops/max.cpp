// Max: the maximum along one axis, removing it. Each output scans its terms in
// ascending order from -infinity; a NaN propagates.
#include "hlo/builder.hpp"
#include "ops/reduce.hpp"
#include "ops/rows.hpp"

#include <limits>

namespace topos::detail {
namespace {
namespace max_op {

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const T* x = operands[0].data;
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    for_each_reduction(
        *operands[0].shape, axis, [&](auto at, std::size_t output, std::size_t count) {
            T best = -std::numeric_limits<T>::infinity();
            for (std::size_t a = 0; a < count; ++a) {
                const T term = x[at(a)];
                best = (term > best || term != term) ? term : best;
            }
            out[output] = best;
        });
}

// d max(a) = the adjoint shared evenly among the positions that attain the max
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    AdjointBuilder& b = c.build;
    const std::size_t axis = c.node.attributes_as<AxisAttributes>().axis;
    const std::size_t extent = b.shape(c.operands[0])[axis];
    const Ref spread = b.broadcast_along(c.output, axis, extent);
    const Ref attains = b.compare(c.operands[0], spread, Comparison::Equal);
    const Ref share = b.div(c.adjoint, b.sum(attains, axis));
    contributions[0] = b.mul(attains, b.broadcast_along(share, axis, extent));
}

HloValue lower(HloBuilder& build, const NodeView& node) {
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    return build.reduce(
        build.operand(0), -std::numeric_limits<double>::infinity(), "stablehlo.maximum", {axis});
}

}  // namespace max_op
}  // namespace

OpInfo max_row() {
    using namespace max_op;
    return {.opcode = Opcode::Max,
            .kind = OpKind::General,
            .arity = 1,
            .infer = reduce_axis_shape,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower,
            .picks_an_operand_element = true};
}

}  // namespace topos::detail
