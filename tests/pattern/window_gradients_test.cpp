// The gradients of window structures fused: a max pooling's gradient routed
// to each window's maximum (MaxPoolGradient) and a convolution's image
// gradient folded back from the product's rows (WindowFold). Each elected
// plan returns the interpreter's bits and the unfused plan's, ties, signed
// zeros, infinities and NaNs included, and a recorded CNN gradient keeps the
// reverse scan's bits.
#include "support/bit_equal.hpp"
#include "support/conv_case.hpp"
#include "support/random_graphs.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace topos {
namespace {

using test::bit_equal;

// What a drawn tensor mixes in besides finite values. Infinities make
// default NaNs (inf - inf, 0 * inf) and quiet NaNs propagate, and where two
// NaNs of different payloads meet in one addition which survives depends on
// the compiled code (docs/guide/edge-cases.md), so a case has one or the other.
enum class Specials : std::uint8_t {
    None,
    Infinities,
    NaNs
};

// Elements drawn from a few values, so that windows tie, with -0 and +0, and
// `specials` mixed in.
template <Element T>
Tensor<T> tied(std::uint64_t seed, const Shape& shape, Specials specials) {
    test::Rng rng(seed);
    const T infinity = std::numeric_limits<T>::infinity();
    const T pool[] = {T{-1}, T{-0.0}, T{0}, T{0.5}, T{2}, T{2}, T{-3}};
    return Tensor<T>::generate(shape, [&](std::span<T> out) {
        for (T& element : out) {
            if (specials != Specials::None && rng.chance(0.05)) {
                element = specials == Specials::NaNs ? std::numeric_limits<T>::quiet_NaN()
                          : rng.chance(0.5)          ? infinity
                                                     : -infinity;
            } else if (rng.chance(0.5)) {
                element = pool[rng.between(0, 6)];
            } else {
                element = static_cast<T>(rng.uniform(-2.0, 2.0));
            }
        }
    });
}

std::string text_of(Specials specials) {
    switch (specials) {
        case Specials::None:
            return "";
        case Specials::Infinities:
            return ", with infinities";
        case Specials::NaNs:
            return ", with NaNs";
    }
    return "";
}

constexpr Specials every_specials[] = {Specials::None, Specials::Infinities, Specials::NaNs};

template <Element T>
std::size_t elected(const Plan<T>& plan, PatternKind kind) {
    std::size_t count = 0;
    for (const Pattern& pattern : plan.patterns()) {
        count += pattern.kind() == kind ? 1 : 0;
    }
    return count;
}

// The elected plan, the unfused plan and the interpreter agree bit for bit on
// every root.
template <Element T>
void expect_exact(const Network<T>& network,
                  const std::vector<Symbol>& roots,
                  const Plan<T>& plan,
                  const std::string& context) {
    const Plan<T> unfused = network.entry(roots).elect_patterns(false).lower();
    const topos::Run<T> run = plan.forward(network.parameters());
    const topos::Run<T> plain = unfused.forward(network.parameters());
    const topos::Run<T> oracle = network.forward(network.parameters());
    for (const Symbol root : roots) {
        EXPECT_TRUE(bit_equal(run.of(root), oracle.of(root)))
            << context << ", node " << root.index();
        EXPECT_TRUE(bit_equal(run.of(root), plain.of(root)))
            << context << ", node " << root.index();
    }
}

struct PoolCase {
    std::size_t batch, channels, height, width, size, stride;

    std::string text() const {
        std::ostringstream out;
        out << "[" << batch << ", " << channels << ", " << height << ", " << width << "], pool "
            << size << " stride " << stride;
        return out.str();
    }
};

template <class T>
class WindowGradients : public ::testing::Test {};

using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(WindowGradients, ElementTypes);

// The pooled gradient is the loss's weights, so it holds ties, zeros of both
// signs and (in the special cases) infinities and NaNs as the image does.
template <Element T>
void check_max_pool_gradient(const PoolCase& c, std::uint64_t seed, Specials specials) {
    Tape<T> tape;
    const auto image =
        tape.parameter(tied<T>(seed, Shape{c.batch, c.channels, c.height, c.width}, specials));
    const auto pooled = max_pool(image, c.size, c.stride);
    const auto weights = tape.input(tied<T>(seed + 1, pooled.shape(), specials));
    const auto loss = (pooled * weights).sum();
    const auto adjoints = tape.differentiate(loss, {image});
    const auto network = std::move(tape).into_network();
    const Plan<T> plan = network.entry(adjoints.roots()).numerics(Numerics::Exact).lower();
    const std::string context = c.text() + text_of(specials);
    EXPECT_EQ(elected(plan, PatternKind::MaxPoolGradient), 1u) << context << '\n'
                                                               << plan.describe();
    EXPECT_EQ(elected(plan, PatternKind::ReduceWindow), 1u) << context << '\n' << plan.describe();
    expect_exact(network, adjoints.roots(), plan, context);
}

TYPED_TEST(WindowGradients, MaxPoolGradientRoutesAsTheUnfusedOperationsDo) {
    const PoolCase cases[] = {{2, 3, 8, 8, 2, 2},
                              {1, 2, 7, 9, 2, 2},
                              {2, 1, 9, 7, 3, 2},
                              {1, 3, 6, 5, 2, 1},
                              {3, 2, 9, 9, 3, 3},
                              {1, 1, 5, 8, 3, 1},
                              {2, 2, 4, 4, 4, 4},
                              {1, 2, 9, 10, 2, 3},
                              {2, 1, 11, 11, 5, 5}};
    std::uint64_t seed = 10;
    for (const PoolCase& c : cases) {
        for (const Specials specials : every_specials) {
            check_max_pool_gradient<TypeParam>(c, seed++, specials);
        }
    }
}

using test::ConvCase;

template <Element T>
void check_image_gradient(const ConvCase& c, std::uint64_t seed, Specials specials) {
    Tape<T> tape;
    const auto image = tape.parameter(
        tied<T>(seed, Shape{c.batch, c.channels, c.height, c.width}, Specials::None));
    const auto filters = tape.parameter(
        tied<T>(seed + 1, Shape{c.filters, c.channels, c.kernel, c.kernel}, specials));
    const auto bias = tape.parameter(tied<T>(seed + 2, Shape{c.filters}, Specials::None));
    const auto convolved = conv2d(image, filters, bias, c.stride, c.padding, c.dilation);
    const auto weights = tape.input(tied<T>(seed + 3, convolved.shape(), specials));
    const auto loss = (convolved * weights).sum();
    const auto adjoints = tape.differentiate(loss, {image, filters, bias});
    const auto network = std::move(tape).into_network();
    const Plan<T> plan = network.entry(adjoints.roots()).numerics(Numerics::Exact).lower();
    const std::string context = c.text() + text_of(specials);
    EXPECT_EQ(elected(plan, PatternKind::WindowFold), 1u) << context << '\n' << plan.describe();
    expect_exact(network, adjoints.roots(), plan, context);
}

TYPED_TEST(WindowGradients, WindowFoldSumsTheImageGradientAsTheFoldsDo) {
    const ConvCase cases[] = {{2, 3, 4, 8, 8, 3, 1, 1, 1},
                              {1, 2, 3, 9, 7, 3, 2, 0, 1},
                              {2, 1, 2, 10, 9, 3, 1, 2, 2},
                              {1, 4, 5, 6, 7, 2, 2, 1, 1},
                              {3, 2, 2, 5, 5, 1, 1, 0, 1},
                              {1, 3, 2, 11, 8, 5, 3, 2, 1}};
    std::uint64_t seed = 100;
    for (const ConvCase& c : cases) {
        for (const Specials specials : every_specials) {
            check_image_gradient<TypeParam>(c, seed, specials);
            seed += 10;
        }
    }
}

// A declared tap of the pooling is materialised: neither the pooling nor its
// gradient is fused, and the plan keeps the interpreter's bits.
TYPED_TEST(WindowGradients, StayUnfusedWhereATapIsDeclared) {
    using T = TypeParam;
    Tape<T> tape;
    const auto image = tape.parameter(tied<T>(7, Shape{1, 2, 6, 6}, Specials::None));
    const auto pooled = max_pool(image, 2, 2);
    const auto loss = (pooled * pooled).sum();
    const auto adjoints = tape.differentiate(loss, {image});
    const auto network = std::move(tape).into_network();
    std::optional<Symbol> tap;
    for (const Node& node : network.nodes()) {
        if (node.opcode() == Opcode::Narrow) {
            tap = node.symbol();
            break;
        }
    }
    ASSERT_TRUE(tap.has_value());
    const Plan<T> plan =
        network.entry(adjoints.roots()).observe({*tap}).numerics(Numerics::Exact).lower();
    EXPECT_EQ(elected(plan, PatternKind::MaxPoolGradient), 0u) << plan.describe();
    EXPECT_EQ(elected(plan, PatternKind::ReduceWindow), 0u) << plan.describe();
    expect_exact(network, adjoints.roots(), plan, "a declared tap");
}

// Two convolutions with relu and max pooling, then a linear layer: the
// recorded gradients elect both poolings' gradients and the second
// convolution's image gradient, and keep the reverse scan's bits.
TYPED_TEST(WindowGradients, RecordedCnnGradientsKeepTheReverseScansBits) {
    using T = TypeParam;
    Tape<T> tape;
    const Conv2d<T> conv1(
        tape, {.in_channels = 1, .out_channels = 4, .kernel = 3, .padding = 1}, init::kaiming(1));
    const Conv2d<T> conv2(
        tape, {.in_channels = 4, .out_channels = 6, .kernel = 3, .padding = 1}, init::kaiming(2));
    const MaxPool2d<T> pool(2);
    const Linear<T> classify(tape, 6 * 3 * 3, 5, init::xavier(3));
    const auto images = tape.input(tied<T>(4, Shape{3, 1, 12, 12}, Specials::None));
    const auto features =
        pool.express(conv2.express(pool.express(conv1.express(images).relu())).relu());
    const auto logits = classify.express(features.reshape(Shape{3, 6 * 3 * 3}));
    const auto loss = (logits * logits).sum();
    const auto adjoints = tape.differentiate(loss, parameters_of<T>(conv1, conv2, classify));
    const auto network = std::move(tape).into_network();
    const Plan<T> plan = network.entry(adjoints.roots()).numerics(Numerics::Exact).lower();
    EXPECT_EQ(elected(plan, PatternKind::MaxPoolGradient), 2u) << plan.describe();
    EXPECT_EQ(elected(plan, PatternKind::ReduceWindow), 2u) << plan.describe();
    EXPECT_EQ(elected(plan, PatternKind::WindowFold), 1u) << plan.describe();
    const Field<T> scanned = network.forward(network.parameters()).backward(loss);
    const topos::Run<T> run = plan.forward();
    for (const auto& [parameter, gradient] : adjoints.gradients()) {
        EXPECT_TRUE(bit_equal(run.of(gradient), scanned.of(parameter)));
    }
}

}  // namespace
}  // namespace topos
