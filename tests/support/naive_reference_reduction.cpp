// The naive references of the contraction and reduction opcodes: MatMul's
// ascending fma chain from +0, Sum's striped order over 16 lanes, Max, and
// LogSumExp and LogSoftmax in long double with the magnitude of their terms.
#include "support/naive_reference_kernels.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <variant>

namespace topos::test::naive {
namespace {

// sum.cpp's striped order: term i into partial i mod 16 (from -0, ascending),
// then the partials fold in halves: 8, 4, 2, 1.
double striped_sum(const std::vector<double>& terms) {
    std::array<double, 16> partial;
    partial.fill(-0.0);
    for (std::size_t i = 0; i < terms.size(); ++i) {
        partial[i % 16] += terms[i];
    }
    for (std::size_t half = 8; half >= 1; half /= 2) {
        for (std::size_t lane = 0; lane < half; ++lane) {
            partial[lane] += partial[lane + half];
        }
    }
    return partial[0];
}

// The terms along `axis` of `tensor` that output coordinates `at` reduce.
std::vector<double> along(const Tensor<double>& tensor, std::size_t axis, const Coordinates& at) {
    std::vector<double> terms;
    for (std::size_t position = 0; position < tensor.shape()[axis]; ++position) {
        terms.push_back(element(tensor, inserted(at, axis, position)));
    }
    return terms;
}

double largest(const std::vector<double>& terms) {
    double best = -std::numeric_limits<double>::infinity();
    for (double term : terms) {
        if (term > best) {
            best = term;
        }
    }
    return best;
}

// log(sum(exp(terms))) in long double, shifted by the largest term.
long double log_sum_exp(const std::vector<double>& terms) {
    const long double top = largest(terms);
    long double total = 0.0L;
    for (double term : terms) {
        total += std::exp(static_cast<long double>(term) - top);
    }
    return top + std::log(total);
}

// The magnitude of what a fused reduction over `terms` adds: the largest term
// and the logarithm of the sum of exponentials, at most log(count) beyond it.
double magnitude(const std::vector<double>& terms) {
    double top = 0.0;
    for (double term : terms) {
        top = std::max(top, std::fabs(term));
    }
    return top + std::log(static_cast<double>(terms.size()));
}

}  // namespace

// ---- contraction and reduction ----

// [..., m, k] x [..., k, n]: every output starts at +0 and takes one fma per
// k, ascending.
Expected matmul(const Node& node, const Operands& x) {
    const std::size_t rank = node.shape().rank();
    const std::size_t depth = x[0].shape()[rank - 1];
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        const Coordinates batch = part(at, 0, rank - 2);
        const std::size_t i = at[rank - 2];
        const std::size_t j = at[rank - 1];
        double total = +0.0;
        for (std::size_t k = 0; k < depth; ++k) {
            total = std::fma(
                element(x[0], joined(batch, {i, k})), element(x[1], joined(batch, {k, j})), total);
        }
        return total;
    }));
}

Expected sum(const Node& node, const Operands& x) {
    const auto* axis = std::get_if<AxisAttributes>(&node.attributes());
    if (axis == nullptr) {
        const std::vector<double> terms(x[0].data().begin(), x[0].data().end());
        return exactly(Tensor<double>(striped_sum(terms)));
    }
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        return striped_sum(along(x[0], axis->axis, at));
    }));
}

Expected max(const Node& node, const Operands& x) {
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    return exactly(tabulate(node.shape(),
                            [&](const Coordinates& at) { return largest(along(x[0], axis, at)); }));
}

Expected log_sum_exp(const Node& node, const Operands& x) {
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    std::vector<double> scale;
    Tensor<double> values = tabulate(node.shape(), [&](const Coordinates& at) {
        const std::vector<double> terms = along(x[0], axis, at);
        scale.push_back(magnitude(terms));
        return static_cast<double>(log_sum_exp(terms));
    });
    return within_tolerance(std::move(values), std::move(scale));
}

Expected log_softmax(const Node& node, const Operands& x) {
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    std::vector<double> scale;
    Tensor<double> values = tabulate(node.shape(), [&](const Coordinates& at) {
        const std::vector<double> terms = along(x[0], axis, without(at, axis));
        scale.push_back(magnitude(terms));
        return static_cast<double>(element(x[0], at) - log_sum_exp(terms));
    });
    return within_tolerance(std::move(values), std::move(scale));
}

}  // namespace topos::test::naive
