// TransposedProduct elections: a MatMul reading an operand through a swap of
// its last two axes reads the permute's operand in place, with the unfused
// plan's bits, and the transposed copy is never materialised.
#include "support/bit_equal.hpp"
#include "support/random_graphs.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

namespace topos {
namespace {

using test::bit_equal;

template <Element T>
Tensor<T> drawn(std::uint64_t seed, Shape shape) {
    test::Rng rng(seed);
    return rng.tensor<T>(shape, -1.0, 1.0);
}

// The plan elects one TransposedProduct and computes the interpreter's bits.
template <Element T>
void expect_fused_product(const Network<T>& network, Symbol product, std::size_t covered) {
    const Plan<T> plan = network.entry({product}).numerics(Numerics::Exact).lower();
    ASSERT_EQ(plan.patterns().size(), 1u) << plan.describe();
    EXPECT_EQ(plan.patterns()[0].kind(), PatternKind::TransposedProduct);
    EXPECT_EQ(plan.patterns()[0].nodes().size(), covered);
    EXPECT_TRUE(
        bit_equal(plan.forward().of(product), network.forward(network.parameters()).of(product)));
    const Plan<T> unfused = network.entry({product}).elect_patterns(false).lower();
    EXPECT_TRUE(bit_equal(plan.forward().of(product), unfused.forward().of(product)));
}

template <class T>
class TransposedProduct : public ::testing::Test {};

using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(TransposedProduct, ElementTypes);

TYPED_TEST(TransposedProduct, ReadsALeftOperandTransposedInPlace) {
    using T = TypeParam;
    Tape<T> tape;
    const auto a = tape.parameter(drawn<T>(1, {70, 33}));
    const auto b = tape.parameter(drawn<T>(2, {70, 45}));
    const auto product = a.permute({1, 0}).matmul(b);
    expect_fused_product(std::move(tape).into_network(), product, 2);
}

TYPED_TEST(TransposedProduct, ReadsARightOperandTransposedInPlace) {
    using T = TypeParam;
    Tape<T> tape;
    const auto a = tape.parameter(drawn<T>(3, {37, 64}));
    const auto b = tape.parameter(drawn<T>(4, {29, 64}));
    const auto product = a.matmul(b.permute({1, 0}));
    expect_fused_product(std::move(tape).into_network(), product, 2);
}

TYPED_TEST(TransposedProduct, ReadsBothOperandsTransposedAndBatched) {
    using T = TypeParam;
    Tape<T> tape;
    const auto a = tape.parameter(drawn<T>(5, {3, 19, 23}));
    const auto b = tape.parameter(drawn<T>(6, {3, 31, 19}));
    const auto product = a.permute({0, 2, 1}).matmul(b.permute({0, 2, 1}));
    expect_fused_product(std::move(tape).into_network(), product, 3);
}

TYPED_TEST(TransposedProduct, LeavesAPermuteOfOtherAxesAlone) {
    using T = TypeParam;
    Tape<T> tape;
    const auto a = tape.parameter(drawn<T>(7, {4, 5, 6}));
    const auto b = tape.parameter(drawn<T>(8, {5, 6, 2}));
    const auto product = a.permute({1, 0, 2}).matmul(b);
    const auto network = std::move(tape).into_network();
    EXPECT_TRUE(network.entry({product}).lower().patterns().empty());
}

// A transpose someone else reads, or that is declared, is materialised, and
// the product reads it as an ordinary operand.
TYPED_TEST(TransposedProduct, StaysUnfusedWhereTheTransposeIsNeededItself) {
    using T = TypeParam;
    Tape<T> tape;
    const auto a = tape.parameter(drawn<T>(9, {8, 6}));
    const auto b = tape.parameter(drawn<T>(10, {8, 4}));
    const auto transposed = a.permute({1, 0});
    const auto product = transposed.matmul(b);
    const auto also = transposed.exp().sum();
    const auto network = std::move(tape).into_network();
    const auto read_twice = network.entry({product, also}).lower();
    EXPECT_TRUE(read_twice.patterns().empty()) << read_twice.describe();
    const auto declared = network.entry({product}).observe({transposed}).lower();
    EXPECT_TRUE(declared.patterns().empty()) << declared.describe();
    EXPECT_TRUE(bit_equal(declared.forward().of(product),
                          network.forward(network.parameters()).of(product)));
}

// An MLP's recorded gradients read W^T and X^T through permutes: every one is
// fused, and the gradients keep the reverse scan's bits.
TYPED_TEST(TransposedProduct, RecordedMlpGradientsReadEveryTransposeInPlace) {
    using T = TypeParam;
    Tape<T> tape;
    Mlp mlp(tape, {20, 64, 64, 10}, Activation::Tanh, init::xavier(3));
    const auto predicted = mlp.express(tape.input(drawn<T>(11, {32, 20})));
    const auto loss = (predicted * predicted).sum();
    const auto adjoints = tape.differentiate(loss, mlp.parameters());
    const auto network = std::move(tape).into_network();
    const Plan<T> plan = network.entry(adjoints.roots()).numerics(Numerics::Exact).lower();
    std::size_t transposed = 0;
    for (const Pattern& pattern : plan.patterns()) {
        transposed += pattern.kind() == PatternKind::TransposedProduct ? 1 : 0;
    }
    EXPECT_EQ(transposed, 5u) << plan.describe();
    for (std::size_t position = 0; position < plan.nodes().size(); ++position) {
        if (plan.nodes()[position].opcode() == Opcode::Permute) {
            EXPECT_EQ(plan.liveness()[position].kind, Liveness::Kind::Fused)
                << "node " << plan.nodes()[position].index();
        }
    }
    const Field<T> scanned = network.forward(network.parameters()).backward(loss);
    const topos::Run<T> run = plan.forward();
    for (const auto& [parameter, gradient] : adjoints.gradients()) {
        EXPECT_TRUE(bit_equal(run.of(gradient), scanned.of(parameter)));
    }
}

}  // namespace
}  // namespace topos
