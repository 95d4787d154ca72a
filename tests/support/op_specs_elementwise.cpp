// The record functions of the elementwise opcodes' specs: the binary ones with
// their domains (away from Div's pole, Pow's positive base, untied operands for
// Maximum, Minimum and Compare, a constant mask for Select), and the domains the
// unary ones draw from.
#include "support/op_specs_records.hpp"

#include <array>
#include <span>

namespace topos::test::records {

// ---- elementwise binary ----

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

OpCase record_convert(Tape<double>& tape, Rng& rng) {
    const Value<double> a = source(tape, 0, rng.tensor<double>(rng.shape(0, 3, 3), -2.0, 2.0));
    return {{a}, a.rounded_to<float>()};
}

void invalid_convert(Tape<double>& tape) {
    const Value<double> a = parameter_of(tape, {2, 3});
    a.apply(Opcode::Convert, {a});
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

}  // namespace topos::test::records
