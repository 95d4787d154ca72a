// The record functions of the layout opcodes' specs: Reshape to a random
// refactorisation, Permute, BroadcastAlong, Unfold and Fold on random valid
// windows, Narrow, Pad with interior zeros, strided Slice and Concat, each with
// a call its shape rule rejects.
#include "support/op_specs_records.hpp"

#include <span>
#include <utility>
#include <vector>

namespace topos::test::records {
namespace {

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

}  // namespace

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

}  // namespace topos::test::records
