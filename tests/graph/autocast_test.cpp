// Autocast: the products recorded under one round their operands and their
// result (Convert nodes), bit for bit as the same rounding written out by
// hand; nothing else changes, nothing is recorded where the type is not
// narrower than the tape's, and the scope is the opening thread's alone.
#include "support/bit_equal.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <thread>

namespace topos {
namespace {

using test::bit_equal;

template <Element T>
std::size_t converts_on(const Tape<T>& tape) {
    std::size_t count = 0;
    for (const Node& node : tape.nodes()) {
        count += node.opcode() == Opcode::Convert ? 1 : 0;
    }
    return count;
}

Tensor<float> values(std::uint64_t seed, const Shape& shape) {
    return init::normal(seed, 1.0)(shape);
}

template <Element T>
Tensor<T> value_of(Tape<T>&& tape, Symbol value) {
    const Network<T> network = std::move(tape).into_network();
    return network.forward(network.parameters()).of(value);
}

TEST(Autocast, RoundsAProductsOperandsAndResultAsWrittenByHand) {
    Tape<float> cast;
    const Value<float> a = cast.parameter(values(1, {5, 7}));
    const Value<float> b = cast.input(values(2, {7, 3}));
    Value<float> autocast_product = a;
    {
        const Autocast products(ElementType::BF16);
        autocast_product = a.matmul(b);
    }
    const Value<float> after = a.matmul(b);
    EXPECT_EQ(converts_on(cast), 3u);
    Tape<float> by_hand;
    const Value<float> x = by_hand.parameter(values(1, {5, 7}));
    const Value<float> y = by_hand.input(values(2, {7, 3}));
    const Value<float> written =
        x.rounded_to<bf16>().matmul(y.rounded_to<bf16>()).rounded_to<bf16>();
    const Tensor<float> expected = value_of(std::move(by_hand), written);
    Tensor<float> unrounded = expected;
    {
        const Network<float> network = std::move(cast).into_network();
        const topos::Run<float> run = network.forward(network.parameters());
        EXPECT_TRUE(bit_equal(run.of(autocast_product), expected));
        unrounded = run.of(after);
    }
    EXPECT_FALSE(bit_equal(unrounded, expected)) << "the product after the scope is in float";
}

TEST(Autocast, ConvolvesRoundedImageAndFiltersAndStillElectsTheWindowProduct) {
    Tape<float> tape;
    const Value<float> image = tape.input(values(3, {2, 3, 6, 6}));
    const Value<float> filters = tape.parameter(values(4, {4, 3, 3, 3}));
    const Value<float> bias = tape.parameter(values(5, {4}));
    Value<float> convolved = image;
    {
        const Autocast products(ElementType::BF16);
        convolved = conv2d(image, filters, bias, 1, 1);
    }
    EXPECT_EQ(converts_on(tape), 3u) << "the image, the filters and the product";
    const Network<float> network = std::move(tape).into_network();
    const auto plan = network.entry({convolved}).lower();
    Tensor<float> planned;
    const Tally tally =
        Backend::tallied([&] { planned = plan.forward(network.parameters()).of(convolved); });
    EXPECT_EQ(tally.count("WindowProduct", "reference"), 1u) << tally;
    EXPECT_TRUE(bit_equal(planned, network.forward(network.parameters()).of(convolved)));
}

TEST(Autocast, RecordsNothingWhereTheTypeIsNotNarrowerThanTheTapes) {
    Tape<double> doubles;
    Tape<bf16> narrow;
    {
        const Autocast products(ElementType::F64);
        (void)doubles.parameter(Tensor<double>::filled({2, 2}, 0.5))
            .matmul(doubles.input(Tensor<double>::filled({2, 2}, 0.25)));
    }
    {
        const Autocast products(ElementType::BF16);
        (void)narrow.parameter(Tensor<bf16>::filled({2, 2}, bf16(0.5f)))
            .matmul(narrow.input(Tensor<bf16>::filled({2, 2}, bf16(0.25f))));
    }
    EXPECT_EQ(converts_on(doubles), 0u);
    EXPECT_EQ(converts_on(narrow), 0u);
}

TEST(Autocast, AnInnerScopeOverridesTheOuterUntilItCloses) {
    Tape<double> tape;
    const Value<double> a = tape.parameter(Tensor<double>::filled({2, 2}, 0.1));
    EXPECT_FALSE(Autocast::current().has_value());
    {
        const Autocast outer(ElementType::F32);
        {
            const Autocast inner(ElementType::F64);
            (void)a.matmul(a);
            EXPECT_EQ(converts_on(tape), 0u);
        }
        EXPECT_EQ(Autocast::current(), ElementType::F32);
        (void)a.matmul(a);
        EXPECT_EQ(converts_on(tape), 3u);
    }
    EXPECT_FALSE(Autocast::current().has_value());
}

TEST(Autocast, BelongsToTheThreadThatOpenedIt) {
    const Autocast products(ElementType::BF16);
    Tape<float> tape;
    std::thread other([&tape] {
        const Value<float> a = tape.parameter(Tensor<float>::filled({2, 2}, 0.1f));
        (void)a.matmul(a);
    });
    other.join();
    EXPECT_EQ(converts_on(tape), 0u);
}

}  // namespace
}  // namespace topos
