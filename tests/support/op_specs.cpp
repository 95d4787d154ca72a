#include "support/op_specs.hpp"

#include <array>
#include <utility>

namespace topos::test {
namespace {

constexpr double default_tolerance = 1e-7;

// Operand 0 is a parameter, operand 1 an input, and so on: both kinds of source
// get differentiated.
Value<double> source(Tape<double>& tape, std::size_t position, Tensor<double> payload) {
    return position % 2 == 0 ? tape.parameter(std::move(payload)) : tape.input(std::move(payload));
}

Shape shape_of(const std::vector<std::size_t>& extents) {
    return Shape(std::span<const std::size_t>(extents));
}

// A random shape holding exactly `elements` elements, of rank at most `max_rank`.
Shape random_factorization(Rng& rng, std::size_t elements, std::size_t max_rank) {
    std::vector<std::size_t> factors;
    for (std::size_t p = 2, n = elements; n > 1;) {
        if (n % p == 0) {
            factors.push_back(p);
            n /= p;
        } else {
            ++p;
        }
    }
    std::vector<std::size_t> extents(rng.between(factors.empty() ? 0 : 1, max_rank), 1);
    for (std::size_t factor : factors) {
        extents[rng.between(0, extents.size() - 1)] *= factor;
    }
    return shape_of(extents);
}

// ---- elementwise binary ----

template <Opcode op>
OpCase record_binary(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    const Value<double> b = source(tape, 1, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a, b}, a.apply(op, {a, b})};
}

OpCase record_div(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    const Value<double> b = source(tape, 1, rng.tensor_away_from_zero<double>(shape, 0.5, 1.5));
    return {{a, b}, a.apply(Opcode::Div, {a, b})};
}

// b = a + s with |s| in [0.2, 1]: no ties, and the largest stencil step (2e-3)
// never crosses a kink.
template <Opcode op>
OpCase record_untied(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Tensor<double> a_payload = rng.tensor<double>(shape, -1.0, 1.0);
    const Tensor<double> b_payload = a_payload + rng.tensor_away_from_zero<double>(shape, 0.2, 1.0);
    const Value<double> a = source(tape, 0, a_payload);
    const Value<double> b = source(tape, 1, b_payload);
    return {{a, b}, a.apply(op, {a, b})};
}

template <Opcode op>
void invalid_binary(Tape<double>& tape) {
    const Value<double> a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    const Value<double> b = tape.parameter(Tensor<double>::filled({3, 2}, 1.0));
    a.apply(op, {a, b});
}

// ---- elementwise unary ----

template <Opcode op>
OpCase record_unary_in(Tape<double>& tape, Rng& rng, double low, double high) {
    const Value<double> a = source(tape, 0, rng.tensor<double>(rng.shape(0, 3, 3), low, high));
    return {{a}, a.apply(op, {a})};
}

template <Opcode op>
OpCase record_unary(Tape<double>& tape, Rng& rng) {
    return record_unary_in<op>(tape, rng, -2.0, 2.0);
}

OpCase record_log(Tape<double>& tape, Rng& rng) {
    return record_unary_in<Opcode::Log>(tape, rng, 0.2, 3.0);
}

template <Opcode op>
void invalid_unary(Tape<double>& tape) {
    const Value<double> a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    a.apply(op, {a, a});
}

// ---- contraction and reduction ----

OpCase record_matmul(Tape<double>& tape, Rng& rng) {
    const std::size_t m = rng.between(1, 3);
    const std::size_t k = rng.between(1, 3);
    const std::size_t n = rng.between(1, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>({m, k}, -1.0, 1.0));
    const Value<double> b = source(tape, 1, rng.tensor<double>({k, n}, -1.0, 1.0));
    return {{a, b}, a.matmul(b)};
}

void invalid_matmul(Tape<double>& tape) {
    const Value<double> a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    const Value<double> b = tape.parameter(Tensor<double>::filled({4, 5}, 1.0));
    a.matmul(b);
}

// Sums over all axes or one; one axis may exceed the 16 lanes of the striped order.
OpCase record_sum(Tape<double>& tape, Rng& rng) {
    Shape shape = rng.shape(0, 3, 3);
    if (shape.rank() > 0 && rng.chance(0.5)) {
        const std::size_t long_axis = rng.between(0, shape.rank() - 1);
        shape = shape.with_extent(long_axis, rng.between(15, 20));
    }
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    if (shape.rank() == 0 || rng.chance(0.4)) {
        return {{a}, a.sum()};
    }
    return {{a}, a.sum(rng.between(0, shape.rank() - 1))};
}

void invalid_sum(Tape<double>& tape) {
    tape.parameter(Tensor<double>::filled({2, 3}, 1.0)).sum(2);
}

// ---- layout ----

OpCase record_reshape(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 4);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a}, a.reshape(random_factorization(rng, shape.elements(), 4))};
}

void invalid_reshape(Tape<double>& tape) {
    tape.parameter(Tensor<double>::filled({2, 3}, 1.0)).reshape(Shape{4});
}

OpCase record_permute(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(1, 4, 3);
    std::vector<std::size_t> order(shape.rank());
    for (std::size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    for (std::size_t i = order.size() - 1; i > 0; --i) {
        std::swap(order[i], order[rng.between(0, i)]);
    }
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a}, a.permute(Axes(std::span<const std::size_t>(order)))};
}

void invalid_permute(Tape<double>& tape) {
    tape.parameter(Tensor<double>::filled({2, 3}, 1.0)).permute(Axes{0, 0});
}

OpCase record_broadcast_along(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a}, a.broadcast_along(rng.between(0, shape.rank()), rng.between(1, 3))};
}

void invalid_broadcast_along(Tape<double>& tape) {
    tape.parameter(Tensor<double>::filled({2, 3}, 1.0)).broadcast_along(3, 2);
}

struct Window {
    std::size_t axis;
    std::size_t extent;
    std::size_t size;
    std::size_t step;
    std::size_t dilation;
    std::size_t count;
};

// A base shape and a valid window along one of its axes.
Window random_window(Rng& rng, Shape& base) {
    base = rng.shape(1, 3, 3);
    Window w{};
    w.axis = rng.between(0, base.rank() - 1);
    w.extent = rng.between(1, 6);
    base = base.with_extent(w.axis, w.extent);
    w.size = rng.between(1, w.extent);
    w.dilation = rng.between(1, 2);
    if (w.dilation * (w.size - 1) + 1 > w.extent) {
        w.dilation = 1;
    }
    w.step = rng.between(1, 3);
    w.count = (w.extent - (w.dilation * (w.size - 1) + 1)) / w.step + 1;
    return w;
}

OpCase record_unfold(Tape<double>& tape, Rng& rng) {
    Shape base;
    const Window w = random_window(rng, base);
    const Value<double> a = source(tape, 0, rng.tensor<double>(base, -1.0, 1.0));
    return {{a}, a.unfold(w.axis, w.size, w.step, w.dilation)};
}

void invalid_unfold(Tape<double>& tape) {
    tape.parameter(Tensor<double>::filled({2, 3}, 1.0)).unfold(1, 4, 1);
}

OpCase record_fold(Tape<double>& tape, Rng& rng) {
    Shape base;
    const Window w = random_window(rng, base);
    const Shape windows = base.with_extent(w.axis, w.count).with_axis(w.axis + 1, w.size);
    const Value<double> a = source(tape, 0, rng.tensor<double>(windows, -1.0, 1.0));
    return {
        {a},
        a.apply(Opcode::Fold, {a}, FoldAttributes{w.axis, w.size, w.step, w.dilation, w.extent})};
}

void invalid_fold(Tape<double>& tape) {
    // Unfolding an axis of 5 by windows of 2 gives 4 windows, not 2.
    const Value<double> a = tape.parameter(Tensor<double>::filled({2, 2}, 1.0));
    a.apply(Opcode::Fold, {a}, FoldAttributes{0, 2, 1, 1, 5});
}

OpCase record_narrow(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(1, 3, 4);
    const std::size_t axis = rng.between(0, shape.rank() - 1);
    const std::size_t start = rng.between(0, shape[axis] - 1);
    const std::size_t length = rng.between(1, shape[axis] - start);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a}, a.narrow(axis, start, length)};
}

void invalid_narrow(Tape<double>& tape) {
    tape.parameter(Tensor<double>::filled({2, 3}, 1.0)).narrow(1, 2, 2);
}

OpCase record_pad(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(1, 3, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a}, a.pad(rng.between(0, shape.rank() - 1), rng.between(0, 2), rng.between(0, 2))};
}

void invalid_pad(Tape<double>& tape) {
    tape.parameter(Tensor<double>::filled({2, 3}, 1.0)).pad(2, 1, 1);
}


// ---- the rest of the catalog ----

OpCase record_compare(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Tensor<double> a_payload = rng.tensor<double>(shape, -1.0, 1.0);
    const Tensor<double> b_payload = a_payload + rng.tensor_away_from_zero<double>(shape, 0.2, 1.0);
    const Value<double> a = source(tape, 0, a_payload);
    const Value<double> b = source(tape, 1, b_payload);
    const auto direction = static_cast<Comparison>(rng.between(0, 5));
    return {{a, b}, a.apply(Opcode::Compare, {a, b}, CompareAttributes{direction})};
}

void invalid_compare(Tape<double>& tape) {
    const Value<double> a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    const Value<double> b = tape.parameter(Tensor<double>::filled({3, 2}, 1.0));
    a.apply(Opcode::Compare, {a, b}, CompareAttributes{Comparison::Less});
}

OpCase record_pow(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, 0.3, 2.0));
    const Value<double> b = source(tape, 1, rng.tensor<double>(shape, -1.5, 1.5));
    return {{a, b}, a.apply(Opcode::Pow, {a, b})};
}

// The mask is a fixed leaf of zeros and ones; both branches are differentiated.
OpCase record_select(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Tensor<double> mask = Tensor<double>::generate(shape, [&](std::span<double> out) {
        for (double& element : out) {
            element = rng.chance(0.5) ? 1.0 : 0.0;
        }
    });
    const Value<double> m = tape.leaf(mask);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    const Value<double> b = source(tape, 1, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a, b}, m.apply(Opcode::Select, {m, a, b})};
}

void invalid_select(Tape<double>& tape) {
    const Value<double> m = tape.leaf(Tensor<double>::filled({2}, 1.0));
    const Value<double> a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    m.apply(Opcode::Select, {m, a, a});
}

// Magnitudes in [0.2, 2] with random signs: away from the kink of abs and the step of sign.
template <Opcode op>
OpCase record_unary_away_from_zero(Tape<double>& tape, Rng& rng) {
    const Value<double> a = source(tape, 0, rng.tensor_away_from_zero<double>(rng.shape(0, 3, 3), 0.2, 2.0));
    return {{a}, a.apply(op, {a})};
}

template <Opcode op>
OpCase record_positive(Tape<double>& tape, Rng& rng) {
    return record_unary_in<op>(tape, rng, 0.2, 3.0);
}

OpCase record_log1p(Tape<double>& tape, Rng& rng) {
    return record_unary_in<Opcode::Log1p>(tape, rng, -0.7, 2.0);
}

template <Opcode op>
OpCase record_reduction(Tape<double>& tape, Rng& rng) {
    Shape shape = rng.shape(1, 3, 3);
    const std::size_t axis = rng.between(0, shape.rank() - 1);
    if (rng.chance(0.5)) {
        shape = shape.with_extent(axis, rng.between(15, 20));
    }
    // Distinct values so a maximum is never tied within a stencil step.
    const Tensor<double> payload = Tensor<double>::generate(shape, [&](std::span<double> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = -1.0 + 0.05 * static_cast<double>(i) + 0.01 * rng.uniform();
        }
    });
    const Value<double> a = source(tape, 0, payload);
    return {{a}, a.apply(op, {a}, AxisAttributes{axis})};
}

template <Opcode op>
void invalid_reduction(Tape<double>& tape) {
    const Value<double> a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    a.apply(op, {a}, AxisAttributes{2});
}

OpCase record_slice(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(1, 3, 5);
    const std::size_t axis = rng.between(0, shape.rank() - 1);
    const std::size_t start = rng.between(0, shape[axis] - 1);
    const std::size_t step = rng.between(1, 3);
    const std::size_t length = rng.between(1, (shape[axis] - start + step - 1) / step);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a}, a.apply(Opcode::Slice, {a}, SliceAttributes{axis, start, length, step})};
}

void invalid_slice(Tape<double>& tape) {
    const Value<double> a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    a.apply(Opcode::Slice, {a}, SliceAttributes{1, 1, 2, 2});
}

OpCase record_concat(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(1, 3, 3);
    const std::size_t axis = rng.between(0, shape.rank() - 1);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    const Shape other = shape.with_extent(axis, rng.between(1, 3));
    const Value<double> b = source(tape, 1, rng.tensor<double>(other, -1.0, 1.0));
    return {{a, b}, a.apply(Opcode::Concat, {a, b}, AxisAttributes{axis})};
}

void invalid_concat(Tape<double>& tape) {
    const Value<double> a = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    const Value<double> b = tape.parameter(Tensor<double>::filled({3, 2}, 1.0));
    a.apply(Opcode::Concat, {a, b}, AxisAttributes{0});
}

// Random indices into `rows`, repeats included, as an index input.
Value<double> random_indices(Tape<double>& tape, Rng& rng, const Shape& shape, std::size_t rows) {
    return tape.indices(Tensor<double>::generate(shape, [&](std::span<double> out) {
        for (double& element : out) {
            element = static_cast<double>(rng.between(0, rows - 1));
        }
    }));
}

OpCase record_gather(Tape<double>& tape, Rng& rng) {
    const std::size_t rows = rng.between(1, 4);
    const Shape table_shape = rng.shape(0, 2, 3).with_axis(0, rows);
    const Value<double> table = source(tape, 0, rng.tensor<double>(table_shape, -1.0, 1.0));
    const Value<double> indices = random_indices(tape, rng, rng.shape(0, 2, 4), rows);
    return {{table}, table.apply(Opcode::Gather, {table, indices})};
}

void invalid_gather(Tape<double>& tape) {
    const Value<double> table = tape.parameter(Tensor<double>::filled({3, 2}, 1.0));
    const Value<double> not_indices = tape.input(Tensor<double>::filled({2}, 1.0));
    table.apply(Opcode::Gather, {table, not_indices});
}

OpCase record_scatter_add(Tape<double>& tape, Rng& rng) {
    const std::size_t rows = rng.between(1, 4);
    const Shape picks = rng.shape(0, 2, 4);
    const Value<double> indices = random_indices(tape, rng, picks, rows);
    Shape updates_shape = picks;
    const Shape rest = rng.shape(0, 2, 3);
    for (std::size_t axis = 0; axis < rest.rank(); ++axis) {
        updates_shape = updates_shape.with_axis(updates_shape.rank(), rest[axis]);
    }
    const Value<double> updates = source(tape, 1, rng.tensor<double>(updates_shape, -1.0, 1.0));
    return {{updates}, indices.apply(Opcode::ScatterAdd, {indices, updates}, RowsAttributes{rows})};
}

void invalid_scatter_add(Tape<double>& tape) {
    const Value<double> indices = tape.indices({3}, {0, 1, 0});
    const Value<double> updates = tape.parameter(Tensor<double>::filled({2, 2}, 1.0));
    indices.apply(Opcode::ScatterAdd, {indices, updates}, RowsAttributes{2});
}

// Its only operand is discrete: nothing is differentiated, the recording and
// the kernel are what is checked.
OpCase record_one_hot(Tape<double>& tape, Rng& rng) {
    const std::size_t depth = rng.between(1, 4);
    const Value<double> indices = random_indices(tape, rng, rng.shape(0, 2, 3), depth);
    return {{}, indices.one_hot(depth)};
}

void invalid_one_hot(Tape<double>& tape) {
    const Value<double> reals = tape.parameter(Tensor<double>::filled({2}, 1.0));
    reals.one_hot(3);
}

OpCase record_batched_matmul(Tape<double>& tape, Rng& rng) {
    if (rng.chance(0.5)) {
        return record_matmul(tape, rng);
    }
    const Shape batch = rng.shape(1, 2, 2);
    const std::size_t m = rng.between(1, 3);
    const std::size_t k = rng.between(1, 3);
    const std::size_t n = rng.between(1, 3);
    const Shape left = batch.with_axis(batch.rank(), m).with_axis(batch.rank() + 1, k);
    const Shape right = batch.with_axis(batch.rank(), k).with_axis(batch.rank() + 1, n);
    const Value<double> a = source(tape, 0, rng.tensor<double>(left, -1.0, 1.0));
    const Value<double> b = source(tape, 1, rng.tensor<double>(right, -1.0, 1.0));
    return {{a, b}, a.apply(Opcode::MatMul, {a, b})};
}

OpCase record_pad_interior(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(1, 3, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a},
            a.pad(rng.between(0, shape.rank() - 1),
                  rng.between(0, 2),
                  rng.between(0, 2),
                  rng.between(0, 2))};
}

constexpr const char* uniform_domain = "uniform in [-1, 1]: the operation is smooth everywhere";

const std::array specs{
    OpSpec{Opcode::Add,
           uniform_domain,
           default_tolerance,
           record_binary<Opcode::Add>,
           invalid_binary<Opcode::Add>,
           "broadcast"},
    OpSpec{Opcode::Sub,
           uniform_domain,
           default_tolerance,
           record_binary<Opcode::Sub>,
           invalid_binary<Opcode::Sub>,
           "broadcast"},
    OpSpec{Opcode::Mul,
           uniform_domain,
           default_tolerance,
           record_binary<Opcode::Mul>,
           invalid_binary<Opcode::Mul>,
           "broadcast"},
    OpSpec{Opcode::Div,
           "numerator in [-1, 1], denominator of magnitude in [0.5, 1.5]: away from the pole at 0",
           default_tolerance,
           record_div,
           invalid_binary<Opcode::Div>,
           "broadcast"},
    OpSpec{Opcode::Maximum,
           "b = a + s with |s| in [0.2, 1]: no ties, so no stencil point crosses the kink",
           default_tolerance,
           record_untied<Opcode::Maximum>,
           invalid_binary<Opcode::Maximum>,
           "broadcast"},
    OpSpec{Opcode::Minimum,
           "b = a + s with |s| in [0.2, 1]: no ties, so no stencil point crosses the kink",
           default_tolerance,
           record_untied<Opcode::Minimum>,
           invalid_binary<Opcode::Minimum>,
           "broadcast"},
    OpSpec{Opcode::Pow,
           "base in [0.3, 2] (positive, so log(base) exists), exponent in [-1.5, 1.5]",
           default_tolerance,
           record_pow,
           invalid_binary<Opcode::Pow>,
           "broadcast"},
    OpSpec{Opcode::Compare,
           "b = a + s with |s| in [0.2, 1], every direction: away from the step, the derivative is 0",
           default_tolerance,
           record_compare,
           invalid_compare,
           "broadcast"},
    OpSpec{Opcode::Select,
           "a fixed random mask; both branches uniform in [-1, 1]",
           default_tolerance,
           record_select,
           invalid_select,
           "one shape"},
    OpSpec{Opcode::Neg,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Neg>,
           invalid_unary<Opcode::Neg>,
           "operands"},
    OpSpec{Opcode::Abs,
           "magnitudes in [0.2, 2], random signs: away from the kink at 0",
           default_tolerance,
           record_unary_away_from_zero<Opcode::Abs>,
           invalid_unary<Opcode::Abs>,
           "operands"},
    OpSpec{Opcode::Sign,
           "magnitudes in [0.2, 2], random signs: away from the step at 0",
           default_tolerance,
           record_unary_away_from_zero<Opcode::Sign>,
           invalid_unary<Opcode::Sign>,
           "operands"},
    OpSpec{Opcode::Exp,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Exp>,
           invalid_unary<Opcode::Exp>,
           "operands"},
    OpSpec{Opcode::Expm1,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Expm1>,
           invalid_unary<Opcode::Expm1>,
           "operands"},
    OpSpec{Opcode::Log,
           "uniform in [0.2, 3]: positive, away from the pole at 0",
           default_tolerance,
           record_log,
           invalid_unary<Opcode::Log>,
           "operands"},
    OpSpec{Opcode::Log1p,
           "uniform in [-0.7, 2]: away from the pole at -1",
           default_tolerance,
           record_log1p,
           invalid_unary<Opcode::Log1p>,
           "operands"},
    OpSpec{Opcode::Sqrt,
           "uniform in [0.2, 3]: positive, away from the kink at 0",
           default_tolerance,
           record_positive<Opcode::Sqrt>,
           invalid_unary<Opcode::Sqrt>,
           "operands"},
    OpSpec{Opcode::Rsqrt,
           "uniform in [0.2, 3]: positive, away from the pole at 0",
           default_tolerance,
           record_positive<Opcode::Rsqrt>,
           invalid_unary<Opcode::Rsqrt>,
           "operands"},
    OpSpec{Opcode::Square,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Square>,
           invalid_unary<Opcode::Square>,
           "operands"},
    OpSpec{Opcode::Sin,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Sin>,
           invalid_unary<Opcode::Sin>,
           "operands"},
    OpSpec{Opcode::Cos,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Cos>,
           invalid_unary<Opcode::Cos>,
           "operands"},
    OpSpec{Opcode::Tanh,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Tanh>,
           invalid_unary<Opcode::Tanh>,
           "operands"},
    OpSpec{Opcode::Sigmoid,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Sigmoid>,
           invalid_unary<Opcode::Sigmoid>,
           "operands"},
    OpSpec{Opcode::Erf,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Erf>,
           invalid_unary<Opcode::Erf>,
           "operands"},
    OpSpec{Opcode::Gelu,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Gelu>,
           invalid_unary<Opcode::Gelu>,
           "operands"},
    OpSpec{Opcode::Softplus,
           "uniform in [-2, 2]",
           default_tolerance,
           record_unary<Opcode::Softplus>,
           invalid_unary<Opcode::Softplus>,
           "operands"},
    OpSpec{Opcode::MatMul,
           "[m, k] x [k, n] or batched over 1 to 2 axes, extents 1 to 3, uniform in [-1, 1]",
           default_tolerance,
           record_batched_matmul,
           invalid_matmul,
           "inner extents differ"},
    OpSpec{Opcode::Sum,
           "all axes or one; an axis of 15 to 20 crosses the 16 striped lanes",
           default_tolerance,
           record_sum,
           invalid_sum,
           "out of range"},
    OpSpec{Opcode::Max,
           "distinct, evenly spread values (no ties); an axis of 15 to 20 at times",
           default_tolerance,
           record_reduction<Opcode::Max>,
           invalid_reduction<Opcode::Max>,
           "out of range"},
    OpSpec{Opcode::LogSumExp,
           "evenly spread values in [-1, 2]; an axis of 15 to 20 at times",
           default_tolerance,
           record_reduction<Opcode::LogSumExp>,
           invalid_reduction<Opcode::LogSumExp>,
           "out of range"},
    OpSpec{Opcode::LogSoftmax,
           "evenly spread values in [-1, 2]; an axis of 15 to 20 at times",
           default_tolerance,
           record_reduction<Opcode::LogSoftmax>,
           invalid_reduction<Opcode::LogSoftmax>,
           "out of range"},
    OpSpec{Opcode::Reshape,
           "any refactorisation of the element count, rank 0 to 4",
           default_tolerance,
           record_reshape,
           invalid_reshape,
           "keep the element count"},
    OpSpec{Opcode::Permute,
           "a random permutation of rank 1 to 4",
           default_tolerance,
           record_permute,
           invalid_permute,
           "exactly once"},
    OpSpec{Opcode::BroadcastAlong,
           "any axis position 0 to rank, extent 1 to 3",
           default_tolerance,
           record_broadcast_along,
           invalid_broadcast_along,
           "out of range"},
    OpSpec{Opcode::Unfold,
           "extent 1 to 6, any valid size, step 1 to 3, dilation 1 or 2",
           default_tolerance,
           record_unfold,
           invalid_unfold,
           "smaller window"},
    OpSpec{Opcode::Fold,
           "the window axes of a random valid unfold",
           default_tolerance,
           record_fold,
           invalid_fold,
           "unfold's own attributes"},
    OpSpec{Opcode::Narrow,
           "any start and a length of at least 1",
           default_tolerance,
           record_narrow,
           invalid_narrow,
           "do not fit"},
    OpSpec{Opcode::Pad,
           "0 to 2 zeros before, after and between elements",
           default_tolerance,
           record_pad_interior,
           invalid_pad,
           "out of range"},
    OpSpec{Opcode::Slice,
           "any start, step 1 to 3, at least one position",
           default_tolerance,
           record_slice,
           invalid_slice,
           "do not fit"},
    OpSpec{Opcode::Concat,
           "any axis, the second operand 1 to 3 long along it",
           default_tolerance,
           record_concat,
           invalid_concat,
           "agree on every axis"},
    OpSpec{Opcode::Gather,
           "random indices with repeats; the table is differentiated",
           default_tolerance,
           record_gather,
           invalid_gather,
           "tape.indices"},
    OpSpec{Opcode::ScatterAdd,
           "random indices with repeats; the updates are differentiated",
           default_tolerance,
           record_scatter_add,
           invalid_scatter_add,
           "indices' shape"},
    OpSpec{Opcode::OneHot,
           "random indices; there is no real operand to differentiate",
           default_tolerance,
           record_one_hot,
           invalid_one_hot,
           "tape.indices"},
};

}  // namespace

std::span<const OpSpec> op_specs() {
    return specs;
}

const OpSpec* find_op_spec(Opcode opcode) {
    for (const OpSpec& spec : specs) {
        if (spec.opcode == opcode) {
            return &spec;
        }
    }
    return nullptr;
}

std::vector<Opcode> computed_opcodes() {
    std::vector<Opcode> opcodes;
    for (std::size_t i = 0; i < opcode_count; ++i) {
        if (!is_source(static_cast<Opcode>(i))) {
            opcodes.push_back(static_cast<Opcode>(i));
        }
    }
    return opcodes;
}

}  // namespace topos::test
