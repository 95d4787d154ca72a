// Run::backward, the engine reverse scan, and Tape::differentiate, the recorded
// derivative: the seeds' gradient figures and training loop, contributions of a
// value's several readers summed in the documented order, the errors, zeros for
// unreached nodes, projection onto parameter slots, and bit-identical results
// on both roads over seeded random graphs.
#include "support/bit_equal.hpp"
#include "support/random_graphs.hpp"
#include <topos/autodiff/adjoints.hpp>
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/run/run.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;
using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(Backward, ReproducesTheSeedsGradientFigures) {
    auto [network, w, x, y, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto w = tape.parameter(0.5);
        const auto x = tape.input(2.0);
        const auto y = tape.input(4.0);
        const auto error = w * x - y;
        return detach(w, x, y, error * error);
    });
    const topos::Run<double> run = network.forward(network.parameters(), {});
    const Field<double> gradients = run.backward(loss);
    EXPECT_EQ(run.of(loss).scalar(), 9.0);        // (w x - y)^2
    EXPECT_EQ(gradients.of(w).scalar(), -12.0);   // 2 (w x - y) x
    EXPECT_EQ(gradients.of(x).scalar(), -3.0);    // 2 (w x - y) w
    EXPECT_EQ(gradients.of(y).scalar(), 6.0);     // -2 (w x - y)
    EXPECT_EQ(gradients.of(loss).scalar(), 1.0);  // the seed
    EXPECT_EQ(gradients.of(w).shape(), Shape{});
}

TEST(Backward, TrainsTheSeedsParameterToTwo) {
    auto [network, w, x, y, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto w = tape.parameter(0.0);
        const auto x = tape.input(0.0);
        const auto y = tape.input(0.0);
        const auto error = w * x - y;
        return detach(w, x, y, error * error);
    });
    Parameters<double> parameters = network.parameters();
    const double samples[3][2] = {{1.0, 2.0}, {2.0, 4.0}, {3.0, 6.0}};
    for (int step = 0; step < 100; ++step) {
        const auto& [sample_x, sample_y] = samples[step % 3];
        const topos::Run<double> run = network.forward(parameters, {{x, sample_x}, {y, sample_y}});
        const Parameters<double> gradients = run.backward(loss).parameters(parameters);
        parameters =
            parameters.step(gradients, [](const Tensor<double>& weight, const Tensor<double>& g) {
                return weight - g * Tensor<double>(0.02);
            });
    }
    EXPECT_NEAR(parameters.of(w).scalar(), 2.0, 1e-6);
    // Training never touched the network's recorded initial value.
    EXPECT_EQ(network.parameters().of(w).scalar(), 0.0);
}

TEST(Backward, SumsTheContributionsOfAValueWithSeveralReaders) {
    // f = x * x + x reads x three times: df/dx = 2 x + 1 = 7 at x = 3.
    auto [network, x, f] = Tape<double>::record([](Tape<double>& tape) {
        const auto x = tape.input(3.0);
        return detach(x, x * x + x);
    });
    EXPECT_EQ(network.forward(network.parameters()).backward(f).of(x).scalar(), 7.0);
}

// x is read by y1 = x * 1e8, y2 = x * -1e8, y3 = x * 1 (in that order), and the
// loss is (y1 + y2) + y3. Contributions arrive by descending reader index:
// (1 + -1e8) + 1e8 = 0 in float; ascending would give (1e8 + -1e8) + 1 = 1.
struct ReaderOrder {
    Network<float> network;
    Symbol x;
    Symbol loss;
    Adjoints<float> adjoints;
};

ReaderOrder reader_order_graph() {
    Tape<float> tape;
    const auto x = tape.input(1.0f);
    const auto y1 = x * tape.leaf(1e8f);
    const auto y2 = x * tape.leaf(-1e8f);
    const auto y3 = x * tape.leaf(1.0f);
    const auto loss = (y1 + y2) + y3;
    const auto adjoints = tape.differentiate(loss, {x});
    const Symbol xs = x;
    const Symbol ls = loss;
    return {std::move(tape).into_network(), xs, ls, adjoints};
}

TEST(Backward, SumsContributionsInDescendingReaderOrder) {
    const ReaderOrder graph = reader_order_graph();
    const topos::Run<float> run = graph.network.forward(graph.network.parameters());
    EXPECT_TRUE(bit_equal(run.backward(graph.loss).of(graph.x), Tensor<float>(0.0f)));
    EXPECT_TRUE(bit_equal(run.of(graph.adjoints.of(graph.x)), Tensor<float>(0.0f)));
}

TEST(Backward, RejectsATargetThatIsNotAScalar) {
    Tape<double> tape;
    const auto x = tape.parameter(Tensor<double>::filled({2, 3}, 1.0));
    const auto y = x * x;
    try {
        (void)tape.differentiate(y, {x});
        FAIL() << "differentiated a [2, 3] target";
    } catch (const GradientError& error) {
        EXPECT_THAT(error.what(),
                    AllOf(HasSubstr("node 1"), HasSubstr("[2, 3]"), HasSubstr("rank-0")));
    }
    const Symbol ys = y;
    const auto network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(network.parameters());
    try {
        (void)run.backward(ys);
        FAIL() << "ran backward from a [2, 3] target";
    } catch (const GradientError& error) {
        EXPECT_THAT(error.what(),
                    AllOf(HasSubstr("node 1"), HasSubstr("[2, 3]"), HasSubstr("sum()")));
    }
}

TEST(Backward, GivesZerosForNodesTheTargetDoesNotReach) {
    auto [network, used, unused, constant, target, later] =
        Tape<double>::record([](Tape<double>& tape) {
            const auto used = tape.parameter(2.0);
            const auto unused = tape.parameter(Tensor<double>::filled({2, 2}, 5.0));
            const auto constant = tape.leaf(Tensor<double>({3}, {1, 2, 3}));
            const auto target = used * used;
            const auto later = target + unused.sum();  // after the target
            return detach(used, unused, constant, target, later);
        });
    const Field<double> field = network.forward(network.parameters()).backward(target);
    EXPECT_EQ(field.of(used).scalar(), 4.0);
    EXPECT_TRUE(bit_equal(field.of(unused), Tensor<double>::filled({2, 2}, 0.0)));
    EXPECT_TRUE(bit_equal(field.of(constant), Tensor<double>::filled({3}, 0.0)));
    EXPECT_TRUE(bit_equal(field.of(later), Tensor<double>(0.0)));
}

TEST(Backward, GivesNoDerivativeThroughAComparisonMask) {
    auto [network, a, b, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto a = tape.parameter(Tensor<double>({2}, {1, 3}));
        const auto b = tape.input(Tensor<double>({2}, {2, 2}));
        return detach(a, b, (a.greater_equal(b) * a).sum());
    });
    const Field<double> field = network.forward(network.parameters()).backward(loss);
    EXPECT_EQ(field.of(a), (Tensor<double>({2}, {0, 1})));  // the mask, times 1
    EXPECT_EQ(field.of(b), (Tensor<double>({2}, {0, 0})));
}

TEST(Backward, ProjectsTheFieldOntoParameterSlots) {
    auto [network, p0, p1, p2, x, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto p0 = tape.parameter(Tensor<double>({2}, {1, 2}));
        const auto p1 = tape.parameter(Tensor<double>::filled({3}, 7.0));  // never read
        const auto x = tape.input(Tensor<double>({2}, {3, 4}));
        const auto p2 = tape.parameter(5.0);
        return detach(p0, p1, p2, x, (p0 * x).sum() * p2);
    });
    const Parameters<double> parameters = network.parameters();
    const Parameters<double> gradients =
        network.forward(parameters).backward(loss).parameters(parameters);
    ASSERT_EQ(gradients.size(), 3u);
    EXPECT_EQ(gradients.of(p0), (Tensor<double>({2}, {15, 20})));  // x p2
    EXPECT_TRUE(bit_equal(gradients.of(p1), Tensor<double>::filled({3}, 0.0)));
    EXPECT_EQ(gradients.of(p2).scalar(), 11.0);  // sum(p0 x)
    EXPECT_EQ(std::vector<Symbol>(gradients.symbols().begin(), gradients.symbols().end()),
              (std::vector<Symbol>{p0, p1, p2}));
    EXPECT_THROW((void)gradients.of(x), SymbolError);  // inputs have no slot
}

TEST(Backward, DifferentiatesASourceTargetToOne) {
    auto [network, w] =
        Tape<double>::record([](Tape<double>& tape) { return detach(tape.parameter(4.0)); });
    EXPECT_EQ(network.forward(network.parameters()).backward(w).of(w).scalar(), 1.0);
}

TEST(Backward, RecordsAdjointsThatNameTheTargetThenTheGradients) {
    Tape<double> tape;
    const auto w = tape.parameter(3.0);
    const auto b = tape.parameter(1.0);
    const auto x = tape.input(2.0);
    const auto loss = w * x + b;
    const Adjoints<double> adjoints = tape.differentiate(loss, {w, b, x});
    const std::vector<Symbol> roots = adjoints.roots();
    ASSERT_EQ(roots.size(), 4u);
    EXPECT_EQ(roots[0], loss.symbol());
    EXPECT_EQ(roots[1], adjoints.of(w));
    EXPECT_EQ(roots[2], adjoints.of(b));
    EXPECT_EQ(roots[3], adjoints.of(x));
    EXPECT_EQ(adjoints.target(), loss.symbol());
    const auto y = tape.input(0.0);
    EXPECT_THROW((void)adjoints.of(y), GradientError);
    const auto network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(network.parameters(), {{x, 5.0}});
    EXPECT_EQ(run.of(adjoints.of(w)).scalar(), 5.0);
    EXPECT_EQ(run.of(adjoints.of(b)).scalar(), 1.0);
    EXPECT_EQ(run.of(adjoints.of(x)).scalar(), 3.0);
}

TEST(Backward, RecordsZerosForAValueTheTargetDoesNotReach) {
    Tape<double> tape;
    const auto w = tape.parameter(3.0);
    const auto unused = tape.parameter(Tensor<double>::filled({2}, 1.0));
    const auto loss = w * w;
    const Adjoints<double> adjoints = tape.differentiate(loss, {unused, w});
    const auto network = std::move(tape).into_network();
    const topos::Run<double> run = network.forward(network.parameters());
    EXPECT_TRUE(bit_equal(run.of(adjoints.of(unused)), Tensor<double>::filled({2}, 0.0)));
    EXPECT_EQ(run.of(adjoints.of(w)).scalar(), 6.0);
}

TEST(Backward, RecordsAVectorJacobianProductForATargetOfAnyShape) {
    Tape<double> tape;
    const auto x = tape.parameter(Tensor<double>({3}, {1, 2, 3}));
    const auto y = x * x;  // dy/dx = diag(2 x)
    const auto seed = tape.input(Tensor<double>({3}, {1, 10, 100}));
    const Adjoints<double> adjoints = tape.vjp(y, seed, {x});
    const auto network = std::move(tape).into_network();
    EXPECT_EQ(network.forward(network.parameters()).of(adjoints.of(x)),
              (Tensor<double>({3}, {2, 40, 600})));
}

TEST(Backward, RejectsAVjpSeedOfAnotherShape) {
    Tape<double> tape;
    const auto x = tape.parameter(Tensor<double>({3}, {1, 2, 3}));
    const auto seed = tape.input(Tensor<double>::filled({2}, 1.0));
    EXPECT_THROW((void)tape.vjp(x * x, seed, {x}), GradientError);
}

TEST(Backward, SharesTheAdjointOfAMaximumEvenlyAmongTies) {
    auto [network, x, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto x = tape.parameter(Tensor<double>({2, 3}, {1, 3, 3, 5, 2, 4}));
        return detach(x, x.max(1).sum());
    });
    // Row 0 ties at 3: each copy gets half; row 1's maximum is unique.
    EXPECT_EQ(network.forward(network.parameters()).backward(loss).of(x),
              (Tensor<double>({2, 3}, {0, 0.5, 0.5, 1, 0, 0})));
}

TEST(Backward, RoutesTheAdjointOfASelectToTheChosenBranch) {
    auto [network, a, b, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto mask = tape.leaf(Tensor<double>({3}, {1, 0, 1}));
        const auto a = tape.parameter(Tensor<double>({3}, {1, 2, 3}));
        const auto b = tape.parameter(Tensor<double>({3}, {4, 5, 6}));
        const auto weights = tape.leaf(Tensor<double>({3}, {10, 20, 30}));
        return detach(a, b, (where(mask, a, b) * weights).sum());
    });
    const Field<double> field = network.forward(network.parameters()).backward(loss);
    EXPECT_EQ(field.of(a), (Tensor<double>({3}, {10, 0, 30})));
    EXPECT_EQ(field.of(b), (Tensor<double>({3}, {0, 20, 0})));
}

TEST(Backward, AccumulatesTheRowsAGatherPickedSeveralTimes) {
    auto [network, table, picks, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto table = tape.parameter(Tensor<double>({3, 2}, {1, 2, 3, 4, 5, 6}));
        const auto picks = tape.indices({3}, {2, 0, 2});
        return detach(table, picks, gather(table, picks).sum());
    });
    const Field<double> field = network.forward(network.parameters()).backward(loss);
    EXPECT_EQ(field.of(table), (Tensor<double>({3, 2}, {1, 1, 0, 0, 2, 2})));
    EXPECT_TRUE(bit_equal(field.of(picks), Tensor<double>::filled({3}, 0.0)));
}

TEST(Backward, GivesNoDerivativeThroughAbsAtZero) {
    auto [network, x, loss] = Tape<double>::record([](Tape<double>& tape) {
        const auto x = tape.parameter(Tensor<double>({3}, {-2, 0, 3}));
        return detach(x, x.abs().sum());
    });
    EXPECT_EQ(network.forward(network.parameters()).backward(loss).of(x),
              (Tensor<double>({3}, {-1, 0, 1})));
}

TEST(Backward, ReadsRecordedGradientsAsParametersForATrainingStep) {
    Tape<double> tape;
    const auto w = tape.parameter(0.5);
    const auto unused = tape.parameter(Tensor<double>::filled({2}, 1.0));
    const auto x = tape.input(2.0);
    const auto y = tape.input(4.0);
    const auto error = w * x - y;
    const auto loss = error * error;
    const Adjoints<double> adjoints = tape.differentiate(loss, {w});
    const Symbol ws = w;
    const Symbol unused_symbol = unused;
    const auto network = std::move(tape).into_network();
    const Parameters<double> parameters = network.parameters();
    const topos::Run<double> run = network.forward(parameters);
    const Parameters<double> gradients = run.recorded_gradients(adjoints);
    EXPECT_EQ(gradients.of(ws).scalar(), -12.0);
    EXPECT_TRUE(bit_equal(gradients.of(unused_symbol), Tensor<double>::filled({2}, 0.0)));
    EXPECT_TRUE(bit_equal(gradients.of(ws), run.backward(adjoints.target()).of(ws)));
    const Parameters<double> next =
        parameters.step(gradients, [](const Tensor<double>& p, const Tensor<double>& g) {
            return p - g * Tensor<double>(0.02);
        });
    EXPECT_EQ(next.of(ws).scalar(), 0.5 + 0.24);
}

TEST(Backward, DifferentiatesASumOverSeveralAxesOnTheTape) {
    // The derivative of a full sum repeats the adjoint over every axis; with
    // several axes the tape grows while the rule reads the operand's shape.
    Tape<double> tape;
    const auto x = tape.parameter(Tensor<double>::filled({2, 3, 4, 5}, 1.0));
    const auto loss = (x * x).sum();
    const Adjoints<double> adjoints = tape.differentiate(loss, {x});
    const auto network = std::move(tape).into_network();
    EXPECT_EQ(network.forward(network.parameters()).of(adjoints.of(x)),
              Tensor<double>::filled({2, 3, 4, 5}, 2.0));
}

template <class T>
class BothRoads : public ::testing::Test {};

using ElementTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BothRoads, ElementTypes);

// Tape::differentiate records the same operations the reverse scan performs,
// in the same order, so forwarding the recorded gradients gives the scan's bits.
TYPED_TEST(BothRoads, GiveBitIdenticalGradientsOnRandomGraphs) {
    using T = TypeParam;
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        Tape<T> tape;
        const test::RecordedGraph<T> graph = test::record_random_graph(tape, seed);
        std::vector<Symbol> wrt;
        for (const auto& value : graph.parameters) {
            wrt.push_back(value);
        }
        for (const auto& value : graph.inputs) {
            wrt.push_back(value);
        }
        for (std::size_t i = 0; i < graph.values.size(); i += 4) {
            wrt.push_back(graph.values[i]);
        }
        const Adjoints<T> adjoints = tape.differentiate(graph.loss, wrt);
        const Symbol loss = graph.loss;
        const std::vector<Symbol> inputs(graph.inputs.begin(), graph.inputs.end());
        const Network<T> network = std::move(tape).into_network();
        const Parameters<T> parameters = test::random_parameters(network, seed + 1000);
        const std::vector<Feed<T>> feeds = test::random_feeds(network, inputs, seed + 2000);
        const topos::Run<T> run = network.forward(parameters, feeds);
        const Field<T> field = run.backward(loss);
        for (const Symbol& value : wrt) {
            EXPECT_TRUE(bit_equal(run.of(adjoints.of(value)), field.of(value)))
                << "seed " << seed << ", node " << value.index() << " ("
                << network.node(value).opcode() << ")";
        }
    }
}

TYPED_TEST(BothRoads, GiveBitIdenticalResultsForTheSeedsExample) {
    using T = TypeParam;
    Tape<T> tape;
    const auto w = tape.parameter(T(0.5));
    const auto x = tape.input(T(2));
    const auto y = tape.input(T(4));
    const auto error = w * x - y;
    const auto loss = error * error;
    const Adjoints<T> adjoints = tape.differentiate(loss, {w, x, y});
    const auto network = std::move(tape).into_network();
    const topos::Run<T> run = network.forward(network.parameters());
    EXPECT_EQ(run.of(adjoints.of(w)).scalar(), T(-12));
    EXPECT_EQ(run.of(adjoints.of(x)).scalar(), T(-3));
    EXPECT_EQ(run.of(adjoints.of(y)).scalar(), T(6));
    EXPECT_TRUE(bit_equal(run.of(adjoints.of(w)), run.backward(loss).of(w)));
}

TEST(RandomGraphs, AreTheSameForTheSameSeed) {
    const auto a = test::random_graph<double>(42);
    const auto b = test::random_graph<double>(42);
    EXPECT_EQ(a.network.describe(), b.network.describe());
    const auto c = test::random_graph<double>(43);
    EXPECT_NE(a.network.describe(), c.network.describe());
}

TEST(RandomGraphs, MixTheOpCatalogAndEndInARankZeroLoss) {
    std::vector<bool> seen(opcode_count, false);
    for (std::uint64_t seed = 1; seed <= 30; ++seed) {
        const auto graph = test::random_graph<float>(seed);
        EXPECT_EQ(graph.network.node(graph.loss).shape(), Shape{});
        for (const Node& node : graph.network.nodes()) {
            seen[static_cast<std::size_t>(node.opcode())] = true;
            EXPECT_LE(node.shape().elements(), 64u) << node;
        }
        const topos::Run<float> run = graph.network.forward(graph.network.parameters());
        EXPECT_TRUE(std::isfinite(run.of(graph.loss).scalar())) << "seed " << seed;
    }
    // What the generator promises to mix (tests/support/random_graphs.hpp).
    for (const Opcode opcode :
         {Opcode::Parameter, Opcode::Input,   Opcode::Leaf,           Opcode::Add,    Opcode::Sub,
          Opcode::Mul,       Opcode::Div,     Opcode::Maximum,        Opcode::Neg,    Opcode::Exp,
          Opcode::Log,       Opcode::Tanh,    Opcode::Sigmoid,        Opcode::MatMul, Opcode::Sum,
          Opcode::Reshape,   Opcode::Permute, Opcode::BroadcastAlong, Opcode::Unfold, Opcode::Fold,
          Opcode::Narrow,    Opcode::Pad}) {
        EXPECT_TRUE(seen[static_cast<std::size_t>(opcode)]) << "no random graph used " << opcode;
    }
}

}  // namespace
}  // namespace topos
