// The forward oracle's helpers (tests/run/forward_*_test.cpp): record a small
// graph on a fresh tape, seal it, run Network::forward once and return the
// value of its result, in double or float, for hand-checked expected values;
// and the one-ulp bound of the exact math functions against long double.
#pragma once

#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/run/run.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <limits>
#include <span>
#include <utility>
#include <vector>

namespace topos::test {

// Records f(tape) on a fresh tape, seals it and returns the value of f's result.
template <class T>
Tensor<T> evaluate(const std::function<Value<T>(Tape<T>&)>& f) {
    Tape<T> tape;
    const Symbol result = f(tape);
    const Network<T> network = std::move(tape).into_network();
    return network.forward(network.parameters()).of(result);
}

inline Tensor<double> evaluate_f64(const std::function<Value<double>(Tape<double>&)>& f) {
    return evaluate<double>(f);
}

inline Tensor<float> evaluate_f32(const std::function<Value<float>(Tape<float>&)>& f) {
    return evaluate<float>(f);
}

template <class T>
std::vector<T> elements(const Tensor<T>& tensor) {
    return {tensor.data().begin(), tensor.data().end()};
}

// Records one application of `opcode` to parameters holding `operands`.
template <class T>
Tensor<T> apply_to(Opcode opcode,
                   const std::vector<Tensor<T>>& operands,
                   const Attributes& attributes) {
    return evaluate<T>([&](Tape<T>& tape) {
        std::vector<Value<T>> values;
        for (const Tensor<T>& operand : operands) {
            values.push_back(tape.parameter(operand));
        }
        if (values.size() == 1) {
            return values[0].apply(opcode, {values[0]}, attributes);
        }
        if (values.size() == 2) {
            return values[0].apply(opcode, {values[0], values[1]}, attributes);
        }
        return values[0].apply(opcode, {values[0], values[1], values[2]}, attributes);
    });
}

inline Tensor<double> apply(Opcode opcode,
                            std::initializer_list<Tensor<double>> operands,
                            const Attributes& attributes = {}) {
    return apply_to<double>(opcode, operands, attributes);
}

inline Tensor<float> apply(Opcode opcode,
                           std::initializer_list<Tensor<float>> operands,
                           const Attributes& attributes = {}) {
    return apply_to<float>(opcode, operands, attributes);
}

inline Tensor<double> iota(const Shape& shape, double first = 0.0) {
    return Tensor<double>::generate(shape, [&](std::span<double> out) {
        for (std::size_t i = 0; i < out.size(); ++i) {
            out[i] = first + static_cast<double>(i);
        }
    });
}

inline constexpr double inf = std::numeric_limits<double>::infinity();

// Within one unit in the last place of the correctly rounded value (the exact
// math functions' documented bound), measured against long double.
template <class T>
void expect_within_one_ulp(T actual, long double reference) {
    const T nearest = static_cast<T>(reference);
    const T ulp = std::nextafter(nearest, std::numeric_limits<T>::infinity()) - nearest;
    EXPECT_LE(std::abs(static_cast<long double>(actual) - reference), static_cast<long double>(ulp))
        << actual << " vs " << static_cast<double>(reference);
}

}  // namespace topos::test
