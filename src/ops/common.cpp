#include "ops/common.hpp"

#include "ops/reduce.hpp"

#include <atomic>

namespace topos::detail {

namespace {

std::atomic<bool>& avx2_fma_loops_allowed() {
    static std::atomic<bool> allowed{true};
    return allowed;
}

}  // namespace

bool runs_avx2_fma() {
#if defined(TOPOS_HAS_AVX2_LOOPS)
    static const bool supported = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    }();
    return supported && avx2_fma_loops_allowed().load(std::memory_order_relaxed);
#else
    return false;
#endif
}

void allow_avx2_fma_loops(bool allowed) {
    avx2_fma_loops_allowed().store(allowed, std::memory_order_relaxed);
}

Shape same_shape_unary(const ShapeCheck& check) {
    check.attributes<NoAttributes>();
    return check.operand(0);
}

Shape equal_shapes(const ShapeCheck& check) {
    check.require(check.operand(0) == check.operand(1),
                  "the operands' shapes differ; use the Value operators, which broadcast "
                  "numpy-style, or broadcast_along / reshape to make them equal");
    return check.operand(0);
}

Shape same_shape_binary(const ShapeCheck& check) {
    check.attributes<NoAttributes>();
    return equal_shapes(check);
}

Shape reduce_axis_shape(const ShapeCheck& check) {
    const std::size_t axis = check.attributes<AxisAttributes>().axis;
    check.require_axis(0, axis);
    return check.operand(0).without_axis(axis);
}

AxisSplit split_at(const Shape& shape, std::size_t axis) {
    AxisSplit split{1, shape[axis], 1};
    for (std::size_t i = 0; i < axis; ++i) {
        split.outer *= shape[i];
    }
    for (std::size_t i = axis + 1; i < shape.rank(); ++i) {
        split.inner *= shape[i];
    }
    return split;
}

}  // namespace topos::detail
