#include "support/op_specs.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
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

// Index values uniform in [0, bound), recorded with tape.indices.
Value<double> random_indices(Tape<double>& tape, Rng& rng, const Shape& shape, std::size_t bound) {
    return tape.indices(Tensor<double>::generate(shape, [&](std::span<double> out) {
        for (double& index : out) {
            index = static_cast<double>(rng.between(0, bound - 1));
        }
    }));
}

// Some axis of the shape made long enough to cross the 16 striped lanes.
Shape maybe_long_axis(Rng& rng, Shape shape) {
    if (shape.rank() > 0 && rng.chance(0.4)) {
        const std::size_t axis = rng.between(0, shape.rank() - 1);
        shape = shape.with_extent(axis, rng.between(15, 20));
    }
    return shape;
}

Value<double> parameter_of(Tape<double>& tape, const Shape& shape) {
    return tape.parameter(Tensor<double>::filled(shape, 1.0));
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

OpCase record_pow(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, 0.5, 2.0));
    const Value<double> b = source(tape, 1, rng.tensor<double>(shape, -2.0, 2.0));
    return {{a, b}, a.apply(Opcode::Pow, {a, b})};
}

// b = a + s with |s| in [0.2, 1]: no ties, and the largest stencil step (2e-3)
// never crosses a kink.
std::pair<Value<double>, Value<double>> untied(Tape<double>& tape, Rng& rng, const Shape& shape) {
    const Tensor<double> a_payload = rng.tensor<double>(shape, -1.0, 1.0);
    const Tensor<double> b_payload = a_payload + rng.tensor_away_from_zero<double>(shape, 0.2, 1.0);
    return {source(tape, 0, a_payload), source(tape, 1, b_payload)};
}

template <Opcode op>
OpCase record_untied(Tape<double>& tape, Rng& rng) {
    const auto [a, b] = untied(tape, rng, rng.shape(0, 3, 3));
    return {{a, b}, a.apply(op, {a, b})};
}

OpCase record_compare(Tape<double>& tape, Rng& rng) {
    const auto [a, b] = untied(tape, rng, rng.shape(0, 3, 3));
    const auto direction = static_cast<Comparison>(rng.between(0, 5));
    return {{a, b}, a.apply(Opcode::Compare, {a, b}, CompareAttributes{direction})};
}

// The mask is a constant (perturbing it would flip branches): 0, 1 or 2.5.
OpCase record_select(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Value<double> mask =
        tape.leaf(Tensor<double>::generate(shape, [&](std::span<double> out) {
            for (double& m : out) {
                m = std::array{0.0, 1.0, 2.5}[rng.between(0, 2)];
            }
        }));
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    const Value<double> b = source(tape, 1, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a, b}, a.apply(Opcode::Select, {mask, a, b})};
}

template <Opcode op>
void invalid_binary(Tape<double>& tape) {
    const Value<double> a = parameter_of(tape, {2, 3});
    a.apply(op, {a, parameter_of(tape, {3, 2})});
}

void invalid_compare(Tape<double>& tape) {
    const Value<double> a = parameter_of(tape, {2, 3});
    a.apply(Opcode::Compare, {a, parameter_of(tape, {3, 2})}, CompareAttributes{Comparison::Less});
}

void invalid_select(Tape<double>& tape) {
    const Value<double> mask = parameter_of(tape, {2, 3});
    const Value<double> a = parameter_of(tape, {2, 3});
    mask.apply(Opcode::Select, {mask, a, parameter_of(tape, {3, 2})});
}

// ---- elementwise unary ----

// Where a unary opcode's operand is drawn from.
enum class Domain {
    Unary,          // uniform in [-2, 2]
    Wide,           // uniform in [-3, 3]
    Positive,       // uniform in [0.2, 3]
    AboveMinusOne,  // uniform in [-0.5, 3]
    AwayFromZero,   // magnitude in [0.2, 2], random signs
    OffIntegers,    // n + f with n in [-3, 2] and f in [0.1, 0.9]
};

constexpr const char* describe(Domain domain) {
    switch (domain) {
        case Domain::Unary:
            return "uniform in [-2, 2]: smooth everywhere";
        case Domain::Wide:
            return "uniform in [-3, 3]: smooth everywhere";
        case Domain::Positive:
            return "uniform in [0.2, 3]: positive, away from the pole or branch point at 0";
        case Domain::AboveMinusOne:
            return "uniform in [-0.5, 3]: away from the pole at -1";
        case Domain::AwayFromZero:
            return "magnitude in [0.2, 2], random signs: away from the kink or step at 0";
        case Domain::OffIntegers:
            return "at least 0.1 from every integer: away from the steps, the derivative is 0";
    }
    return "";
}

Tensor<double> draw(Rng& rng, const Shape& shape, Domain domain) {
    switch (domain) {
        case Domain::Unary:
            return rng.tensor<double>(shape, -2.0, 2.0);
        case Domain::Wide:
            return rng.tensor<double>(shape, -3.0, 3.0);
        case Domain::Positive:
            return rng.tensor<double>(shape, 0.2, 3.0);
        case Domain::AboveMinusOne:
            return rng.tensor<double>(shape, -0.5, 3.0);
        case Domain::AwayFromZero:
            return rng.tensor_away_from_zero<double>(shape, 0.2, 2.0);
        case Domain::OffIntegers:
            return Tensor<double>::generate(shape, [&](std::span<double> out) {
                for (double& x : out) {
                    x = static_cast<double>(rng.between(0, 5)) - 3.0 + rng.uniform(0.1, 0.9);
                }
            });
    }
    return {};
}

template <Opcode op, Domain domain>
OpCase record_unary(Tape<double>& tape, Rng& rng) {
    const Value<double> a = source(tape, 0, draw(rng, rng.shape(0, 3, 3), domain));
    return {{a}, a.apply(op, {a})};
}

template <Opcode op>
void invalid_unary(Tape<double>& tape) {
    const Value<double> a = parameter_of(tape, {2, 3});
    a.apply(op, {a, a});
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

// Max, LogSumExp and LogSoftmax: one axis of a rank 1 to 3 operand.
template <Opcode op>
OpCase record_along_axis(Tape<double>& tape, Rng& rng) {
    const Shape shape = maybe_long_axis(rng, rng.shape(1, 3, 3));
    const Tensor<double> payload =
        op == Opcode::Max ? distinct(rng, shape) : rng.tensor<double>(shape, -2.0, 2.0);
    const Value<double> a = source(tape, 0, payload);
    return {{a}, a.apply(op, {a}, AxisAttributes{rng.between(0, shape.rank() - 1)})};
}

template <Opcode op>
void invalid_axis(Tape<double>& tape) {
    const Value<double> a = parameter_of(tape, {2, 3});
    a.apply(op, {a}, AxisAttributes{2});
}

// ---- layout ----

OpCase record_reshape(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 4);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a}, a.reshape(random_factorization(rng, shape.elements(), 4))};
}

void invalid_reshape(Tape<double>& tape) {
    parameter_of(tape, {2, 3}).reshape(Shape{4});
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
    parameter_of(tape, {2, 3}).permute(Axes{0, 0});
}

OpCase record_broadcast_along(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    const std::size_t axis = rng.between(0, shape.rank());
    return {{a}, a.broadcast_along(axis, rng.between(1, 3))};
}

void invalid_broadcast_along(Tape<double>& tape) {
    parameter_of(tape, {2, 3}).broadcast_along(3, 2);
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
    parameter_of(tape, {2, 3}).unfold(1, 4, 1);
}

OpCase record_fold(Tape<double>& tape, Rng& rng) {
    Shape base;
    const Window w = random_window(rng, base);
    const Shape windows = base.with_extent(w.axis, w.count).with_axis(w.axis + 1, w.size);
    const Value<double> a = source(tape, 0, rng.tensor<double>(windows, -1.0, 1.0));
    return {{a}, a.fold(w.axis, w.size, w.step, w.dilation, w.extent)};
}

void invalid_fold(Tape<double>& tape) {
    // Unfolding an axis of 5 by windows of 2 gives 4 windows, not 2.
    parameter_of(tape, {2, 2}).fold(0, 2, 1, 1, 5);
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
    parameter_of(tape, {2, 3}).narrow(1, 2, 2);
}

// Zeros before, after and between the elements of one axis.
OpCase record_pad_interior(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(1, 3, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    // Drawn one per statement: the order of a call's arguments is unspecified.
    const std::size_t axis = rng.between(0, shape.rank() - 1);
    const std::size_t before = rng.between(0, 2);
    const std::size_t after = rng.between(0, 2);
    return {{a}, a.pad(axis, before, after, rng.between(0, 2))};
}

void invalid_pad(Tape<double>& tape) {
    parameter_of(tape, {2, 3}).pad(2, 1, 1);
}

OpCase record_slice(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(1, 3, 6);
    const std::size_t axis = rng.between(0, shape.rank() - 1);
    const std::size_t start = rng.between(0, shape[axis] - 1);
    const std::size_t step = rng.between(1, 3);
    const std::size_t length = rng.between(1, (shape[axis] - 1 - start) / step + 1);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a}, a.apply(Opcode::Slice, {a}, SliceAttributes{axis, start, length, step})};
}

void invalid_slice(Tape<double>& tape) {
    // Positions 1 and 3 of an axis of 3.
    const Value<double> a = parameter_of(tape, {2, 3});
    a.apply(Opcode::Slice, {a}, SliceAttributes{1, 1, 2, 2});
}

OpCase record_concat(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(1, 3, 3);
    const std::size_t axis = rng.between(0, shape.rank() - 1);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    const Value<double> b =
        source(tape, 1, rng.tensor<double>(shape.with_extent(axis, rng.between(1, 3)), -1.0, 1.0));
    return {{a, b}, a.apply(Opcode::Concat, {a, b}, AxisAttributes{axis})};
}

void invalid_concat(Tape<double>& tape) {
    const Value<double> a = parameter_of(tape, {2, 3});
    a.apply(Opcode::Concat, {a, parameter_of(tape, {3, 3})}, AxisAttributes{1});
}

// ---- indexing ----

// Picks with repeats (indices of rank 0 to 2 from up to 4 rows), so rows gather
// several times and scatter-add accumulates.
OpCase record_gather(Tape<double>& tape, Rng& rng) {
    const std::size_t rows = rng.between(1, 4);
    const Shape table_shape = rng.shape(0, 2, 3).with_axis(0, rows);
    const Value<double> table = source(tape, 0, rng.tensor<double>(table_shape, -1.0, 1.0));
    const Value<double> picks = random_indices(tape, rng, rng.shape(0, 2, 3), rows);
    return {{table}, table.apply(Opcode::Gather, {table, picks}), {picks}};
}

void invalid_gather(Tape<double>& tape) {
    const Value<double> table = parameter_of(tape, {});
    table.apply(Opcode::Gather, {table, tape.indices({2}, {0, 0})});
}

OpCase record_scatter_add(Tape<double>& tape, Rng& rng) {
    const std::size_t rows = rng.between(1, 4);
    const Shape picks_shape = rng.shape(0, 2, 3);
    const Value<double> picks = random_indices(tape, rng, picks_shape, rows);
    Shape updates_shape = picks_shape;
    const Shape rest = rng.shape(0, 2, 3);  // named: extents() views its storage
    for (std::size_t extent : rest.extents()) {
        updates_shape = updates_shape.with_axis(updates_shape.rank(), extent);
    }
    const Value<double> updates = source(tape, 0, rng.tensor<double>(updates_shape, -1.0, 1.0));
    return {{updates},
            picks.apply(Opcode::ScatterAdd, {picks, updates}, RowsAttributes{rows}),
            {picks}};
}

void invalid_scatter_add(Tape<double>& tape) {
    const Value<double> picks = tape.indices({2}, {0, 1});
    picks.apply(Opcode::ScatterAdd, {picks, parameter_of(tape, {3, 4})}, RowsAttributes{2});
}

OpCase record_one_hot(Tape<double>& tape, Rng& rng) {
    const std::size_t depth = rng.between(1, 4);
    const Value<double> picks = random_indices(tape, rng, rng.shape(0, 2, 3), depth);
    return {{}, picks.one_hot(depth), {picks}};
}

void invalid_one_hot(Tape<double>& tape) {
    // Reals where indices belong.
    parameter_of(tape, {2, 3}).one_hot(3);
}

constexpr const char* uniform_domain = "uniform in [-1, 1]: the operation is smooth everywhere";
constexpr const char* untied_domain =
    "b = a + s with |s| in [0.2, 1]: no ties, so no stencil "
    "point (2h = 2e-3) crosses the kink";

// The advice each rejection gives: enough of it to show it says how to fix the call.
constexpr const char* shapes_advice = "broadcast";
constexpr const char* arity_advice = "operands";
constexpr const char* axis_advice = "out of range";

// The spec of an elementwise unary opcode: one line of the table below.
template <Opcode op, Domain domain>
constexpr OpSpec unary_spec(UnaryReference reference) {
    return {op,
            describe(domain),
            default_tolerance,
            record_unary<op, domain>,
            invalid_unary<op>,
            arity_advice,
            reference};
}

// The C library's value in long double, which the kernel must match within the
// kernel reference test's tolerance.
constexpr UnaryReference libm(long double (*value)(long double)) {
    return {nullptr, value};
}

// The correctly rounded value, which the kernel must match bit for bit.
constexpr UnaryReference exact(double (*value)(double)) {
    return {value, nullptr};
}

const std::array specs{
    OpSpec{Opcode::Add,
           uniform_domain,
           default_tolerance,
           record_binary<Opcode::Add>,
           invalid_binary<Opcode::Add>,
           shapes_advice},
    OpSpec{Opcode::Sub,
           uniform_domain,
           default_tolerance,
           record_binary<Opcode::Sub>,
           invalid_binary<Opcode::Sub>,
           shapes_advice},
    OpSpec{Opcode::Mul,
           uniform_domain,
           default_tolerance,
           record_binary<Opcode::Mul>,
           invalid_binary<Opcode::Mul>,
           shapes_advice},
    OpSpec{Opcode::Div,
           "numerator in [-1, 1], denominator of magnitude in [0.5, 1.5]: away from the pole",
           default_tolerance,
           record_div,
           invalid_binary<Opcode::Div>,
           shapes_advice},
    OpSpec{Opcode::Maximum,
           untied_domain,
           default_tolerance,
           record_untied<Opcode::Maximum>,
           invalid_binary<Opcode::Maximum>,
           shapes_advice},
    OpSpec{Opcode::Minimum,
           untied_domain,
           default_tolerance,
           record_untied<Opcode::Minimum>,
           invalid_binary<Opcode::Minimum>,
           shapes_advice},
    OpSpec{Opcode::Pow,
           "base in [0.5, 2] (positive: the exponent's derivative takes log(base)), exponent "
           "in [-2, 2]",
           default_tolerance,
           record_pow,
           invalid_binary<Opcode::Pow>,
           shapes_advice},
    OpSpec{Opcode::Compare,
           "every direction on untied operands: away from the step, the derivative is 0",
           default_tolerance,
           record_compare,
           invalid_compare,
           shapes_advice},
    OpSpec{Opcode::Select,
           "a constant mask of 0, 1 and 2.5; branches uniform in [-1, 1]",
           default_tolerance,
           record_select,
           invalid_select,
           "broadcast them first"},
    // clang-format off
    unary_spec<Opcode::Neg, Domain::Unary>(exact([](double x) { return -x; })),
    unary_spec<Opcode::Abs, Domain::AwayFromZero>(exact([](double x) { return std::fabs(x); })),
    unary_spec<Opcode::Sign, Domain::AwayFromZero>(exact([](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); })),
    unary_spec<Opcode::Exp, Domain::Unary>(libm([](long double x) { return std::exp(x); })),
    unary_spec<Opcode::Expm1, Domain::Unary>(libm([](long double x) { return std::expm1(x); })),
    unary_spec<Opcode::Log, Domain::Positive>(libm([](long double x) { return std::log(x); })),
    unary_spec<Opcode::Log1p, Domain::AboveMinusOne>(libm([](long double x) { return std::log1p(x); })),
    unary_spec<Opcode::Sqrt, Domain::Positive>(exact([](double x) { return std::sqrt(x); })),
    unary_spec<Opcode::Rsqrt, Domain::Positive>(exact([](double x) { return 1.0 / std::sqrt(x); })),
    unary_spec<Opcode::Square, Domain::Unary>(exact([](double x) { return x * x; })),
    unary_spec<Opcode::Sin, Domain::Wide>(libm([](long double x) { return std::sin(x); })),
    unary_spec<Opcode::Cos, Domain::Wide>(libm([](long double x) { return std::cos(x); })),
    unary_spec<Opcode::Tanh, Domain::Unary>(libm([](long double x) { return std::tanh(x); })),
    unary_spec<Opcode::Sigmoid, Domain::Unary>(libm([](long double x) { return 1 / (1 + std::exp(-x)); })),
    unary_spec<Opcode::Erf, Domain::Unary>(libm([](long double x) { return std::erf(x); })),
    // x Phi(x) with Phi(x) = erfc(-x / sqrt 2) / 2: no cancellation for negative x.
    unary_spec<Opcode::Gelu, Domain::Wide>(libm([](long double x) { return x * std::erfc(-x / std::numbers::sqrt2_v<long double>) / 2; })),
    unary_spec<Opcode::Softplus, Domain::Wide>(libm([](long double x) { return std::log1p(std::exp(x)); })),
    unary_spec<Opcode::Silu, Domain::Wide>(libm([](long double x) { return x / (1 + std::exp(-x)); })),
    unary_spec<Opcode::Floor, Domain::OffIntegers>(exact([](double x) { return std::floor(x); })),
    // clang-format on
    OpSpec{Opcode::MatMul,
           "[..., m, k] x [..., k, n], extents 1 to 3, up to 2 batch axes, uniform in [-1, 1]",
           default_tolerance,
           record_matmul,
           invalid_matmul,
           "inner extents differ"},
    OpSpec{Opcode::Sum,
           "all axes or one; an axis of 15 to 20 crosses the 16 striped lanes",
           default_tolerance,
           record_sum,
           invalid_axis<Opcode::Sum>,
           axis_advice},
    OpSpec{Opcode::Max,
           "elements at least 0.25 apart: no ties along any axis, so no kink is crossed",
           default_tolerance,
           record_along_axis<Opcode::Max>,
           invalid_axis<Opcode::Max>,
           axis_advice},
    OpSpec{Opcode::LogSumExp,
           "uniform in [-2, 2] along one axis, sometimes longer than 16",
           default_tolerance,
           record_along_axis<Opcode::LogSumExp>,
           invalid_axis<Opcode::LogSumExp>,
           axis_advice},
    OpSpec{Opcode::LogSoftmax,
           "uniform in [-2, 2] along one axis, sometimes longer than 16",
           default_tolerance,
           record_along_axis<Opcode::LogSoftmax>,
           invalid_axis<Opcode::LogSoftmax>,
           axis_advice},
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
           axis_advice},
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
           axis_advice},
    OpSpec{Opcode::Slice,
           "any start, step 1 to 3, a length of at least 1",
           default_tolerance,
           record_slice,
           invalid_slice,
           "do not fit"},
    OpSpec{Opcode::Concat,
           "two operands that differ along the joined axis only",
           default_tolerance,
           record_concat,
           invalid_concat,
           "agree on every axis"},
    OpSpec{Opcode::Gather,
           "a table of 1 to 4 rows, indices of rank 0 to 2 with repeats",
           default_tolerance,
           record_gather,
           invalid_gather,
           "row axis"},
    OpSpec{Opcode::ScatterAdd,
           "indices of rank 0 to 2 with repeats into 1 to 4 rows",
           default_tolerance,
           record_scatter_add,
           invalid_scatter_add,
           "must start with the indices' shape"},
    OpSpec{Opcode::OneHot,
           "indices of rank 0 to 2 below a depth of 1 to 4: nothing to differentiate",
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
    const auto found = std::ranges::find(specs, opcode, &OpSpec::opcode);
    return found == specs.end() ? nullptr : &*found;
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
