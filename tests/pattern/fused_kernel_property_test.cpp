// Under Numerics::Exact, every fused kernel returns the interpreter's bits for
// every value a run can read, over random shapes, strides, paddings,
// dilations, channel and batch counts, in float and double: convolutions and
// poolings and their gradients with respect to the image, the filters and the
// bias; the filter gradient both on the exact GEMM and by rank-one updates.
#include "pattern/catalog.hpp"
#include "pattern/window_product.hpp"
#include "support/bit_equal.hpp"
#include "support/conv_case.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <random>
#include <sstream>
#include <string>

namespace topos {
namespace {

using test::bit_equal;

using test::ConvCase;

ConvCase random_case(std::mt19937& random) {
    const auto pick = [&](std::size_t low, std::size_t high) {
        return std::uniform_int_distribution<std::size_t>(low, high)(random);
    };
    ConvCase c{
        pick(1, 3), pick(1, 4), pick(1, 5), 0, 0, pick(1, 4), pick(1, 3), pick(0, 2), pick(1, 2)};
    const std::size_t span = c.dilation * (c.kernel - 1) + 1;
    c.height = span + pick(0, 7);
    c.width = span + pick(0, 7);
    return c;
}

template <Element T>
void expect_plan_matches_interpreter(const Network<T>& network,
                                     const std::vector<Symbol>& roots,
                                     std::size_t least_patterns,
                                     const std::string& context) {
    const Plan<T> plan = network.entry(roots).numerics(Numerics::Exact).lower();
    EXPECT_GE(plan.patterns().size(), least_patterns) << context << '\n' << plan.describe();
    const topos::Run<T> run = plan.forward(network.parameters());
    const topos::Run<T> oracle = network.forward(network.parameters());
    for (const Symbol root : roots) {
        EXPECT_TRUE(bit_equal(run.of(root), oracle.of(root)))
            << context << ", node " << root.index();
    }
}

// Random image, filters and bias of the case's shapes, and their convolution
// after a relu.
template <Element T>
struct RecordedConvolution {
    Value<T> image, filters, bias, convolved;
};

template <Element T>
RecordedConvolution<T> record_convolution(Tape<T>& tape, const ConvCase& c, std::uint64_t seed) {
    auto image =
        tape.parameter(init::normal(seed, 1.0)(Shape{c.batch, c.channels, c.height, c.width}));
    auto filters = tape.parameter(
        init::normal(seed + 1, 0.5)(Shape{c.filters, c.channels, c.kernel, c.kernel}));
    auto bias = tape.parameter(init::normal(seed + 2, 0.1)(Shape{c.filters}));
    auto convolved = conv2d(image, filters, bias, c.stride, c.padding, c.dilation).relu();
    return {image, filters, bias, convolved};
}

template <Element T>
void check_convolution_and_pooling(const ConvCase& c, std::uint64_t seed) {
    Tape<T> tape;
    const RecordedConvolution<T> r = record_convolution(tape, c, seed);
    const Value<T>& convolved = r.convolved;
    const Shape out = convolved.shape();
    const std::size_t pool = std::min<std::size_t>({2, out[2], out[3]});
    auto pooled = max_pool(convolved, pool, pool);
    auto averaged = average_pool(convolved, pool, 1);
    auto tiled_means = average_pool(convolved, pool, pool);
    auto loss = (pooled.sum() + averaged.sum());
    const auto adjoints = tape.differentiate(loss, {r.image, r.filters, r.bias});
    const auto network = std::move(tape).into_network();
    expect_plan_matches_interpreter(network, {pooled, averaged, tiled_means}, 4, c.text());
    expect_plan_matches_interpreter(network, adjoints.roots(), 1, c.text() + ", derivative");
}

TEST(FusedKernelProperty, ConvolutionAndPoolingReturnTheInterpretersBits) {
    std::mt19937 random(20261130);
    for (int trial = 0; trial < 40; ++trial) {
        const ConvCase c = random_case(random);
        check_convolution_and_pooling<float>(c, 100 + trial);
        check_convolution_and_pooling<double>(c, 200 + trial);
    }
}

// Filters that fill whole vectors, windows that step by 1: the direct
// convolution's path, on every instruction set this processor runs.
TEST(FusedKernelProperty, DirectConvolutionsReturnTheInterpretersBits) {
    std::mt19937 random(20261203);
    static constexpr std::size_t filter_counts[] = {4, 8, 16, 24, 32};
    const Isa before = isa();
    for (int trial = 0; trial < 12; ++trial) {
        ConvCase c = random_case(random);
        c.filters = filter_counts[random() % std::size(filter_counts)];
        c.stride = 1;
        c.dilation = 1;
        c.height = c.kernel + random() % 12;
        c.width = c.kernel + random() % 12;
        for (const Isa isa : supported_isas()) {
            set_max_isa(isa);
            check_convolution_and_pooling<float>(c, 300 + trial);
            check_convolution_and_pooling<double>(c, 400 + trial);
        }
    }
    set_max_isa(before);
}

// Images without channels, or a batch without images: each output of the
// product is the empty sum and each gradient of what is not there is empty,
// on every path (direct and windows matrix) and instruction set; poolings of
// such images too.
template <Element T>
void check_empty_convolution(const ConvCase& c, std::uint64_t seed) {
    Tape<T> tape;
    const RecordedConvolution<T> r = record_convolution(tape, c, seed);
    const Value<T>& convolved = r.convolved;
    auto pooled = max_pool(convolved, 2, 2);
    auto averaged = average_pool(convolved, 2, 1);
    auto loss = (convolved * convolved).sum() + pooled.sum() + averaged.sum();
    const auto adjoints = tape.differentiate(loss, {r.image, r.filters, r.bias});
    const auto network = std::move(tape).into_network();
    expect_plan_matches_interpreter(network, {convolved, pooled, averaged, loss}, 1, c.text());
    expect_plan_matches_interpreter(network, adjoints.roots(), 0, c.text() + ", derivative");
}

TEST(FusedKernelProperty, ConvolutionsOfEmptyImagesReturnTheInterpretersBits) {
    const Isa before = isa();
    const ConvCase cases[] = {
        {2, 0, 16, 5, 6, 3, 1, 1, 1},  // no channels, the direct path's shape
        {2, 0, 3, 5, 6, 3, 2, 1, 1},   // no channels, the windows matrix
        {0, 3, 16, 5, 6, 3, 1, 1, 1},  // no images, direct
        {0, 3, 3, 5, 6, 2, 2, 0, 2},   // no images, windows matrix
    };
    for (const Isa isa : supported_isas()) {
        set_max_isa(isa);
        for (const ConvCase& c : cases) {
            check_empty_convolution<float>(c, 500);
            check_empty_convolution<double>(c, 600);
        }
    }
    set_max_isa(before);
}

// The filter gradient of a convolution, by the WindowProduct row's kernel on
// the interpreter's operand values, in blocks of the windows matrix of several
// sizes (each block's product continuing the last's sums), and by the direct
// kernel: the interpreter's bits.
template <Element T>
void check_filter_gradient_blocks(const ConvCase& c, std::uint64_t seed) {
    Tape<T> tape;
    auto image = tape.input(init::normal(seed, 1.0)(Shape{c.batch, c.channels, c.height, c.width}));
    auto filters = tape.parameter(
        init::normal(seed + 1, 0.5)(Shape{c.filters, c.channels, c.kernel, c.kernel}));
    auto bias = tape.parameter(Tensor<T>::filled(Shape{c.filters}, T{0}));
    auto loss = conv2d(image, filters, bias, c.stride, c.padding, c.dilation).square().sum();
    const auto adjoints = tape.differentiate(loss, {filters});
    const auto network = std::move(tape).into_network();
    const topos::Run<T> oracle = network.forward(network.parameters());
    const std::vector<Node> nodes(network.nodes().begin(), network.nodes().end());
    std::size_t checked = 0;
    for (detail::Match match : detail::find_matches(nodes, std::vector<bool>(nodes.size(), true))) {
        if (match.kind != PatternKind::WindowProduct ||
            !match.geometry_as<detail::WindowProductGeometry>().transposed) {
            continue;
        }
        std::vector<const T*> inputs;
        for (std::uint32_t input : match.inputs) {
            inputs.push_back(oracle.of(nodes[input].symbol()).data().data());
        }
        const Tensor<T>& expected = oracle.of(nodes[match.root].symbol());
        // One line a block, a few lines, and the whole matrix in one block, on
        // the exact GEMM; then the direct kernel, where one fits.
        constexpr std::size_t max_block = std::numeric_limits<std::size_t>::max();
        for (const std::size_t block_elements :
             {std::size_t{1}, std::size_t{300}, max_block, std::size_t{0}}) {
            auto geometry = match.geometry_as<detail::WindowProductGeometry>();
            geometry.block_elements = block_elements;
            geometry.direct = block_elements == 0;
            match.geometry = geometry;
            std::vector<T> out(expected.elements());
            T* const result = out.data();
            detail::run_match<T>(match, inputs, std::span<T* const>(&result, 1));
            EXPECT_TRUE(bit_equal(Tensor<T>(expected.shape(), out), expected))
                << c.text()
                << (geometry.direct ? std::string(", direct")
                                    : ", blocks of " + std::to_string(block_elements));
        }
        ++checked;
    }
    EXPECT_GE(checked, 1u) << c.text() << ": no filter gradient matched";
}

TEST(FusedKernelProperty, FilterGradientsInBlocksOfAnySizeReturnTheInterpretersBits) {
    std::mt19937 random(20261201);
    for (int trial = 0; trial < 20; ++trial) {
        const ConvCase c = random_case(random);
        check_filter_gradient_blocks<float>(c, 300 + trial);
        check_filter_gradient_blocks<double>(c, 400 + trial);
    }
}

template <Element T>
void check_batch_norm(const Shape& shape, std::uint64_t seed) {
    Tape<T> tape;
    auto input = tape.input(init::normal(seed, 3.0)(shape));
    auto gamma = tape.parameter(init::normal(seed + 1, 1.0)(Shape{shape[1]}));
    auto beta = tape.parameter(init::normal(seed + 2, 1.0)(Shape{shape[1]}));
    auto mean = tape.input(init::normal(seed + 3, 1.0)(Shape{shape[1]}));
    auto variance = tape.input(init::uniform(seed + 4, 0.1, 3.0)(Shape{shape[1]}));
    const BatchNormTraining<T> training = batch_norm_training(input, gamma, beta, 1e-5);
    auto inference = batch_norm_inference(input, gamma, beta, mean, variance, 1e-3);
    const auto network = std::move(tape).into_network();
    std::ostringstream context;
    context << "batch norm over " << shape;
    expect_plan_matches_interpreter(
        network, {training.output, training.mean, training.variance, inference}, 2, context.str());
    expect_plan_matches_interpreter(network, {training.output}, 1, context.str());
}

TEST(FusedKernelProperty, BatchNormReturnsTheInterpretersBits) {
    std::mt19937 random(7);
    const auto pick = [&](std::size_t low, std::size_t high) {
        return std::uniform_int_distribution<std::size_t>(low, high)(random);
    };
    for (int trial = 0; trial < 20; ++trial) {
        const std::size_t rank = pick(2, 5);
        std::vector<std::size_t> extents{pick(1, 6), pick(1, 5)};
        while (extents.size() < rank) {
            extents.push_back(pick(1, 20));
        }
        const Shape shape{std::span<const std::size_t>(extents)};
        check_batch_norm<float>(shape, 300 + trial);
        check_batch_norm<double>(shape, 400 + trial);
    }
    for (const Shape& empty : {Shape{0, 3, 4}, Shape{2, 0, 5}, Shape{2, 3, 0}, Shape{0, 2}}) {
        check_batch_norm<float>(empty, 500);
        check_batch_norm<double>(empty, 600);
    }
}

}  // namespace
}  // namespace topos
