// The record functions of the contraction and reduction opcodes' specs: MatMul
// on batches of matrices, Sum over all axes or one, and the operands without
// ties and with axes longer than the 16 striped lanes that the reductions along
// one axis (op_specs_records.hpp) draw.
#include "support/op_specs_records.hpp"

#include <utility>
#include <vector>

namespace topos::test::records {

// Elements at least 0.25 apart from one another, in random order: no ties
// anywhere, so a maximum never sits at a kink.
Tensor<double> distinct(Rng& rng, const Shape& shape) {
    const std::size_t count = shape.elements();
    std::vector<double> values(count);
    for (std::size_t i = 0; i < count; ++i) {
        values[i] = 0.3 * (static_cast<double>(i) - static_cast<double>(count) / 2) +
                    rng.uniform(0.0, 0.05);
    }
    for (std::size_t i = count; i-- > 1;) {
        std::swap(values[i], values[rng.between(0, i)]);
    }
    return Tensor<double>(shape, values);
}

// Some axis of the shape made long enough to cross the 16 striped lanes.
Shape maybe_long_axis(Rng& rng, Shape shape) {
    if (shape.rank() > 0 && rng.chance(0.4)) {
        const std::size_t axis = rng.between(0, shape.rank() - 1);
        shape = shape.with_extent(axis, rng.between(15, 20));
    }
    return shape;
}

// ---- contraction and reduction ----

// Matrices, or batches of them (equal leading axes, as the opcode demands).
OpCase record_matmul(Tape<double>& tape, Rng& rng) {
    const std::size_t m = rng.between(1, 3);
    const std::size_t k = rng.between(1, 3);
    const std::size_t n = rng.between(1, 3);
    Shape left{m, k};
    Shape right{k, n};
    const Shape batch = rng.shape(0, 2, 2);  // named: extents() views its storage
    for (std::size_t extent : batch.extents()) {
        left = left.with_axis(0, extent);
        right = right.with_axis(0, extent);
    }
    const Value<double> a = source(tape, 0, rng.tensor<double>(left, -1.0, 1.0));
    const Value<double> b = source(tape, 1, rng.tensor<double>(right, -1.0, 1.0));
    return {{a, b}, a.apply(Opcode::MatMul, {a, b})};
}

void invalid_matmul(Tape<double>& tape) {
    parameter_of(tape, {2, 3}).matmul(parameter_of(tape, {4, 5}));
}

OpCase record_sum(Tape<double>& tape, Rng& rng) {
    const Shape shape = maybe_long_axis(rng, rng.shape(0, 3, 3));
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    if (shape.rank() == 0 || rng.chance(0.4)) {
        return {{a}, a.sum()};
    }
    return {{a}, a.sum(rng.between(0, shape.rank() - 1))};
}

}  // namespace topos::test::records
