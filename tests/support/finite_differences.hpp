// Finite differences in double: the independent oracle every derivative rule is
// checked against. Central differences (2-point, or the 4-point stencil for
// precision), full Jacobians of a network output with respect to one source, and
// a relative-error comparison in the infinity norm that reports where it failed.
// Nothing here uses the library's derivative rules: only Network::forward.
#pragma once

#include <topos/graph/network.hpp>
#include <topos/graph/symbol.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace topos::test {

enum class Stencil {
    TwoPoint,   // (f(h) - f(-h)) / 2h: error O(h^2)
    FourPoint,  // (-f(2h) + 8 f(h) - 8 f(-h) + f(-2h)) / 12h: error O(h^4)
};

struct DifferenceOptions {
    double step = 1e-3;
    Stencil stencil = Stencil::FourPoint;
};

// d f(t) / dt at t = 0, elementwise over f's vector result.
std::vector<double> central_difference(const std::function<std::vector<double>(double)>& f,
                                       const DifferenceOptions& options = {});

// A dense Jacobian, row-major: rows are outputs, columns are inputs.
struct Jacobian {
    std::size_t rows = 0;
    std::size_t columns = 0;
    std::vector<double> values;

    double operator()(std::size_t row, std::size_t column) const {
        return values[row * columns + column];
    }

    // J^T w: the vector-Jacobian product a reverse scan computes for seed w.
    std::vector<double> transpose_times(std::span<const double> w) const;

    // J v: the directional derivative along v.
    std::vector<double> times(std::span<const double> v) const;
};

// The Jacobian of f at `point`, one central difference per input coordinate.
Jacobian jacobian(const std::function<std::vector<double>(std::span<const double>)>& f,
                  std::span<const double> point,
                  const DifferenceOptions& options = {});

// A source's value for one evaluation: a Parameter is replaced in the
// Parameters, an Input is fed. Anything else throws std::invalid_argument.
struct SourceValue {
    Symbol symbol;
    Tensor<double> value;
};

// Network::forward with `sources` overriding parameters (in `parameters`) and
// inputs (in `feeds`, or their recorded defaults).
Run<double> forward_at(const Network<double>& network,
                       const Parameters<double>& parameters,
                       std::span<const Feed<double>> feeds,
                       std::span<const SourceValue> sources);

// The current value of a Parameter or Input source under these parameters and feeds.
Tensor<double> source_value(const Network<double>& network,
                            const Parameters<double>& parameters,
                            std::span<const Feed<double>> feeds,
                            Symbol source);

// d output / d source, the full Jacobian (output elements x source elements),
// where source is a Parameter or an Input of `network`.
Jacobian network_jacobian(const Network<double>& network,
                          const Parameters<double>& parameters,
                          std::span<const Feed<double>> feeds,
                          Symbol output,
                          Symbol source,
                          const DifferenceOptions& options = {});

// The derivative of `outputs` (concatenated) along a direction that moves every
// listed source at once: d/dt outputs(sources + t * directions).
std::vector<double> network_directional_derivative(const Network<double>& network,
                                                   const Parameters<double>& parameters,
                                                   std::span<const Feed<double>> feeds,
                                                   std::span<const Symbol> outputs,
                                                   std::span<const SourceValue> directions,
                                                   const DifferenceOptions& options = {});

// max |a - e| / max(max |e|, max |a|): 0 when both are all zeros. Sizes must match.
double relative_error(std::span<const double> actual, std::span<const double> expected);

// Success when relative_error(actual, expected) <= tolerance; the failure names
// the error, the tolerance and the worst element of both vectors.
::testing::AssertionResult near_relative(std::span<const double> actual,
                                         std::span<const double> expected,
                                         double tolerance);

// The elements of a tensor as doubles.
template <class T>
std::vector<double> to_doubles(const Tensor<T>& tensor) {
    std::vector<double> values;
    values.reserve(tensor.data().size());
    for (const T value : tensor.data()) {
        values.push_back(static_cast<double>(value));
    }
    return values;
}

}  // namespace topos::test
