// Small things a user meets first: initialisers print, parameters_of deduces
// its element type, and an index error quotes the index as an integer.
#include <topos/topos.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>

namespace topos {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(Usability, AnInitialisersResultPrintsAsItsDoubleTensor) {
    std::ostringstream made;
    made << init::normal(1, 1.0)(Shape{2, 2});
    std::ostringstream expected;
    expected << init::normal(1, 1.0).make<double>(Shape{2, 2});
    EXPECT_EQ(made.str(), expected.str());
    EXPECT_EQ(init::uniform(3, -1, 1)(Shape{3}).as<float>().shape(), (Shape{3}));
}

TEST(Usability, ParametersOfDeducesTheElementTypeFromTheModules) {
    Tape<float> tape;
    const Conv2d<float> conv(
        tape, {.in_channels = 1, .out_channels = 2, .kernel = 3}, init::xavier(1));
    const Linear<float> fc(tape, 8, 2, init::xavier(2));
    const std::vector<Value<float>> deduced = parameters_of(conv, fc);
    const std::vector<Value<float>> given = parameters_of<float>(conv, fc);
    ASSERT_EQ(deduced.size(), 4u);
    for (std::size_t i = 0; i < deduced.size(); ++i) {
        EXPECT_EQ(deduced[i].symbol(), given[i].symbol());
    }
}

TEST(Usability, AGathersBadIndexIsQuotedAsAnInteger) {
    auto [network, picks, rows] = Tape<double>::record([](Tape<double>& tape) {
        const Value<double> table = tape.parameter(Tensor<double>::filled({3, 2}, 1.0));
        const Value<double> picks = tape.indices(Shape{1}, {0});
        return detach(picks, gather(table, picks));
    });
    try {
        (void)network.forward(network.parameters(), {{picks, Tensor<double>({1}, {7})}});
        FAIL() << "index 7 of 3 rows was read";
    } catch (const IndexError& error) {
        EXPECT_THAT(error.what(), HasSubstr("met index 7, outside [0, 3)"));
        EXPECT_THAT(error.what(), Not(HasSubstr("7.0")));
    }
}

}  // namespace
}  // namespace topos
