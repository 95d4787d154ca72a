// THE gradient check, one instance per computed opcode (the table is
// tests/support/op_specs.cpp): on random shapes with size-1 axes, the reverse
// scan (Run::backward) and the recorded derivative (Tape::differentiate,
// forwarded) must both equal J^T w, where J is the full Jacobian of the op's
// output by central finite differences in double (4-point stencil) and w the
// random weights of the loss sum(out * w). Second order: the recorded gradient
// is differentiated again (a Hessian-vector product) and checked against
// central differences of the gradient, per opcode and for a small tanh MLP.
#include "support/bit_equal.hpp"
#include "support/finite_differences.hpp"
#include "support/op_specs.hpp"
#include "support/random_graphs.hpp"
#include <topos/autodiff/adjoints.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/run/run.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;
using test::near_relative;
using test::to_doubles;

constexpr std::uint64_t cases_per_opcode = 6;

std::string shapes_of(const std::vector<Value<double>>& values) {
    std::ostringstream out;
    for (const Value<double>& value : values) {
        out << value.shape() << ' ';
    }
    return out.str();
}

class GradientCheck : public ::testing::TestWithParam<Opcode> {
protected:
    const test::OpSpec& spec() const {
        const test::OpSpec* found = test::find_op_spec(GetParam());
        if (found == nullptr) {
            throw std::logic_error(
                "no test spec for this opcode; add one to tests/support/op_specs.cpp");
        }
        return *found;
    }
};

TEST_P(GradientCheck, ReverseScanAndRecordedDerivativeMatchFiniteDifferences) {
    const test::OpSpec& spec = this->spec();
    for (std::uint64_t seed = 1; seed <= cases_per_opcode; ++seed) {
        Tape<double> tape;
        test::Rng rng(seed);
        const test::OpCase recorded = spec.record(tape, rng);
        const Tensor<double> weights = rng.tensor<double>(recorded.output.shape(), -1.0, 1.0);
        const auto loss = (recorded.output * tape.leaf(weights)).sum();
        const std::vector<Symbol> operands(recorded.operands.begin(), recorded.operands.end());
        const Adjoints<double> adjoints = tape.differentiate(loss, operands);
        const Adjoints<double> discrete_adjoints = tape.differentiate(loss, recorded.discrete);
        SCOPED_TRACE("seed " + std::to_string(seed) + ", operand shapes " +
                     shapes_of(recorded.operands) + "\n" + tape.describe());
        const Symbol output = recorded.output;
        const Symbol loss_symbol = loss;
        const Network<double> network = std::move(tape).into_network();
        const Parameters<double> parameters = network.parameters();
        const topos::Run<double> run = network.forward(parameters);
        const Field<double> field = run.backward(loss_symbol);
        for (const Symbol& operand : operands) {
            const test::Jacobian jacobian =
                test::network_jacobian(network, parameters, {}, output, operand);
            const std::vector<double> expected = jacobian.transpose_times(to_doubles(weights));
            const Tensor<double> scanned = field.of(operand);
            const Tensor<double> recorded_gradient = run.of(adjoints.of(operand));
            EXPECT_EQ(scanned.shape(), network.node(operand).shape());
            EXPECT_TRUE(near_relative(to_doubles(scanned), expected, spec.tolerance))
                << "reverse scan, operand node " << operand.index();
            EXPECT_TRUE(near_relative(to_doubles(recorded_gradient), expected, spec.tolerance))
                << "recorded derivative, operand node " << operand.index();
            EXPECT_TRUE(bit_equal(recorded_gradient, scanned))
                << "operand node " << operand.index();
        }
        // Indices are discrete: no derivative reaches them on either road.
        for (const Value<double>& index : recorded.discrete) {
            const Tensor<double> zeros = Tensor<double>::filled(index.shape(), 0.0);
            EXPECT_TRUE(bit_equal(field.of(index), zeros)) << "index node " << index.index();
            EXPECT_TRUE(bit_equal(run.of(discrete_adjoints.of(index)), zeros))
                << "index node " << index.index();
        }
    }
}

// d/dt grad(x + t v) = H v: the gradient recorded on the tape is dotted with v
// and differentiated again, then compared with central differences of the
// gradient itself along v (moving every operand at once).
TEST_P(GradientCheck, SecondDerivativeMatchesFiniteDifferencesOfTheGradient) {
    const test::OpSpec& spec = this->spec();
    for (std::uint64_t seed = 1; seed <= cases_per_opcode; ++seed) {
        Tape<double> tape;
        test::Rng rng(seed + 100);
        const test::OpCase recorded = spec.record(tape, rng);
        const auto loss =
            (recorded.output * tape.leaf(rng.tensor<double>(recorded.output.shape(), -1.0, 1.0)))
                .sum();
        const std::vector<Symbol> operands(recorded.operands.begin(), recorded.operands.end());
        const Adjoints<double> first = tape.differentiate(loss, operands);
        std::vector<test::SourceValue> directions;
        std::vector<Symbol> gradients;
        Value<double> dot = tape.leaf(0.0);
        for (const Symbol& operand : operands) {
            const Value<double> gradient = tape.value(first.of(operand));
            const Tensor<double> direction = rng.tensor<double>(gradient.shape(), -1.0, 1.0);
            directions.push_back({operand, direction});
            gradients.push_back(gradient);
            dot = dot + (gradient * tape.leaf(direction)).sum();
        }
        const Adjoints<double> second = tape.differentiate(dot, operands);
        SCOPED_TRACE("seed " + std::to_string(seed) + ", operand shapes " +
                     shapes_of(recorded.operands));
        const Network<double> network = std::move(tape).into_network();
        const Parameters<double> parameters = network.parameters();
        const topos::Run<double> run = network.forward(parameters);
        std::vector<double> actual;
        for (const Symbol& operand : operands) {
            const auto hv = to_doubles(run.of(second.of(operand)));
            actual.insert(actual.end(), hv.begin(), hv.end());
        }
        const std::vector<double> expected =
            test::network_directional_derivative(network, parameters, {}, gradients, directions);
        EXPECT_TRUE(near_relative(actual, expected, spec.tolerance));
    }
}

// Over every computed opcode of the enum, not over the spec table: an opcode
// without a spec fails here (and in the op-table meta-test).
INSTANTIATE_TEST_SUITE_P(EveryComputedOpcode,
                         GradientCheck,
                         ::testing::ValuesIn(test::computed_opcodes()),
                         test::opcode_name);

TEST(GradientCheck, ReverseScanMatchesFiniteDifferencesOnRandomGraphs) {
    for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        const auto graph = test::random_graph<double>(seed);
        const Parameters<double> parameters = test::random_parameters(graph.network, seed);
        const std::vector<Feed<double>> feeds =
            test::random_feeds(graph.network, graph.inputs, seed);
        const Field<double> field = graph.network.forward(parameters, feeds).backward(graph.loss);
        std::vector<Symbol> sources = graph.parameters;
        sources.insert(sources.end(), graph.inputs.begin(), graph.inputs.end());
        for (const Symbol& source : sources) {
            const test::Jacobian jacobian =
                test::network_jacobian(graph.network, parameters, feeds, graph.loss, source);
            EXPECT_TRUE(near_relative(to_doubles(field.of(source)), jacobian.values, 1e-7))
                << "seed " << seed << ", source node " << source.index();
        }
    }
}

// A small tanh MLP: loss = sum((tanh(x W1 + b1) W2 - t)^2).
struct TanhMlp {
    Tape<double> tape;
    Value<double> w1;
    Value<double> b1;
    Value<double> w2;
    Value<double> loss;
};

TanhMlp record_mlp(test::Rng& rng) {
    Tape<double> tape;
    const auto x = tape.input(rng.tensor<double>({4, 3}, -1.0, 1.0));
    const auto target = tape.input(rng.tensor<double>({4, 2}, -1.0, 1.0));
    const auto w1 = tape.parameter(rng.tensor<double>({3, 5}, -1.0, 1.0));
    const auto b1 = tape.parameter(rng.tensor<double>({5}, -0.5, 0.5));
    const auto w2 = tape.parameter(rng.tensor<double>({5, 2}, -1.0, 1.0));
    const auto error = (x.matmul(w1) + b1).tanh().matmul(w2) - target;
    const auto loss = (error * error).sum();
    return {std::move(tape), w1, b1, w2, loss};
}

TEST(SecondOrder, HessianVectorProductsOfATanhMlpMatchFiniteDifferences) {
    test::Rng rng(2024);
    TanhMlp mlp = record_mlp(rng);
    Tape<double>& tape = mlp.tape;
    const std::vector<Symbol> weights{mlp.w1, mlp.b1, mlp.w2};
    const Adjoints<double> gradient = tape.differentiate(mlp.loss, weights);

    // Road 1: differentiate the gradient's dot product with v.
    // Road 2: tape.vjp of each gradient with v as the seed (H is symmetric).
    std::vector<test::SourceValue> directions;
    std::vector<Symbol> gradients;
    Value<double> dot = tape.leaf(0.0);
    std::vector<Adjoints<double>> vjps;
    for (const Symbol& weight : weights) {
        const Value<double> g = tape.value(gradient.of(weight));
        const Tensor<double> v = rng.tensor<double>(g.shape(), -1.0, 1.0);
        const Value<double> seed = tape.leaf(v);
        directions.push_back({weight, v});
        gradients.push_back(g);
        dot = dot + (g * seed).sum();
        vjps.push_back(tape.vjp(g, seed, weights));
    }
    const Adjoints<double> hessian_v = tape.differentiate(dot, weights);
    const Network<double> network = std::move(tape).into_network();
    const Parameters<double> parameters = network.parameters();
    const topos::Run<double> run = network.forward(parameters);

    const std::vector<double> expected =
        test::network_directional_derivative(network, parameters, {}, gradients, directions);
    std::vector<double> by_dot;
    std::vector<double> by_vjp;
    for (const Symbol& weight : weights) {
        const auto part = to_doubles(run.of(hessian_v.of(weight)));
        by_dot.insert(by_dot.end(), part.begin(), part.end());
        // (H v)_weight = sum over blocks j of v_j^T d g_j / d weight.
        Tensor<double> total = Tensor<double>::filled(network.node(weight).shape(), 0.0);
        for (const Adjoints<double>& vjp : vjps) {
            total = total + run.of(vjp.of(weight));
        }
        const auto summed = to_doubles(total);
        by_vjp.insert(by_vjp.end(), summed.begin(), summed.end());
    }
    EXPECT_TRUE(near_relative(by_dot, expected, 1e-7));
    EXPECT_TRUE(near_relative(by_vjp, expected, 1e-7));
}

// The finite differences themselves: exact on polynomials of low degree.
TEST(FiniteDifferences, AreExactForCubicsWithTheFourPointStencil) {
    const auto cubic = [](double t) {
        return std::vector<double>{1.0 + t * (2.0 + t * (3.0 + t * 4.0))};
    };
    EXPECT_NEAR(test::central_difference(cubic)[0], 2.0, 1e-12);
    EXPECT_NEAR(test::central_difference(cubic, {1e-3, test::Stencil::TwoPoint})[0], 2.0, 1e-5);
    EXPECT_GT(std::abs(test::central_difference(cubic, {1e-1, test::Stencil::TwoPoint})[0] - 2.0),
              1e-3);
}

TEST(FiniteDifferences, BuildFullJacobians) {
    const test::Jacobian j = test::jacobian(
        [](std::span<const double> p) {
            return std::vector<double>{p[0] * p[1], p[0] + 3 * p[1], p[1] * p[1]};
        },
        std::vector<double>{2.0, 5.0});
    ASSERT_EQ(j.rows, 3u);
    ASSERT_EQ(j.columns, 2u);
    EXPECT_NEAR(j(0, 0), 5.0, 1e-10);
    EXPECT_NEAR(j(0, 1), 2.0, 1e-10);
    EXPECT_NEAR(j(1, 0), 1.0, 1e-10);
    EXPECT_NEAR(j(1, 1), 3.0, 1e-10);
    EXPECT_NEAR(j(2, 0), 0.0, 1e-10);
    EXPECT_NEAR(j(2, 1), 10.0, 1e-10);
    const std::vector<double> w{1.0, 2.0, 3.0};
    const std::vector<double> jtw = j.transpose_times(w);
    EXPECT_NEAR(jtw[0], 7.0, 1e-9);
    EXPECT_NEAR(jtw[1], 38.0, 1e-9);
}

TEST(FiniteDifferences, CompareByRelativeErrorInTheMaximumNorm) {
    EXPECT_EQ(test::relative_error(std::vector<double>{0, 0}, std::vector<double>{0, 0}), 0.0);
    EXPECT_DOUBLE_EQ(
        test::relative_error(std::vector<double>{1.0, 101.0}, std::vector<double>{1.0, 100.0}),
        1.0 / 101.0);
    EXPECT_FALSE(near_relative(std::vector<double>{1.0}, std::vector<double>{1.1}, 1e-7));
    EXPECT_FALSE(near_relative(std::vector<double>{1.0}, std::vector<double>{1.0, 2.0}, 1e-7));
    EXPECT_TRUE(
        near_relative(std::vector<double>{1.0, 2.0}, std::vector<double>{1.0, 2.0 + 1e-12}, 1e-7));
    EXPECT_FALSE(near_relative(std::vector<double>{std::nan("")}, std::vector<double>{1.0}, 1e-7));
}

}  // namespace
}  // namespace topos
