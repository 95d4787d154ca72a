// The record functions of the opcode test specs, by family (op_specs_elementwise,
// _reduction, _layout and _indexing.cpp), and the helpers they share: what the
// table of op_specs.cpp puts in its rows. Private to tests/support: the tests
// read the table through op_specs.hpp.
#pragma once

#include "support/op_specs.hpp"
#include "support/random_graphs.hpp"
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/ops/opcode.hpp>

#include <cstddef>
#include <utility>

namespace topos::test::records {

// Operand 0 is a parameter, operand 1 an input, and so on: both kinds of source
// get differentiated.
inline Value<double> source(Tape<double>& tape, std::size_t position, Tensor<double> payload) {
    return position % 2 == 0 ? tape.parameter(std::move(payload)) : tape.input(std::move(payload));
}

inline Value<double> parameter_of(Tape<double>& tape, const Shape& shape) {
    return tape.parameter(Tensor<double>::filled(shape, 1.0));
}

// Operands without ties, and axes longer than the striped lanes
// (op_specs_reduction.cpp).
Tensor<double> distinct(Rng& rng, const Shape& shape);
Shape maybe_long_axis(Rng& rng, Shape shape);

// ---- elementwise binary ----

template <Opcode op>
OpCase record_binary(Tape<double>& tape, Rng& rng) {
    const Shape shape = rng.shape(0, 3, 3);
    const Value<double> a = source(tape, 0, rng.tensor<double>(shape, -1.0, 1.0));
    const Value<double> b = source(tape, 1, rng.tensor<double>(shape, -1.0, 1.0));
    return {{a, b}, a.apply(op, {a, b})};
}

// op_specs_elementwise.cpp
OpCase record_div(Tape<double>& tape, Rng& rng);
OpCase record_pow(Tape<double>& tape, Rng& rng);
std::pair<Value<double>, Value<double>> untied(Tape<double>& tape, Rng& rng, const Shape& shape);

template <Opcode op>
OpCase record_untied(Tape<double>& tape, Rng& rng) {
    const auto [a, b] = untied(tape, rng, rng.shape(0, 3, 3));
    return {{a, b}, a.apply(op, {a, b})};
}

OpCase record_compare(Tape<double>& tape, Rng& rng);
OpCase record_select(Tape<double>& tape, Rng& rng);

template <Opcode op>
void invalid_binary(Tape<double>& tape) {
    const Value<double> a = parameter_of(tape, {2, 3});
    a.apply(op, {a, parameter_of(tape, {3, 2})});
}

void invalid_compare(Tape<double>& tape);
void invalid_select(Tape<double>& tape);

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

// An operand of `shape` drawn from `domain` (op_specs_elementwise.cpp).
Tensor<double> draw(Rng& rng, const Shape& shape, Domain domain);

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

// Convert to float: the one rounding central differences in double can see
// through (op_specs_elementwise.cpp).
OpCase record_convert(Tape<double>& tape, Rng& rng);
void invalid_convert(Tape<double>& tape);

// ---- contraction and reduction ----

// op_specs_reduction.cpp
OpCase record_matmul(Tape<double>& tape, Rng& rng);
void invalid_matmul(Tape<double>& tape);
OpCase record_sum(Tape<double>& tape, Rng& rng);

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

// op_specs_layout.cpp
OpCase record_reshape(Tape<double>& tape, Rng& rng);
void invalid_reshape(Tape<double>& tape);
OpCase record_permute(Tape<double>& tape, Rng& rng);
void invalid_permute(Tape<double>& tape);
OpCase record_broadcast_along(Tape<double>& tape, Rng& rng);
void invalid_broadcast_along(Tape<double>& tape);
OpCase record_unfold(Tape<double>& tape, Rng& rng);
void invalid_unfold(Tape<double>& tape);
OpCase record_fold(Tape<double>& tape, Rng& rng);
void invalid_fold(Tape<double>& tape);
OpCase record_narrow(Tape<double>& tape, Rng& rng);
void invalid_narrow(Tape<double>& tape);
OpCase record_pad_interior(Tape<double>& tape, Rng& rng);
void invalid_pad(Tape<double>& tape);
OpCase record_slice(Tape<double>& tape, Rng& rng);
void invalid_slice(Tape<double>& tape);
OpCase record_concat(Tape<double>& tape, Rng& rng);
void invalid_concat(Tape<double>& tape);

// ---- indexing ----

// op_specs_indexing.cpp
OpCase record_gather(Tape<double>& tape, Rng& rng);
void invalid_gather(Tape<double>& tape);
OpCase record_scatter_add(Tape<double>& tape, Rng& rng);
void invalid_scatter_add(Tape<double>& tape);
OpCase record_one_hot(Tape<double>& tape, Rng& rng);
void invalid_one_hot(Tape<double>& tape);

}  // namespace topos::test::records
