// bf16 networks against the contract of docs/exact-math.md ("bfloat16: the
// contract"), opcode by opcode over the test specs of tests/support/op_specs.cpp:
// each node's value is its float kernel on the widened operand values, rounded
// once; every plan (exact, simplified, backward posture, and Fast wherever no
// backend reorders a sum) gives the interpreter's bits; and both derivative
// roads match central finite differences in double, taken at the same bf16
// point, within the opcode's stated bf16 tolerance. Network::convert and
// Parameters::convert carry a graph and its parameters between element types.
#include "ops/op_info.hpp"
#include "run/interpreter.hpp"
#include "support/bit_equal.hpp"
#include "support/error_message.hpp"
#include "support/finite_differences.hpp"
#include "support/op_specs.hpp"
#include "support/random_graphs.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;
using test::near_relative;
using test::to_doubles;

constexpr std::uint64_t cases_per_opcode = 4;

const test::OpSpec& spec_of(Opcode opcode) {
    const test::OpSpec* found = test::find_op_spec(opcode);
    if (found == nullptr) {
        throw std::logic_error(
            "no test spec for this opcode; add one to tests/support/op_specs.cpp");
    }
    return *found;
}

// One opcode's recorded case with the loss sum(output * weights) on top.
struct LossCase {
    Network<double> network;
    std::vector<Symbol> operands;
    Symbol output;
    Symbol loss;
};

LossCase record_case(const test::OpSpec& spec, std::uint64_t seed) {
    Tape<double> tape;
    test::Rng rng(seed);
    const test::OpCase recorded = spec.record(tape, rng);
    const auto weights = tape.leaf(rng.tensor<double>(recorded.output.shape(), -1.0, 1.0));
    const auto loss = (recorded.output * weights).sum();
    std::vector<Symbol> operands(recorded.operands.begin(), recorded.operands.end());
    const Symbol output = recorded.output;
    const Symbol loss_symbol = loss;
    return {std::move(tape).into_network(), std::move(operands), output, loss_symbol};
}

// The value the contract gives `node`: its float kernel on the widened values
// of its operands in `run`, rounded once to bf16.
Tensor<bf16> contract_value(const Node& node, const topos::Run<bf16>& run) {
    std::vector<Tensor<float>> widened;
    for (const std::uint32_t operand : node.operands()) {
        widened.push_back(run.of(run.network().nodes()[operand].symbol()).convert<float>());
    }
    std::array<const Tensor<float>*, Node::max_operands> operands{};
    for (std::size_t i = 0; i < widened.size(); ++i) {
        operands[i] = &widened[i];
    }
    return detail::evaluate_node<float>(
               node, std::span<const Tensor<float>* const>(operands.data(), widened.size()))
        .convert<bf16>();
}

// Whether every step of a tallied run was served with the reference's bits.
bool served_exactly(const Tally& tally) {
    return std::all_of(tally.services().begin(), tally.services().end(), [](const Service& s) {
        return s.fidelity == Fidelity::Exact;
    });
}

class Bf16Opcode : public ::testing::TestWithParam<Opcode> {};

TEST_P(Bf16Opcode, EachNodeIsItsFloatKernelOnWidenedOperandsRoundedOnce) {
    const test::OpSpec& spec = spec_of(GetParam());
    for (std::uint64_t seed = 1; seed <= cases_per_opcode; ++seed) {
        const LossCase recorded = record_case(spec, seed);
        const Network<bf16> network = recorded.network.convert<bf16>();
        const topos::Run<bf16> run = network.forward(network.parameters());
        SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + network.describe());
        for (const Node& node : network.nodes()) {
            if (!is_source(node.opcode())) {
                EXPECT_TRUE(bit_equal(run.of(node.symbol()), contract_value(node, run)))
                    << "node " << node.index() << " (" << name_of(node.opcode()) << ")";
            }
        }
    }
}

TEST_P(Bf16Opcode, EveryPlanGivesTheInterpretersBits) {
    const test::OpSpec& spec = spec_of(GetParam());
    for (std::uint64_t seed = 1; seed <= cases_per_opcode; ++seed) {
        const LossCase recorded = record_case(spec, seed);
        const Network<bf16> network = recorded.network.convert<bf16>();
        const Parameters<bf16> parameters = network.parameters();
        const topos::Run<bf16> oracle = network.forward(parameters);
        Tape<bf16> reopened = network.reopen();
        const Adjoints<bf16> adjoints =
            reopened.differentiate(reopened.value(recorded.loss), recorded.operands);
        const Network<bf16> with_gradients = std::move(reopened).into_network();
        SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + network.describe());
        const Entry<bf16> forward = network.entry({recorded.output, recorded.loss});
        for (const Entry<bf16>& entry : {forward.numerics(Numerics::Exact),
                                         forward.numerics(Numerics::Fast),
                                         forward.simplify(),
                                         forward.backward()}) {
            const auto plan = entry.lower();
            std::optional<topos::Run<bf16>> planned;
            const Tally tally = Backend::tallied([&] { planned = plan.forward(parameters); });
            if (!served_exactly(tally)) {
                continue;  // a Fast backend reordered a sum (tests/backend checks its bound)
            }
            EXPECT_TRUE(bit_equal(planned->of(recorded.output), oracle.of(recorded.output)));
            EXPECT_TRUE(bit_equal(planned->of(recorded.loss), oracle.of(recorded.loss)));
        }
        // The recorded derivative, lowered, against the reverse scan of the oracle.
        const topos::Run<bf16> gradient_run =
            with_gradients.entry(adjoints.roots()).lower().forward(with_gradients.parameters());
        const Field<bf16> field = oracle.backward(recorded.loss);
        for (const Symbol& operand : recorded.operands) {
            EXPECT_TRUE(bit_equal(gradient_run.of(adjoints.of(operand)), field.of(operand)))
                << "operand node " << operand.index();
        }
    }
}

TEST_P(Bf16Opcode, GradientsMatchFiniteDifferencesAtTheBf16PointWithinItsTolerance) {
    const test::OpSpec& spec = spec_of(GetParam());
    for (std::uint64_t seed = 1; seed <= cases_per_opcode; ++seed) {
        const LossCase recorded = record_case(spec, seed);
        const Network<bf16> network = recorded.network.convert<bf16>();
        // The same graph in double at the bf16 point: every payload a bf16 value.
        const Network<double> point = network.convert<double>();
        const topos::Run<bf16> run = network.forward(network.parameters());
        const Field<bf16> field = run.backward(recorded.loss);
        SCOPED_TRACE("seed " + std::to_string(seed) + "\n" + network.describe());
        for (const Symbol& operand : recorded.operands) {
            const test::Jacobian jacobian =
                test::network_jacobian(point, point.parameters(), {}, recorded.loss, operand);
            const std::vector<double> one{1.0};
            const std::vector<double> expected = jacobian.transpose_times(one);
            EXPECT_TRUE(near_relative(
                to_doubles(field.of(operand)), expected, test::bf16_tolerance(GetParam())))
                << "operand node " << operand.index();
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryComputedOpcode,
                         Bf16Opcode,
                         ::testing::ValuesIn(test::computed_opcodes()),
                         test::opcode_name);

// Elementwise bf16 nodes run in chunks of 2^13 elements; a chunk's bits are
// those of the whole tensor's float kernel, rounded.
TEST(Bf16Contract, ElementwiseNodesPastOneChunkAreTheirFloatKernelRoundedOnce) {
    const Shape shape{3, 70001};
    Tape<bf16> tape;
    const auto x = tape.input(init::normal(21, 2.0).make<float>(shape).convert<bf16>());
    const auto y = tape.input(init::normal(22, 1.0).make<float>(shape).convert<bf16>());
    const auto hyperbolic = x.tanh();
    const auto product = hyperbolic * y;
    const auto picked = where(x.greater(y), product, x);
    const Network<bf16> network = std::move(tape).into_network();
    const topos::Run<bf16> run = network.forward(network.parameters());
    for (const Symbol node : {Symbol(hyperbolic), Symbol(product), Symbol(picked)}) {
        EXPECT_TRUE(bit_equal(run.of(node), contract_value(network.node(node), run)))
            << "node " << node.index();
    }
}

// The rows that ask for a bf16 table (Silu, Exp, Tanh, Cos, ...) read each
// element from widened_kernel's results over every bf16: each of the 65,536
// bit patterns (NaNs, infinities, subnormals, both zeros) gives the float
// kernel's value, rounded once.
TEST(Bf16Contract, TabulatedRowsGiveEveryBitPatternTheFloatKernelRoundedOnce) {
    std::vector<bf16> every_pattern(std::size_t{1} << 16U);
    for (std::size_t bits = 0; bits < every_pattern.size(); ++bits) {
        every_pattern[bits] = bf16::from_bits(static_cast<std::uint16_t>(bits));
    }
    std::size_t tabulated = 0;
    for (std::size_t code = 0; code < opcode_count; ++code) {
        const auto opcode = static_cast<Opcode>(code);
        if (!detail::op_info(opcode).bf16_table) {
            continue;
        }
        ++tabulated;
        Tape<bf16> tape;
        const auto x = tape.input(Tensor<bf16>(Shape{every_pattern.size()}, every_pattern));
        const auto y = x.apply(opcode, {x});
        const Network<bf16> network = std::move(tape).into_network();
        const topos::Run<bf16> run = network.forward(network.parameters());
        EXPECT_TRUE(bit_equal(run.of(y), contract_value(network.node(y), run))) << name_of(opcode);
    }
    EXPECT_GE(tabulated, 8U);  // Silu and the transcendental functions at least
}

// Layout nodes move bf16 bits as they are: a signalling NaN stays signalling
// (widening and rounding would quiet it), everything else is the contract's.
TEST(Bf16Contract, LayoutNodesMoveEachValuesBitsAsTheyAre) {
    const std::vector<std::uint16_t> bits{0x7f81, 0xff81, 0x7fc0, 0x3fc0, 0x8000, 0x0001};
    std::vector<bf16> values;
    for (const std::uint16_t b : bits) {
        values.push_back(bf16::from_bits(b));
    }
    Tape<bf16> tape;
    const auto x = tape.input(Tensor<bf16>(Shape{2, 3}, values));
    const auto moved = x.transpose().reshape(Shape{6}).pad(0, 1, 0).narrow(0, 1, 6);
    const Network<bf16> network = std::move(tape).into_network();
    const Tensor<bf16> value = network.forward(network.parameters()).of(moved);
    const Tensor<bf16> planned =
        network.entry({moved}).lower().forward(network.parameters(), {}).of(moved);
    const std::vector<std::uint16_t> transposed{0x7f81, 0x3fc0, 0xff81, 0x8000, 0x7fc0, 0x0001};
    for (std::size_t k = 0; k < transposed.size(); ++k) {
        EXPECT_EQ(value.data()[k].bits(), transposed[k]) << "element " << k;
    }
    EXPECT_TRUE(bit_equal(planned, value));
}

// Permutes move each bf16's bits, in the vector tiles of a transpose and at
// their edges, on one thread and on two: every bit pattern (signalling NaNs
// included) lands where the order puts it.
TEST(Bf16Contract, PermutesMoveEveryBitPatternWhereTheOrderPutsIt) {
    const std::vector<std::pair<Shape, std::vector<std::size_t>>> cases = {
        {Shape{3, 150, 200}, {0, 2, 1}},       // a batch of transposes shared among threads
        {Shape{50, 64, 32}, {0, 2, 1}},        // whole tiles only
        {Shape{5, 13, 11}, {0, 2, 1}},         // tiles and edges
        {Shape{6, 20, 30, 25}, {2, 0, 3, 1}},  // strided runs
    };
    const std::size_t saved = threads();
    for (const std::size_t count : {1, 2}) {
        set_threads(count);
        for (const auto& [shape, order] : cases) {
            std::vector<bf16> values(shape.elements());
            for (std::size_t k = 0; k < values.size(); ++k) {
                values[k] = bf16::from_bits(static_cast<std::uint16_t>(k * 7919U + 3U));
            }
            Tape<bf16> tape;
            const auto x = tape.input(Tensor<bf16>(shape, values));
            const auto moved = x.permute(Axes(std::span<const std::size_t>(order)));
            const Network<bf16> network = std::move(tape).into_network();
            const Tensor<bf16> planned =
                network.entry({moved}).lower().forward(network.parameters(), {}).of(moved);
            const Shape& out = planned.shape();
            std::vector<std::size_t> in_strides(shape.rank(), 1);
            for (std::size_t axis = shape.rank() - 1; axis-- > 0;) {
                in_strides[axis] = in_strides[axis + 1] * shape[axis + 1];
            }
            for (std::size_t k = 0; k < out.elements(); ++k) {
                std::size_t from = 0;
                for (std::size_t axis = out.rank(), rest = k; axis-- > 0;) {
                    from += rest % out[axis] * in_strides[order[axis]];
                    rest /= out[axis];
                }
                ASSERT_EQ(planned.data()[k].bits(), values[from].bits())
                    << shape.str() << ", element " << k << " on " << count << " threads";
            }
            EXPECT_TRUE(bit_equal(planned, network.forward(network.parameters()).of(moved)));
        }
    }
    set_threads(saved);
}

// Whether the plan elected a pattern of this kind.
bool elects(const Plan<bf16>& plan, PatternKind kind) {
    return std::any_of(plan.patterns().begin(), plan.patterns().end(), [kind](const Pattern& p) {
        return p.kind() == kind;
    });
}

// A bf16 plan elects the patterns whose fused kernel saves more than it
// widens and either rounds nowhere but at its root (a convolution's window
// product, max pooling) or has a float kernel that rounds inside as the
// contract does (the image gradient's folds, max pooling's gradient): run on
// widened inputs and rounded once more, they give the interpreter's bits
// forward and backward, and the module they emit is the unfused plan's (each
// operation in f32 between converts).
TEST(Bf16Plan, ConvolutionPoolingAndProductsElectTheirPatternsWithTheInterpretersBits) {
    Tape<float> tape;
    const auto image = tape.input(init::normal(31, 1.0).make<float>(Shape{4, 2, 6, 6}));
    const auto filters = tape.parameter(init::normal(32, 0.4).make<float>(Shape{3, 2, 3, 3}));
    const auto bias = tape.parameter(init::normal(33, 0.1).make<float>(Shape{3}));
    const auto weights = tape.parameter(init::normal(34, 0.3).make<float>(Shape{27, 5}));
    const auto pooled = max_pool(conv2d(image, filters, bias, 1, 1).relu(), 2, 2);
    const auto logits = pooled.reshape(Shape{4, 27}).matmul(weights);
    const auto loss = (logits * logits).sum();
    const Network<bf16> network = std::move(tape).into_network().convert<bf16>();
    const Parameters<bf16> parameters = network.parameters();
    const topos::Run<bf16> oracle = network.forward(parameters);

    const Entry<bf16> forward = network.entry({logits}).numerics(Numerics::Exact);
    const Plan<bf16> forward_plan = forward.lower();
    EXPECT_TRUE(elects(forward_plan, PatternKind::WindowProduct)) << forward_plan.describe();
    EXPECT_TRUE(elects(forward_plan, PatternKind::ReduceWindow)) << forward_plan.describe();
    EXPECT_TRUE(bit_equal(forward_plan.forward(parameters).of(logits), oracle.of(logits)));
    EXPECT_EQ(forward_plan.emit_stablehlo(),
              forward.elect_patterns(false).lower().emit_stablehlo());

    Tape<bf16> reopened = network.reopen();
    const std::vector<Symbol> wrt{image, filters, bias, weights};
    const Adjoints<bf16> adjoints = reopened.differentiate(reopened.value(loss), wrt);
    const Network<bf16> with_gradients = std::move(reopened).into_network();
    const Plan<bf16> gradient_plan =
        with_gradients.entry(adjoints.roots()).numerics(Numerics::Exact).lower();
    EXPECT_TRUE(elects(gradient_plan, PatternKind::WindowProduct)) << gradient_plan.describe();
    EXPECT_TRUE(elects(gradient_plan, PatternKind::WindowFold)) << gradient_plan.describe();
    EXPECT_TRUE(elects(gradient_plan, PatternKind::MaxPoolGradient)) << gradient_plan.describe();
    // A product with a transposed operand would widen the whole operand to
    // save one permute of 16-bit values: it runs node by node.
    EXPECT_FALSE(elects(gradient_plan, PatternKind::TransposedProduct)) << gradient_plan.describe();
    const topos::Run<bf16> planned = gradient_plan.forward(with_gradients.parameters());
    const Field<bf16> field = oracle.backward(loss);
    for (const Symbol& operand : wrt) {
        EXPECT_TRUE(bit_equal(planned.of(adjoints.of(operand)), field.of(operand)))
            << "operand node " << operand.index();
    }
}

// Overlapping windows sum some taps twice along each axis: the image
// gradient's first Fold rounds its sums to bf16 before the second adds them,
// in the fused kernels as in the interpreter, for the convolution's image
// gradient and for a max pooling's gradient alike.
TEST(Bf16Plan, OverlappingWindowsRoundTheFirstFoldsSumsBeforeTheSecondAddsThem) {
    Tape<float> tape;
    const auto image = tape.input(init::normal(35, 1.0).make<float>(Shape{6, 3, 9, 9}));
    const auto filters = tape.parameter(init::normal(36, 0.4).make<float>(Shape{4, 3, 3, 3}));
    const auto bias = tape.parameter(init::normal(37, 0.1).make<float>(Shape{4}));
    const auto pooled = max_pool(conv2d(image, filters, bias, 1, 1), 3, 2);
    const auto weights = tape.input(init::normal(38, 1.0).make<float>(pooled.shape()));
    const auto loss = (pooled * weights).sum();
    const Network<bf16> network = std::move(tape).into_network().convert<bf16>();
    Tape<bf16> reopened = network.reopen();
    const std::vector<Symbol> wrt{image, filters};
    const Adjoints<bf16> adjoints = reopened.differentiate(reopened.value(loss), wrt);
    const Network<bf16> with_gradients = std::move(reopened).into_network();
    const Plan<bf16> plan =
        with_gradients.entry(adjoints.roots()).numerics(Numerics::Exact).lower();
    EXPECT_TRUE(elects(plan, PatternKind::WindowFold)) << plan.describe();
    EXPECT_TRUE(elects(plan, PatternKind::MaxPoolGradient)) << plan.describe();
    const topos::Run<bf16> planned = plan.forward(with_gradients.parameters());
    const Field<bf16> field = network.forward(network.parameters()).backward(loss);
    for (const Symbol& operand : wrt) {
        EXPECT_TRUE(bit_equal(planned.of(adjoints.of(operand)), field.of(operand)))
            << "operand node " << operand.index();
    }
}

// A map region in a bf16 plan runs its members block by block, each block
// rounded as its node's value would be: the interpreter's bits, where one
// float pass over the region would round only its root.
TEST(Bf16Plan, AMapRegionRoundsEachMembersValueAsItsNodeWould) {
    const Shape shape{64, 40};
    Tape<bf16> tape;
    const auto x = tape.input(init::normal(41, 1.0).make<float>(shape).convert<bf16>());
    const auto a = tape.input(init::normal(42, 1.0).make<float>(shape).convert<bf16>());
    const auto b = tape.input(init::normal(43, 1.0).make<float>(shape).convert<bf16>());
    const auto y = (((x * a + b).tanh() * x - a) / (b * b + x.square())).maximum(x);
    const Network<bf16> network = std::move(tape).into_network();
    const Plan<bf16> plan = network.entry({y}).numerics(Numerics::Exact).lower();
    EXPECT_TRUE(elects(plan, PatternKind::Map)) << plan.describe();
    EXPECT_TRUE(bit_equal(plan.forward(network.parameters()).of(y),
                          network.forward(network.parameters()).of(y)));
}

TEST(NetworkConvert, KeepsTheGraphAndItsSymbolsAndRoundsEachPayloadOnce) {
    auto [network, w, x, y] = Tape<float>::record([](Tape<float>& tape) {
        auto w = tape.parameter(Tensor<float>({2}, {0.1F, -3.0F}));
        auto x = tape.input(Tensor<float>({2}, {1.00390625F, 2.0F}));
        return detach(w, x, (w * x).sum());
    });
    const Network<bf16> converted = network.convert<bf16>();
    EXPECT_EQ(converted.describe(), network.describe());
    EXPECT_TRUE(bit_equal(converted.payload(w), network.payload(w).convert<bf16>()));
    EXPECT_TRUE(bit_equal(converted.payload(x), network.payload(x).convert<bf16>()));
    EXPECT_EQ(converted.node(y).opcode(), Opcode::Sum);
    // 1.00390625 is halfway between two bf16 values: it rounds to the even one, 1.
    EXPECT_EQ(static_cast<float>(converted.payload(x).data()[0]), 1.0F);
    const topos::Run<bf16> run = converted.forward(network.parameters().convert<bf16>());
    EXPECT_EQ(run.of(y).shape(), Shape{});
}

TEST(NetworkConvert, RefusesAnIndexPayloadTheNarrowerTypeCannotHold) {
    Tape<float> tape;
    const auto table = tape.parameter(Tensor<float>::filled({300, 2}, 0.5F));
    const auto ids = tape.indices(Tensor<float>({2}, {3.0F, 257.0F}));
    const auto picked = gather(table, ids);
    (void)picked;
    const Network<float> network = std::move(tape).into_network();
    const std::string message =
        test::message_of_thrown<FeedError>([&] { (void)network.convert<bf16>(); }, "FeedError");
    EXPECT_NE(message.find("up to 256"), std::string::npos) << message;
    EXPECT_NE(message.find("record the tape in float"), std::string::npos) << message;
    EXPECT_NO_THROW((void)network.convert<double>());
}

TEST(ParametersConvert, GivesTheConvertedNetworksSlotsAndBackAgain) {
    auto [network, w, loss] = Tape<float>::record([](Tape<float>& tape) {
        auto w = tape.parameter(Tensor<float>({3}, {0.3F, 1.5F, -2.25F}));
        return detach(w, (w * w).sum());
    });
    const Parameters<float> master = network.parameters();
    const Parameters<bf16> compute = master.convert<bf16>();
    const Network<bf16> converted = network.convert<bf16>();
    EXPECT_TRUE(compute.same_slots(converted.parameters()));
    EXPECT_TRUE(bit_equal(compute.of(w), master.of(w).convert<bf16>()));
    const Field<bf16> field = converted.forward(compute).backward(loss);
    const Parameters<float> gradient = field.parameters(compute).convert<float>();
    EXPECT_TRUE(gradient.same_slots(master));
    // d(sum w^2)/dw = 2w, exact in bf16 for these w once rounded.
    EXPECT_TRUE(bit_equal(gradient.of(w), (compute.of(w).convert<float>() * Tensor<float>(2.0F))));
}

TEST(Bf16Index, AFeedPast256IsRefusedWithTheReason) {
    Tape<bf16> tape;
    const auto table = tape.parameter(Tensor<bf16>::filled({4, 2}, bf16(1.0F)));
    const auto ids = tape.indices(Tensor<bf16>({1}, {bf16(1.0F)}));
    const auto picked = gather(table, ids);
    const Network<bf16> network = std::move(tape).into_network();
    const Tensor<bf16> far({1}, {bf16(512.0F)});
    const std::string message = test::message_of_thrown<FeedError>(
        [&] {
            (void)network.forward(network.parameters(), {{ids, far}});
        },
        "FeedError");
    EXPECT_NE(message.find("up to 256"), std::string::npos) << message;
    (void)picked;
}

}  // namespace
}  // namespace topos
