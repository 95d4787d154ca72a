// Network::forward's sources, feeds and parameters: every node evaluated, feeds
// overlaying the input defaults, parameters replacing the recorded payloads, and
// the errors for feeds, indices, symbols and parameters that belong elsewhere.
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/run/run.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace topos {
namespace {

using ::testing::AllOf;
using ::testing::AnyOf;
using ::testing::HasSubstr;

// ---- indices fed at run time ----

TEST(Forward, RejectsAnIndexOutsideItsRangeAtRunTime) {
    auto [network, picks, rows] = Tape<double>::record([](Tape<double>& tape) {
        const Value<double> table = tape.parameter(Tensor<double>({3, 1}, {1, 2, 3}));
        const Value<double> picks = tape.indices(Tensor<double>({1}, {0}));
        return detach(picks, table.apply(Opcode::Gather, {table, picks}));
    });
    const Parameters<double> parameters = network.parameters();
    EXPECT_EQ(network.forward(parameters, {{picks, Tensor<double>({1}, {2})}}).of(rows).scalar(),
              3.0);
    try {
        (void)network.forward(parameters, {{picks, Tensor<double>({1}, {3})}});
        FAIL() << "index 3 of 3 rows was read";
    } catch (const IndexError& error) {
        EXPECT_THAT(error.what(), AllOf(HasSubstr("Gather"), HasSubstr("3")));
    }
    EXPECT_THROW((void)network.forward(parameters, {{picks, Tensor<double>({1}, {-1})}}),
                 IndexError);
}

TEST(Forward, RejectsAFeedOfIndicesThatAreNotIntegers) {
    auto [network, picks, encoded] = Tape<double>::record([](Tape<double>& tape) {
        const Value<double> picks = tape.indices(Tensor<double>({1}, {0}));
        return detach(picks, picks.one_hot(2));
    });
    EXPECT_THROW((void)network.forward(network.parameters(), {{picks, Tensor<double>({1}, {0.5})}}),
                 FeedError);
}

TEST(Forward, AnOutOfRangeLabelOfCrossEntropyNamesTheLossAndTheClassCount) {
    auto [network, labels, loss] = Tape<double>::record([](Tape<double>& tape) {
        const Value<double> logits = tape.parameter(Tensor<double>::filled({2, 5}, 0.5));
        const Value<double> labels = tape.indices(Tensor<double>({2}, {1, 3}));
        return detach(labels, cross_entropy(logits, labels));
    });
    try {
        (void)network.forward(network.parameters(), {{labels, Tensor<double>({2}, {1, 7})}});
        FAIL() << "label 7 of 5 classes was read";
    } catch (const IndexError& error) {
        EXPECT_THAT(error.what(), HasSubstr("cross_entropy"));
        EXPECT_THAT(error.what(), HasSubstr("met index 7, outside [0, 5)"));
    }
}

TEST(Forward, AHugeOrFractionalIndexIsQuotedShortly) {
    auto [network, picks, encoded] = Tape<double>::record([](Tape<double>& tape) {
        const Value<double> picks = tape.indices(Tensor<double>({1}, {0}));
        return detach(picks, picks.one_hot(2));
    });
    for (const auto& [fed, quoted] : {std::pair{1e300, "1e+300"}, std::pair{2.5, "2.5"}}) {
        try {
            (void)network.forward(network.parameters(), {{picks, Tensor<double>({1}, {fed})}});
            FAIL() << quoted << " was fed as an index";
        } catch (const FeedError& error) {
            EXPECT_THAT(error.what(), HasSubstr(std::string("but got ") + quoted + ";"));
        }
    }
    try {
        Tape<double> tape;
        (void)tape.indices(Tensor<double>({1}, {std::nan("")}));
        FAIL() << "NaN was recorded as an index";
    } catch (const FeedError& error) {
        EXPECT_THAT(error.what(), HasSubstr("but got nan;"));
    }
}

// ---- sources, feeds, parameters ----

TEST(Forward, EvaluatesEveryNodeIncludingSources) {
    auto [network, w, x, c, y] = Tape<double>::record([](Tape<double>& tape) {
        const auto w = tape.parameter(3.0);
        const auto x = tape.input(2.0);
        const auto c = tape.leaf(10.0);
        return detach(w, x, c, w * x + c);
    });
    const topos::Run<double> run = network.forward(network.parameters());
    EXPECT_EQ(run.of(w).scalar(), 3.0);
    EXPECT_EQ(run.of(x).scalar(), 2.0);
    EXPECT_EQ(run.of(c).scalar(), 10.0);
    EXPECT_EQ(run.of(y).scalar(), 16.0);
    for (const Node& node : network.nodes()) {
        EXPECT_NO_THROW(run.of(node.symbol())) << node;
    }
}

TEST(Forward, FeedsOverlayTheInputDefaults) {
    auto [network, w, x, y, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto w = tape.parameter(0.5);
        const auto x = tape.input(2.0);
        const auto y = tape.input(4.0);
        const auto error = w * x - y;
        return detach(w, x, y, error * error);
    });
    const Parameters<double> parameters = network.parameters();
    EXPECT_EQ(network.forward(parameters).of(loss).scalar(), 9.0);              // (1 - 4)^2
    EXPECT_EQ(network.forward(parameters, {{x, 6.0}}).of(loss).scalar(), 1.0);  // (3 - 4)^2
    EXPECT_EQ(network.forward(parameters, {{y, 0.0}}).of(loss).scalar(), 1.0);  // (1 - 0)^2
    EXPECT_EQ(network.forward(parameters, {{y, 1.0}, {x, 4.0}}).of(loss).scalar(), 1.0);
    // The defaults are untouched by earlier feeds.
    EXPECT_EQ(network.forward(parameters).of(loss).scalar(), 9.0);
    // Parameters replace the recorded initial payloads.
    EXPECT_EQ(network.forward(parameters.with(w, 2.0)).of(loss).scalar(), 0.0);
    EXPECT_EQ(parameters.of(w).scalar(), 0.5);
    // A span of feeds works like the braced list.
    const std::vector<Feed<double>> feeds{{x, 6.0}};
    EXPECT_EQ(network.forward(parameters, std::span<const Feed<double>>(feeds)).of(loss).scalar(),
              1.0);
}

struct TwoInputs {
    Network<double> network;
    Symbol w;
    Symbol x;
    Symbol y;
};

TwoInputs two_inputs() {
    auto [network, w, x, y] = Tape<double>::record([](Tape<double>& tape) {
        const auto w = tape.parameter(Tensor<double>::filled({2}, 1.0));
        const auto x = tape.input(Tensor<double>::filled({2}, 2.0));
        return detach(w, x, (w * x).sum());
    });
    return {network, w, x, y};
}

TEST(Forward, RejectsAFeedOfTheWrongShapeNamingTheSymbolAndBothShapes) {
    const TwoInputs net = two_inputs();
    try {
        (void)net.network.forward(net.network.parameters(),
                                  {{net.x, Tensor<double>::filled({3}, 1.0)}});
        FAIL() << "a [3] feed was accepted for a [2] input";
    } catch (const FeedError& error) {
        EXPECT_THAT(
            error.what(),
            AllOf(AnyOf(HasSubstr("%1"), HasSubstr("node 1")), HasSubstr("[3]"), HasSubstr("[2]")));
    }
    EXPECT_THROW((void)net.network.forward(net.network.parameters(), {{net.x, 1.0}}), FeedError);
}

TEST(Forward, RejectsAFeedForASymbolThatIsNotAnInput) {
    const TwoInputs net = two_inputs();
    const Parameters<double> parameters = net.network.parameters();
    try {
        (void)net.network.forward(parameters, {{net.w, Tensor<double>::filled({2}, 1.0)}});
        FAIL() << "a parameter was fed";
    } catch (const FeedError& error) {
        EXPECT_THAT(error.what(),
                    AllOf(AnyOf(HasSubstr("%0"), HasSubstr("node 0")), HasSubstr("input")));
    }
    EXPECT_THROW((void)net.network.forward(parameters, {{net.y, 1.0}}), FeedError);  // computed
}

TEST(Forward, RejectsAFeedForASymbolOfAnotherNetwork) {
    const TwoInputs net = two_inputs();
    const TwoInputs other = two_inputs();
    try {
        (void)net.network.forward(net.network.parameters(),
                                  {{other.x, Tensor<double>::filled({2}, 1.0)}});
        FAIL() << "another network's input was fed";
    } catch (const FeedError& error) {
        EXPECT_THAT(error.what(), HasSubstr("%1"));
    }
}

TEST(Forward, RejectsFeedingOneInputTwice) {
    const TwoInputs net = two_inputs();
    const Tensor<double> v = Tensor<double>::filled({2}, 1.0);
    EXPECT_THROW((void)net.network.forward(net.network.parameters(), {{net.x, v}, {net.x, v}}),
                 FeedError);
}

TEST(Forward, RejectsReadingASymbolOfAnotherNetwork) {
    const TwoInputs net = two_inputs();
    const TwoInputs other = two_inputs();
    const topos::Run<double> run = net.network.forward(net.network.parameters());
    EXPECT_THROW((void)run.of(other.y), SymbolError);
    EXPECT_THROW((void)net.network.node(other.x), SymbolError);
    EXPECT_THROW((void)run.backward(other.y), SymbolError);
    EXPECT_THROW((void)run.backward(net.y).of(other.w), SymbolError);
}

TEST(Forward, RejectsParametersOfAnotherNetwork) {
    const TwoInputs net = two_inputs();
    const TwoInputs other = two_inputs();
    EXPECT_THROW((void)net.network.forward(other.network.parameters()), SymbolError);
    EXPECT_THROW((void)net.network.parameters().of(other.w), SymbolError);
    EXPECT_THROW((void)net.network.parameters().with(other.w, Tensor<double>::filled({2}, 1.0)),
                 SymbolError);
    const Field<double> field = net.network.forward(net.network.parameters()).backward(net.y);
    EXPECT_THROW((void)field.parameters(other.network.parameters()), SymbolError);
}

TEST(Forward, RejectsAParameterReplacementOfAnotherShape) {
    const TwoInputs net = two_inputs();
    EXPECT_THROW((void)net.network.parameters().with(net.w, Tensor<double>::filled({3}, 1.0)),
                 ShapeError);
    EXPECT_THROW((void)net.network.parameters().with(net.x, Tensor<double>::filled({2}, 1.0)),
                 SymbolError);
}

}  // namespace
}  // namespace topos
