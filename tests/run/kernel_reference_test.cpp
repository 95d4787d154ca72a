// Every opcode's reference kernel against an independent naive reference written
// here, one instance per computed opcode: the opcode's spec (tests/support/
// op_specs.cpp) records a random use, Network::forward evaluates it, and the
// reference recomputes the output from the operand tensors, the node's
// attributes and shapes, over plain multi-dimensional coordinates. Where the
// reference can follow the documented order exactly (elementwise arithmetic,
// Sqrt and Rsqrt, comparisons, layout, indexing, MatMul's ascending fma from +0,
// Fold's and ScatterAdd's ascending accumulation from +0, Sum's striped order,
// Max) the kernel must match bit for bit; the transcendental functions, Pow and
// the fused reductions are compared with the C library in long double within a
// relative 1e-14 (the library's own exact math differs from the platform's libm
// by design). An opcode without a reference here fails. Hand-picked uses then
// show what random specs seldom do: accumulation orders and starting zeros in
// the bits, strides, dilation, interior padding and extreme logits. Also here:
// what Run::recorded_gradients projects onto parameter slots, and Tape::value.
#include "support/bit_equal.hpp"
#include "support/op_specs.hpp"
#include "support/random_graphs.hpp"
#include <topos/autodiff/adjoints.hpp>
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/node.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/ops/opcode.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <numbers>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;
using ::testing::HasSubstr;

constexpr std::uint64_t seeds_per_opcode = 16;

// The relative tolerance against the C library: about 45 ulps of a double. The
// library's functions are within an ulp or two of the true value, and so is a
// long double reference rounded to double.
constexpr double libm_tolerance = 1e-14;

// ---- coordinates ----

using Coordinates = std::vector<std::size_t>;

// The index odometer: the coordinates of row-major position `flat` of `shape`.
Coordinates coordinates_of(const Shape& shape, std::size_t flat) {
    Coordinates at(shape.rank());
    for (std::size_t axis = shape.rank(); axis-- > 0;) {
        at[axis] = flat % shape[axis];
        flat /= shape[axis];
    }
    return at;
}

// The row-major position of coordinates `at` in `shape`.
std::size_t position_of(const Shape& shape, const Coordinates& at) {
    std::size_t flat = 0;
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
        flat = flat * shape[axis] + at[axis];
    }
    return flat;
}

double element(const Tensor<double>& tensor, const Coordinates& at) {
    return tensor.data()[position_of(tensor.shape(), at)];
}

// The coordinates without the one of `axis`.
Coordinates without(Coordinates at, std::size_t axis) {
    at.erase(at.begin() + static_cast<std::ptrdiff_t>(axis));
    return at;
}

// The coordinates with `value` inserted as the one of `axis`.
Coordinates inserted(Coordinates at, std::size_t axis, std::size_t value) {
    at.insert(at.begin() + static_cast<std::ptrdiff_t>(axis), value);
    return at;
}

// The coordinates from `first` up to (not including) `last`.
Coordinates part(const Coordinates& at, std::size_t first, std::size_t last) {
    return Coordinates(at.begin() + static_cast<std::ptrdiff_t>(first),
                       at.begin() + static_cast<std::ptrdiff_t>(last));
}

Coordinates joined(Coordinates front, const Coordinates& back) {
    front.insert(front.end(), back.begin(), back.end());
    return front;
}

// A tensor of `shape` whose element at coordinates c is value_at(c).
template <class ValueAt>
Tensor<double> tabulate(const Shape& shape, ValueAt value_at) {
    std::vector<double> values(shape.elements());
    for (std::size_t flat = 0; flat < values.size(); ++flat) {
        values[flat] = value_at(coordinates_of(shape, flat));
    }
    return Tensor<double>(shape, values);
}

// An index element as a row number.
std::size_t row_of(double index) {
    return static_cast<std::size_t>(index);
}

// ---- what a reference predicts ----

using Operands = std::vector<Tensor<double>>;

struct Expected {
    Tensor<double> values;
    // Bit for bit; otherwise within libm_tolerance relative to the larger of
    // |expected| and scale[i] (the magnitude of the terms a fused reduction
    // adds; zeros for the elementwise functions).
    bool exact = true;
    std::vector<double> scale = {};
};

Expected exactly(Tensor<double> values) {
    return {std::move(values)};
}

Expected within_tolerance(Tensor<double> values, std::vector<double> scale) {
    return {std::move(values), false, std::move(scale)};
}

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

// ---- elementwise ----

template <class F>
Expected unary_exact(const Operands& x, F f) {
    return exactly(
        tabulate(x[0].shape(), [&](const Coordinates& at) { return f(element(x[0], at)); }));
}

template <class F>
Expected binary_exact(const Operands& x, F f) {
    return exactly(tabulate(x[0].shape(), [&](const Coordinates& at) {
        return f(element(x[0], at), element(x[1], at));
    }));
}

// f evaluated in long double by the C library, rounded to double.
template <class F>
Expected unary_libm(const Operands& x, F f) {
    return within_tolerance(tabulate(x[0].shape(),
                                     [&](const Coordinates& at) {
                                         const long double v = element(x[0], at);
                                         return static_cast<double>(f(v));
                                     }),
                            std::vector<double>(x[0].elements(), 0.0));
}

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

double largest(const std::vector<double>& terms) {
    double best = -std::numeric_limits<double>::infinity();
    for (double term : terms) {
        if (term > best) {
            best = term;
        }
    }
    return best;
}

Expected max(const Node& node, const Operands& x) {
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    return exactly(tabulate(node.shape(),
                            [&](const Coordinates& at) { return largest(along(x[0], axis, at)); }));
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

// ---- layout ----

Expected reshape(const Node& node, const Operands& x) {
    // The same row-major order: output position p is operand position p.
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        return element(x[0], coordinates_of(x[0].shape(), position_of(node.shape(), at)));
    }));
}

Expected permute(const Node& node, const Operands& x) {
    const Axes& order = node.attributes_as<PermuteAttributes>().order;
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        Coordinates source(at.size());
        for (std::size_t axis = 0; axis < at.size(); ++axis) {
            source[order[axis]] = at[axis];
        }
        return element(x[0], source);
    }));
}

Expected broadcast_along(const Node& node, const Operands& x) {
    const std::size_t axis = node.attributes_as<BroadcastAttributes>().axis;
    return exactly(tabulate(
        node.shape(), [&](const Coordinates& at) { return element(x[0], without(at, axis)); }));
}

// Element w of window c reads position c * step + w * dilation.
Expected unfold(const Node& node, const Operands& x) {
    const auto& window = node.attributes_as<WindowAttributes>();
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        Coordinates source = without(at, window.axis + 1);
        source[window.axis] = at[window.axis] * window.step + at[window.axis + 1] * window.dilation;
        return element(x[0], source);
    }));
}

// Every window element added into zeros where it was read from, in row-major
// order of the windows: ascending windows, then ascending window elements.
Expected fold(const Node& node, const Operands& x) {
    const auto& fold = node.attributes_as<FoldAttributes>();
    std::vector<double> out(node.shape().elements(), +0.0);
    for (std::size_t flat = 0; flat < x[0].elements(); ++flat) {
        const Coordinates at = coordinates_of(x[0].shape(), flat);
        Coordinates target = without(at, fold.axis + 1);
        target[fold.axis] = at[fold.axis] * fold.step + at[fold.axis + 1] * fold.dilation;
        out[position_of(node.shape(), target)] += x[0].data()[flat];
    }
    return exactly(Tensor<double>(node.shape(), out));
}

Expected narrow(const Node& node, const Operands& x) {
    const auto& narrow = node.attributes_as<NarrowAttributes>();
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        Coordinates source = at;
        source[narrow.axis] += narrow.start;
        return element(x[0], source);
    }));
}

Expected slice(const Node& node, const Operands& x) {
    const auto& slice = node.attributes_as<SliceAttributes>();
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        Coordinates source = at;
        source[slice.axis] = slice.start + at[slice.axis] * slice.step;
        return element(x[0], source);
    }));
}

// Output position before + i * (interior + 1) holds operand position i; every
// other position is +0.
Expected pad(const Node& node, const Operands& x) {
    const auto& pad = node.attributes_as<PadAttributes>();
    const std::size_t extent = x[0].shape()[pad.axis];
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        const std::size_t position = at[pad.axis];
        if (position < pad.before || (position - pad.before) % (pad.interior + 1) != 0 ||
            (position - pad.before) / (pad.interior + 1) >= extent) {
            return +0.0;
        }
        Coordinates source = at;
        source[pad.axis] = (position - pad.before) / (pad.interior + 1);
        return element(x[0], source);
    }));
}

Expected concat(const Node& node, const Operands& x) {
    const std::size_t axis = node.attributes_as<AxisAttributes>().axis;
    const std::size_t first = x[0].shape()[axis];
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        if (at[axis] < first) {
            return element(x[0], at);
        }
        Coordinates source = at;
        source[axis] -= first;
        return element(x[1], source);
    }));
}

// ---- indexing ----

// Table [rows, rest...] and indices [picks...]: out[p..., r...] = table[index[p...], r...].
Expected gather(const Node& node, const Operands& x) {
    const Tensor<double>& table = x[0];
    const Tensor<double>& indices = x[1];
    const std::size_t picks = indices.shape().rank();
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        const std::size_t row = row_of(element(indices, part(at, 0, picks)));
        return element(table, joined({row}, part(at, picks, at.size())));
    }));
}

// Indices [picks...] and updates [picks..., rest...]: zeros of [rows, rest...],
// each update row added at its index, picks ascending.
Expected scatter_add(const Node& node, const Operands& x) {
    const Tensor<double>& indices = x[0];
    const Tensor<double>& updates = x[1];
    const std::size_t picks = indices.shape().rank();
    std::vector<double> out(node.shape().elements(), +0.0);
    for (std::size_t flat = 0; flat < updates.elements(); ++flat) {
        const Coordinates at = coordinates_of(updates.shape(), flat);
        const std::size_t row = row_of(element(indices, part(at, 0, picks)));
        const Coordinates target = joined({row}, part(at, picks, at.size()));
        out[position_of(node.shape(), target)] += updates.data()[flat];
    }
    return exactly(Tensor<double>(node.shape(), out));
}

// Indices [picks...] give [picks..., depth]: 1 where the last coordinate is the index.
Expected one_hot(const Node& node, const Operands& x) {
    const std::size_t picks = x[0].shape().rank();
    return exactly(tabulate(node.shape(), [&](const Coordinates& at) {
        return at[picks] == row_of(element(x[0], part(at, 0, picks))) ? 1.0 : 0.0;
    }));
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

// Seals the tape, evaluates it and compares the node `output` names with its
// reference, computed from the operand values the run holds.
::testing::AssertionResult matches_reference(Tape<double>&& tape, Symbol output) {
    const Network<double> network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(network.parameters(), {});
    const Node& node = network.node(output);
    Operands operands;
    for (std::uint32_t operand : node.operands()) {
        operands.push_back(run.of(network.nodes()[operand].symbol()));
    }
    const std::optional<Expected> expected = reference_for(node, operands);
    if (!expected) {
        return ::testing::AssertionFailure() << "no naive reference for " << node.opcode();
    }
    return agrees(run.of(output), *expected) << "\n" << network.describe();
}

class ReferenceKernel : public ::testing::TestWithParam<Opcode> {};

TEST_P(ReferenceKernel, AgreesWithANaiveReferenceOnRandomUses) {
    const Opcode opcode = GetParam();
    const test::OpSpec* spec = test::find_op_spec(opcode);
    ASSERT_NE(spec, nullptr) << "no test spec for " << opcode
                             << "; add one to tests/support/op_specs.cpp";
    ASSERT_TRUE(has_reference(opcode))
        << "no naive reference for " << opcode << ": an elementwise unary opcode gives one in "
        << "its spec (tests/support/op_specs.cpp), any other in the table of " << __FILE__;
    for (std::uint64_t seed = 1; seed <= seeds_per_opcode; ++seed) {
        Tape<double> tape;
        test::Rng rng(seed);
        const Value<double> output = spec->record(tape, rng).output;
        ASSERT_EQ(tape.nodes()[output.index()].opcode(), opcode);
        EXPECT_TRUE(matches_reference(std::move(tape), output)) << "seed " << seed;
    }
}

std::string opcode_name(const ::testing::TestParamInfo<Opcode>& info) {
    return std::string(name_of(info.param));
}

// Over every computed opcode of the enum, not over the reference table: an
// opcode without a reference fails.
INSTANTIATE_TEST_SUITE_P(EveryComputedOpcode,
                         ReferenceKernel,
                         ::testing::ValuesIn(test::computed_opcodes()),
                         opcode_name);

// Elements of magnitude 2^-10 to 2^11 with full 53-bit significands. The specs
// draw uniformly from [-1, 1], a grid of multiples of 2^-52, on which short sums
// are exact in any order; these make every sum round, so that the order of
// accumulation shows in the bits.
Tensor<double> scattered(test::Rng& rng, const Shape& shape) {
    return Tensor<double>::generate(shape, [&](std::span<double> out) {
        for (double& element : out) {
            const double scale = std::ldexp(1.0, static_cast<int>(rng.between(0, 20)) - 10);
            element = rng.away_from_zero(1.0, 2.0) * scale;
        }
    });
}

Tensor<double> negative_zeros(const Shape& shape) {
    return Tensor<double>::filled(shape, -0.0);
}

// Uses the specs draw seldom or never: many rounding terms per output (Sum's
// lanes, MatMul's fma chain, Fold's overlapping windows, ScatterAdd's repeated
// picks), negative zeros that show where an accumulation starts (-0 for Sum's
// partials, +0 for MatMul, Fold and ScatterAdd), a permutation that is not its
// own inverse, strides, dilation and interior padding, and extreme logits.
TEST(ReferenceKernel, AgreesWithANaiveReferenceWhereOrderAndAttributesShow) {
    using Use = Value<double> (*)(Tape<double>&, test::Rng&);
    const std::array<Use, 18> uses{
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(scattered(r, {37, 3})).sum(0);
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(scattered(r, {2, 40})).sum(1);
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(scattered(r, {5, 7})).sum();
        },
        [](Tape<double>& t, test::Rng&) {
            return t.parameter(negative_zeros({3, 20})).sum(1);
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto a = t.parameter(scattered(r, {2, 3, 20}));
            return a.apply(Opcode::MatMul, {a, t.input(scattered(r, {2, 20, 4}))});
        },
        [](Tape<double>& t, test::Rng&) {
            const auto a = t.parameter(Tensor<double>::filled({2, 3}, 1.0));
            return a.apply(Opcode::MatMul, {a, t.input(negative_zeros({3, 2}))});
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(scattered(r, {2, 9, 4})).fold(1, 4, 1, 1, 12);
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(scattered(r, {6, 3})).fold(0, 3, 1, 2, 10);
        },
        [](Tape<double>& t, test::Rng&) {
            return t.parameter(negative_zeros({4, 3})).fold(0, 3, 2, 1, 10);
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto picks = t.indices({2, 4}, {1, 0, 1, 1, 0, 1, 1, 0});
            const auto updates = t.parameter(scattered(r, {2, 4, 3}));
            return picks.apply(Opcode::ScatterAdd, {picks, updates}, RowsAttributes{3});
        },
        [](Tape<double>& t, test::Rng&) {
            const auto picks = t.indices({3}, {1, 1, 0});
            const auto updates = t.parameter(negative_zeros({3, 2}));
            return picks.apply(Opcode::ScatterAdd, {picks, updates}, RowsAttributes{3});
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(r.tensor<double>({2, 3, 4, 5}, -1.0, 1.0)).permute({2, 0, 3, 1});
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto a = t.parameter(r.tensor<double>({3, 10}, -1.0, 1.0));
            return a.apply(Opcode::Slice, {a}, SliceAttributes{1, 1, 3, 3});
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(r.tensor<double>({2, 3, 2}, -1.0, 1.0)).pad(1, 1, 2, 2);
        },
        [](Tape<double>& t, test::Rng& r) {
            return t.parameter(r.tensor<double>({2, 9}, -1.0, 1.0)).unfold(1, 3, 2, 2);
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto table = t.parameter(r.tensor<double>({4, 2, 3}, -1.0, 1.0));
            return table.apply(Opcode::Gather, {table, t.indices({2, 3}, {3, 0, 3, 1, 2, 0})});
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto a = t.parameter(r.tensor<double>({3, 25}, -800.0, 800.0));
            return a.apply(Opcode::LogSumExp, {a}, AxisAttributes{1});
        },
        [](Tape<double>& t, test::Rng& r) {
            const auto a = t.parameter(r.tensor<double>({25, 3}, -800.0, 800.0));
            return a.apply(Opcode::LogSoftmax, {a}, AxisAttributes{0});
        },
    };
    for (std::size_t use = 0; use < uses.size(); ++use) {
        for (std::uint64_t seed = 1; seed <= 4; ++seed) {
            Tape<double> tape;
            test::Rng rng(seed);
            const Value<double> output = uses[use](tape, rng);
            EXPECT_TRUE(matches_reference(std::move(tape), output))
                << "use " << use << ", seed " << seed;
        }
    }
}

// ---- Run::recorded_gradients ----

TEST(RecordedGradients, ProjectOntoParameterSlotsWithZerosForParametersNotDifferentiatedAgainst) {
    Tape<double> tape;
    const auto p0 = tape.parameter(Tensor<double>({2}, {1, 2}));
    const auto p1 = tape.parameter(3.0);  // read by the loss, not differentiated against
    const auto x = tape.input(Tensor<double>({2}, {5, 7}));
    const auto p2 = tape.parameter(Tensor<double>::filled({3}, 4.0));
    const auto p3 = tape.parameter(Tensor<double>::filled({2, 2}, 1.0));  // never read
    const auto loss = (p0 * x).sum() * p1 + (p2 * p2).sum();
    // Out of slot order, with an input (which has no slot) among them.
    const Adjoints<double> adjoints = tape.differentiate(loss, {p2, x, p0});
    const std::vector<Symbol> slots{p0, p1, p2, p3};
    const Symbol input = x;
    const auto network = std::move(tape).into_network();
    const Parameters<double> parameters = network.parameters();
    const topos::Run<double> run = network.forward(parameters);

    const Parameters<double> gradients = run.recorded_gradients(adjoints);

    ASSERT_EQ(gradients.size(), 4u);
    EXPECT_EQ(std::vector<Symbol>(gradients.symbols().begin(), gradients.symbols().end()), slots);
    EXPECT_EQ(gradients.of(slots[0]), (Tensor<double>({2}, {15, 21})));  // x p1
    EXPECT_TRUE(bit_equal(gradients.of(slots[1]), Tensor<double>(0.0)));
    EXPECT_EQ(gradients.of(slots[2]), Tensor<double>::filled({3}, 8.0));  // 2 p2
    EXPECT_TRUE(bit_equal(gradients.of(slots[3]), Tensor<double>::filled({2, 2}, 0.0)));
    EXPECT_TRUE(bit_equal(gradients.values()[0], run.of(adjoints.of(slots[0]))));
    EXPECT_TRUE(bit_equal(gradients.values()[2], run.of(adjoints.of(slots[2]))));
    EXPECT_THROW((void)gradients.of(input), SymbolError);  // inputs have no slot
    // Ready for a step: the same slots as the parameters.
    const Parameters<double> next = parameters.step(
        gradients, [](const Tensor<double>& p, const Tensor<double>& g) { return p - g; });
    EXPECT_EQ(next.of(slots[1]), Tensor<double>(3.0));
    EXPECT_EQ(next.of(slots[2]), Tensor<double>::filled({3}, -4.0));
}

TEST(RecordedGradients, AreTheValuesOfTheRunTheyAreReadFrom) {
    Tape<double> tape;
    const auto w = tape.parameter(Tensor<double>({2}, {1, 2}));
    const auto x = tape.input(Tensor<double>({2}, {5, 7}));
    const Adjoints<double> adjoints = tape.differentiate((w * x).sum(), {w});
    const Symbol ws = w;
    const Symbol xs = x;
    const auto network = std::move(tape).into_network();
    const topos::Run<double> fed =
        network.forward(network.parameters(), {Feed<double>{xs, Tensor<double>({2}, {-1, 3})}});
    EXPECT_EQ(fed.recorded_gradients(adjoints).of(ws), (Tensor<double>({2}, {-1, 3})));
    EXPECT_EQ(network.forward(network.parameters()).recorded_gradients(adjoints).of(ws),
              (Tensor<double>({2}, {5, 7})));
}

// ---- Tape::value ----

TEST(TapeValue, ReturnsAValueThatRecordsMoreOnTheNodeItNames) {
    Tape<double> tape;
    const auto w = tape.parameter(Tensor<double>({2}, {1, 2}));
    const Adjoints<double> adjoints = tape.differentiate((w * w).sum(), {w});
    const Symbol gradient = adjoints.of(w);

    const Value<double> recorded = tape.value(gradient);

    EXPECT_EQ(recorded.index(), gradient.index());
    EXPECT_EQ(recorded.symbol(), gradient);
    EXPECT_EQ(recorded.shape(), Shape{2});
    const Symbol half = recorded * 0.5 + tape.value(Symbol(w));  // w + w
    const auto network = std::move(tape).into_network();
    EXPECT_EQ(network.forward(network.parameters()).of(half), (Tensor<double>({2}, {2, 4})));
}

TEST(TapeValue, ThrowsSymbolErrorForASymbolOfAnotherTape) {
    Tape<double> other;
    const Symbol foreign = other.parameter(Tensor<double>({2}, {1, 2}));
    Tape<double> tape;
    tape.parameter(Tensor<double>({2}, {1, 2}));  // the same index on this tape

    EXPECT_THROW((void)tape.value(foreign), SymbolError);
    try {
        (void)tape.value(foreign);
    } catch (const SymbolError& error) {
        EXPECT_THAT(error.what(), HasSubstr("Tape::value"));
    }
    EXPECT_EQ(tape.nodes().size(), 1u);  // nothing recorded
}

}  // namespace
}  // namespace topos
