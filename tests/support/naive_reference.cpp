// The naive references' table (naive_reference.hpp): the elementwise binary
// references written out here, one line per opcode, the families' references
// (naive_reference_*.cpp), the unary references the op specs give, and how a
// result is judged against what a reference predicts.
#include "support/naive_reference.hpp"

#include "support/bit_equal.hpp"
#include "support/naive_reference_kernels.hpp"
#include "support/op_specs.hpp"
#include <topos/graph/node.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <sstream>

namespace topos::test {
namespace {

using namespace naive;

bool holds(Comparison direction, double a, double b) {
    switch (direction) {
        case Comparison::Equal:
            return a == b;
        case Comparison::NotEqual:
            return a != b;
        case Comparison::Less:
            return a < b;
        case Comparison::LessEqual:
            return a <= b;
        case Comparison::Greater:
            return a > b;
        case Comparison::GreaterEqual:
            return a >= b;
    }
    ADD_FAILURE() << "no reference for comparison " << direction;
    return false;
}

Expected compare(const Node& node, const Operands& x) {
    const Comparison direction = node.attributes_as<CompareAttributes>().direction;
    return binary_exact(x, [&](double a, double b) { return holds(direction, a, b) ? 1.0 : 0.0; });
}

Expected select(const Node&, const Operands& x) {
    return exactly(tabulate(x[0].shape(), [&](const Coordinates& at) {
        return element(x[0], at) != 0.0 ? element(x[1], at) : element(x[2], at);
    }));
}

// The nearest value of the node's element type, ties to even.
Expected convert(const Node& node, const Operands& x) {
    switch (node.attributes_as<ConvertAttributes>().to) {
        case ElementType::F32:
            return unary_exact(x,
                               [](double a) { return static_cast<double>(static_cast<float>(a)); });
        case ElementType::BF16:
            return unary_exact(x, [](double a) { return static_cast<double>(bf16(a)); });
        case ElementType::F64:
            break;
    }
    return unary_exact(x, [](double a) { return a; });
}

// ---- the table ----

struct Reference {
    Opcode opcode;
    Expected (*expected)(const Node& node, const Operands& operands);
};

const std::array references{
    Reference{Opcode::Add,
              [](const Node&, const Operands& x) {
                  return binary_exact(x, [](double a, double b) { return a + b; });
              }},
    Reference{Opcode::Sub,
              [](const Node&, const Operands& x) {
                  return binary_exact(x, [](double a, double b) { return a - b; });
              }},
    Reference{Opcode::Mul,
              [](const Node&, const Operands& x) {
                  return binary_exact(x, [](double a, double b) { return a * b; });
              }},
    Reference{Opcode::Div,
              [](const Node&, const Operands& x) {
                  return binary_exact(x, [](double a, double b) { return a / b; });
              }},
    Reference{Opcode::Maximum,
              [](const Node&, const Operands& x) {
                  return binary_exact(x, [](double a, double b) { return std::max(a, b); });
              }},
    Reference{Opcode::Minimum,
              [](const Node&, const Operands& x) {
                  return binary_exact(x, [](double a, double b) { return std::min(a, b); });
              }},
    Reference{Opcode::Pow,
              [](const Node&, const Operands& x) {
                  return within_tolerance(
                      tabulate(x[0].shape(),
                               [&](const Coordinates& at) {
                                   return static_cast<double>(
                                       std::pow(static_cast<long double>(element(x[0], at)),
                                                static_cast<long double>(element(x[1], at))));
                               }),
                      std::vector<double>(x[0].elements(), 0.0));
              }},
    Reference{Opcode::Compare, compare},
    Reference{Opcode::Select, select},
    Reference{Opcode::Convert, convert},
    Reference{Opcode::MatMul, matmul},
    Reference{Opcode::Sum, sum},
    Reference{Opcode::Max, max},
    Reference{Opcode::LogSumExp, log_sum_exp},
    Reference{Opcode::LogSoftmax, log_softmax},
    Reference{Opcode::Reshape, reshape},
    Reference{Opcode::Permute, permute},
    Reference{Opcode::BroadcastAlong, broadcast_along},
    Reference{Opcode::Unfold, unfold},
    Reference{Opcode::Fold, fold},
    Reference{Opcode::Narrow, narrow},
    Reference{Opcode::Pad, pad},
    Reference{Opcode::Slice, slice},
    Reference{Opcode::Concat, concat},
    Reference{Opcode::Gather, gather},
    Reference{Opcode::ScatterAdd, scatter_add},
    Reference{Opcode::OneHot, one_hot},
};

// The spec's reference of an elementwise unary opcode (tests/support/op_specs.cpp).
Expected unary_reference(const test::UnaryReference& reference, const Operands& x) {
    if (reference.exact != nullptr) {
        return unary_exact(x, reference.exact);
    }
    return unary_libm(x, reference.libm);
}

}  // namespace

::testing::AssertionResult agrees(const Tensor<double>& actual, const Expected& expected) {
    if (expected.exact) {
        return bit_equal(actual, expected.values);
    }
    if (!(actual.shape() == expected.values.shape())) {
        return ::testing::AssertionFailure()
               << "shapes differ: " << actual.shape() << " vs expected " << expected.values.shape();
    }
    for (std::size_t i = 0; i < actual.elements(); ++i) {
        const double a = actual.data()[i];
        const double e = expected.values.data()[i];
        const double bound = libm_tolerance * std::max(std::fabs(e), expected.scale[i]);
        if (!(std::fabs(a - e) <= bound)) {
            std::ostringstream message;
            message.precision(std::numeric_limits<double>::max_digits10);
            message << "element " << i << " of " << actual.elements() << " (shape "
                    << actual.shape() << ") differs: " << a << " vs expected " << e
                    << " (difference " << std::fabs(a - e) << ", allowed " << bound << ")";
            return ::testing::AssertionFailure() << message.str();
        }
    }
    return ::testing::AssertionSuccess();
}

// The expected value of `node`: from the table above, or from the opcode's spec.
std::optional<Expected> reference_for(const Node& node, const Operands& operands) {
    const auto found = std::ranges::find(references, node.opcode(), &Reference::opcode);
    if (found != references.end()) {
        return found->expected(node, operands);
    }
    const test::OpSpec* spec = test::find_op_spec(node.opcode());
    if (spec != nullptr && (spec->reference.exact != nullptr || spec->reference.libm != nullptr)) {
        return unary_reference(spec->reference, operands);
    }
    return std::nullopt;
}

bool has_reference(Opcode opcode) {
    const test::OpSpec* spec = test::find_op_spec(opcode);
    return std::ranges::find(references, opcode, &Reference::opcode) != references.end() ||
           (spec != nullptr &&
            (spec->reference.exact != nullptr || spec->reference.libm != nullptr));
}

}  // namespace topos::test
