#include "support/finite_differences.hpp"

#include <topos/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace topos::test {

std::vector<double> central_difference(const std::function<std::vector<double>(double)>& f,
                                       const DifferenceOptions& options) {
    const double h = options.step;
    std::vector<double> result;
    if (options.stencil == Stencil::TwoPoint) {
        const std::vector<double> plus = f(h);
        const std::vector<double> minus = f(-h);
        result.resize(plus.size());
        for (std::size_t i = 0; i < plus.size(); ++i) {
            result[i] = (plus[i] - minus[i]) / (2 * h);
        }
        return result;
    }
    const std::vector<double> plus2 = f(2 * h);
    const std::vector<double> plus1 = f(h);
    const std::vector<double> minus1 = f(-h);
    const std::vector<double> minus2 = f(-2 * h);
    result.resize(plus1.size());
    for (std::size_t i = 0; i < plus1.size(); ++i) {
        // Differences first, so a constant cancels exactly.
        result[i] = (8 * (plus1[i] - minus1[i]) - (plus2[i] - minus2[i])) / (12 * h);
    }
    return result;
}

std::vector<double> Jacobian::transpose_times(std::span<const double> w) const {
    std::vector<double> result(columns, 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < columns; ++c) {
            result[c] += (*this)(r, c) * w[r];
        }
    }
    return result;
}

std::vector<double> Jacobian::times(std::span<const double> v) const {
    std::vector<double> result(rows, 0.0);
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < columns; ++c) {
            result[r] += (*this)(r, c) * v[c];
        }
    }
    return result;
}

Jacobian jacobian(const std::function<std::vector<double>(std::span<const double>)>& f,
                  std::span<const double> point,
                  const DifferenceOptions& options) {
    Jacobian result;
    result.columns = point.size();
    std::vector<std::vector<double>> columns;
    std::vector<double> moved(point.begin(), point.end());
    for (std::size_t c = 0; c < point.size(); ++c) {
        columns.push_back(central_difference(
            [&](double t) {
                moved[c] = point[c] + t;
                std::vector<double> value = f(moved);
                moved[c] = point[c];
                return value;
            },
            options));
    }
    result.rows = columns.empty() ? f(point).size() : columns.front().size();
    result.values.assign(result.rows * result.columns, 0.0);
    for (std::size_t c = 0; c < result.columns; ++c) {
        for (std::size_t r = 0; r < result.rows; ++r) {
            result.values[r * result.columns + c] = columns[c][r];
        }
    }
    return result;
}

Run<double> forward_at(const Network<double>& network,
                       const Parameters<double>& parameters,
                       std::span<const Feed<double>> feeds,
                       std::span<const SourceValue> sources) {
    Parameters<double> moved = parameters;
    std::vector<Feed<double>> all_feeds(feeds.begin(), feeds.end());
    for (const SourceValue& source : sources) {
        const Opcode opcode = network.node(source.symbol).opcode();
        if (opcode == Opcode::Parameter) {
            moved = moved.with(source.symbol, source.value);
        } else if (opcode == Opcode::Input) {
            std::erase_if(all_feeds,
                          [&](const Feed<double>& feed) { return feed.symbol == source.symbol; });
            all_feeds.push_back({source.symbol, source.value});
        } else {
            throw std::invalid_argument("finite differences vary parameters and inputs only");
        }
    }
    return network.forward(moved, std::span<const Feed<double>>(all_feeds));
}

Tensor<double> source_value(const Network<double>& network,
                            const Parameters<double>& parameters,
                            std::span<const Feed<double>> feeds,
                            Symbol source) {
    const Opcode opcode = network.node(source).opcode();
    if (opcode == Opcode::Parameter) {
        return parameters.of(source);
    }
    if (opcode != Opcode::Input) {
        throw std::invalid_argument("finite differences vary parameters and inputs only");
    }
    for (const Feed<double>& feed : feeds) {
        if (feed.symbol == source) {
            return feed.value;
        }
    }
    return network.forward(parameters, feeds).of(source);
}

namespace {

Tensor<double> moved_tensor(const Tensor<double>& base, std::span<const double> values) {
    return Tensor<double>(base.shape(), values);
}

}  // namespace

Jacobian network_jacobian(const Network<double>& network,
                          const Parameters<double>& parameters,
                          std::span<const Feed<double>> feeds,
                          Symbol output,
                          Symbol source,
                          const DifferenceOptions& options) {
    const Tensor<double> base = source_value(network, parameters, feeds, source);
    const std::vector<double> point = to_doubles(base);
    return jacobian(
        [&](std::span<const double> at) {
            const SourceValue moved{source, moved_tensor(base, at)};
            return to_doubles(forward_at(network, parameters, feeds, {&moved, 1}).of(output));
        },
        point,
        options);
}

std::vector<double> network_directional_derivative(const Network<double>& network,
                                                   const Parameters<double>& parameters,
                                                   std::span<const Feed<double>> feeds,
                                                   std::span<const Symbol> outputs,
                                                   std::span<const SourceValue> directions,
                                                   const DifferenceOptions& options) {
    std::vector<Tensor<double>> bases;
    for (const SourceValue& direction : directions) {
        bases.push_back(source_value(network, parameters, feeds, direction.symbol));
        if (!(bases.back().shape() == direction.value.shape())) {
            throw std::invalid_argument("a direction must have its source's shape");
        }
    }
    return central_difference(
        [&](double t) {
            std::vector<SourceValue> moved;
            for (std::size_t i = 0; i < directions.size(); ++i) {
                moved.push_back(
                    {directions[i].symbol, bases[i] + Tensor<double>(t) * directions[i].value});
            }
            const Run<double> run = forward_at(network, parameters, feeds, moved);
            std::vector<double> values;
            for (const Symbol& output : outputs) {
                const auto data = run.of(output).data();
                values.insert(values.end(), data.begin(), data.end());
            }
            return values;
        },
        options);
}

double relative_error(std::span<const double> actual, std::span<const double> expected) {
    if (actual.size() != expected.size()) {
        throw std::invalid_argument("relative_error needs vectors of one size");
    }
    double difference = 0.0;
    double scale = 0.0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        const double gap = std::abs(actual[i] - expected[i]);
        if (std::isnan(gap)) {  // a NaN (or infinities) on either side never matches
            return std::numeric_limits<double>::quiet_NaN();
        }
        difference = std::max(difference, gap);
        scale = std::max({scale, std::abs(actual[i]), std::abs(expected[i])});
    }
    return scale == 0.0 ? 0.0 : difference / scale;
}

::testing::AssertionResult near_relative(std::span<const double> actual,
                                         std::span<const double> expected,
                                         double tolerance) {
    if (actual.size() != expected.size()) {
        return ::testing::AssertionFailure()
               << "sizes differ: " << actual.size() << " vs " << expected.size();
    }
    const double error = relative_error(actual, expected);
    if (error <= tolerance) {
        return ::testing::AssertionSuccess();
    }
    std::size_t worst = 0;
    for (std::size_t i = 0; i < actual.size(); ++i) {
        if (!(std::abs(actual[i] - expected[i]) <= std::abs(actual[worst] - expected[worst]))) {
            worst = i;
        }
    }
    std::ostringstream message;
    message.precision(17);
    message << "relative error " << error << " exceeds " << tolerance << "; worst element " << worst
            << ": " << actual[worst] << " vs expected " << expected[worst] << " (of "
            << actual.size() << ")";
    return ::testing::AssertionFailure() << message.str();
}

}  // namespace topos::test
