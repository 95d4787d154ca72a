// Tape::value: a Value that records more on the node a Symbol of the same tape
// names (a gradient the reverse scan recorded, say), and the SymbolError for a
// Symbol of another tape.
#include <topos/autodiff/adjoints.hpp>
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/run/run.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace topos {
namespace {

using ::testing::HasSubstr;

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
