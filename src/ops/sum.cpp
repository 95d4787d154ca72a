// Sum: over all axes (to rank 0) or along one axis (removing it). Every output
// sums its n terms in the striped order: term i goes to partial sum i mod 16
// (each partial starts at -0, the exact additive identity, and adds its terms
// in ascending order), then the partials fold in halves: p[l] += p[l + 8],
// p[l] += p[l + 4], p[l] += p[l + 2], p[0] += p[1]. Vector units reproduce it.
#include "hlo/builder.hpp"
#include "ops/reduce.hpp"
#include "ops/rows.hpp"

#include <algorithm>
#include <vector>

namespace topos::detail {
namespace {
namespace sum_op {

Shape infer(const ShapeCheck& check) {
    const auto* along = std::get_if<AxisAttributes>(&check.all_attributes());
    if (along == nullptr) {
        check.attributes<NoAttributes>();
        return Shape{};
    }
    check.require_axis(0, along->axis);
    return check.operand(0).without_axis(along->axis);
}

// Partial rows [first_lane, end_lane) of the 16: row a of `extent` rows of
// `inner` elements goes onto partial row a mod 16, so each element of a
// partial row adds its column's terms in ascending order. The partial rows
// are independent chains: threads may take different ones. Rows base + lane
// for consecutive lanes are consecutive in memory, as are their partial
// rows, so each block of 16 rows is one run of additions, however short a
// row is (a bias gradient's rows hold a few channels).
template <Element T>
void add_rows_to_partials(const T* rows,
                          std::size_t extent,
                          std::size_t inner,
                          std::size_t first_lane,
                          std::size_t end_lane,
                          T* partials) {
    T* partial = partials + first_lane * inner;
    for (std::size_t base = 0; base < extent; base += summation_lanes) {
        const std::size_t end = std::min(end_lane, extent - base);
        if (end <= first_lane) {
            break;
        }
        const T* block = rows + (base + first_lane) * inner;
        const std::size_t length = (end - first_lane) * inner;
        for (std::size_t i = 0; i < length; ++i) {
            partial[i] += block[i];
        }
    }
}

#if defined(TOPOS_HAS_AVX2_LOOPS)
// The same loops in AVX2 lanes: each lane one column, so the same additions.
template <Element T>
TOPOS_AVX2_FMA_LOOP void add_rows_to_partials_avx2(const T* rows,
                                                   std::size_t extent,
                                                   std::size_t inner,
                                                   std::size_t first_lane,
                                                   std::size_t end_lane,
                                                   T* partials) {
    add_rows_to_partials(rows, extent, inner, first_lane, end_lane, partials);
}
#endif

template <Element T>
void add_lanes(
    const T* rows, AxisSplit split, std::size_t first_lane, std::size_t end_lane, T* partials) {
#if defined(TOPOS_HAS_AVX2_LOOPS)
    if (runs_avx2_fma()) {
        add_rows_to_partials_avx2(rows, split.extent, split.inner, first_lane, end_lane, partials);
        return;
    }
#endif
    add_rows_to_partials(rows, split.extent, split.inner, first_lane, end_lane, partials);
}

// Sums of this many terms or more share their 16 partial rows among the
// threads.
constexpr std::size_t parallel_strided_sum = 4 * elementwise_chunk;

template <Element T>
void sum_strided(const T* x, AxisSplit split, T* out) {
    thread_local std::vector<T> scratch;
    scratch.resize(summation_lanes * split.inner);
    T* partials = scratch.data();
    const std::size_t parts =
        split.extent * split.inner < parallel_strided_sum
            ? 1
            : std::min(summation_lanes, ThreadPool::instance().thread_count());
    for (std::size_t o = 0; o < split.outer; ++o) {
        std::fill(scratch.begin(), scratch.end(), T{-0.0});
        const T* rows = x + o * split.extent * split.inner;
        if (parts == 1) {
            add_lanes(rows, split, 0, summation_lanes, partials);
        } else {
            ThreadPool::instance().run(parts, [&](std::size_t part) {
                add_lanes(rows,
                          split,
                          part * summation_lanes / parts,
                          (part + 1) * summation_lanes / parts,
                          partials);
            });
        }
        fold_partials(partials, split.inner);
        std::copy_n(partials, split.inner, out + o * split.inner);
    }
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const Shape& shape = *operands[0].shape;
    const auto* along = std::get_if<AxisAttributes>(&node.attributes());
    if (along == nullptr) {
        striped_sums(operands[0].data, 1, shape.elements(), out);
        return;
    }
    const AxisSplit split = split_at(shape, along->axis);
    if (split.inner == 1) {
        striped_sums(operands[0].data, split.outer, split.extent, out);
    } else {
        sum_strided(operands[0].data, split, out);
    }
}

// The adjoint of a sum repeats over the summed axes.
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    // A copy: the recording builder appends nodes, which may move the shape it returned.
    const Shape input = c.build.shape(c.operands[0]);
    const auto* along = std::get_if<AxisAttributes>(&c.node.attributes());
    contributions[0] = along == nullptr
                           ? c.build.broadcast_scalar(c.adjoint, input)
                           : c.build.broadcast_along(c.adjoint, along->axis, input[along->axis]);
}

// A reduce with an add body from -0, the exact additive identity; the sum of
// a scalar is -0 + x, as the striped order computes it.
HloValue lower(HloBuilder& build, const NodeView& node) {
    const HloValue x = build.operand(0);
    const std::size_t rank = build.shape(x).rank();
    if (rank == 0) {
        return build.add(build.splat(-0.0, Shape{}), x);
    }
    std::vector<std::size_t> axes;
    if (const auto* along = std::get_if<AxisAttributes>(&node.attributes())) {
        axes.push_back(along->axis);
    } else {
        for (std::size_t axis = 0; axis < rank; ++axis) {
            axes.push_back(axis);
        }
    }
    return build.reduce(x, -0.0, "stablehlo.add", axes);
}

}  // namespace sum_op
}  // namespace

OpInfo sum_row() {
    using namespace sum_op;
    return {.opcode = Opcode::Sum,
            .kind = OpKind::General,
            .arity = 1,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .vjp = vjp,
            .lower = lower};
}

}  // namespace topos::detail
