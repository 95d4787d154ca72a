// A timed backend (Server::timed) takes a Fast plan's step only where it ran
// the step's shapes faster than the reference kernel in a trial
// (plan/timed_election.hpp); a trial runs once a process per shape.
#include "plan/timed_election.hpp"

#include "plan/plan_state.hpp"
#include <topos/config.hpp>
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <vector>

namespace topos {
namespace {

using detail::NodeView;
using detail::Server;
using detail::View;

// A [rows, depth] x [depth, 256] product's plan under Fast.
struct Product {
    Network<float> network;
    Plan<float> plan;
};

Product product_of(std::size_t rows, std::size_t depth) {
    Tape<float> tape;
    auto a = tape.input(init::normal(1, 1.0)(Shape{rows, depth}));
    auto b = tape.parameter(init::normal(2, 1.0)(Shape{depth, 256}));
    auto product = a.matmul(b);
    Network<float> network = std::move(tape).into_network();
    Plan<float> plan = network.entry({product.symbol()}).numerics(Numerics::Fast).lower();
    return {std::move(network), std::move(plan)};
}

// The plan's MatMul node and its operands' shapes.
struct MatMulNode {
    const Node* node = nullptr;
    std::vector<Shape> operands;
};

MatMulNode matmul_of(const Plan<float>& plan) {
    const std::vector<Node>& nodes = detail::PlanAccess::state(plan).graph_nodes();
    MatMulNode found;
    for (const Node& node : nodes) {
        if (node.opcode() == Opcode::MatMul) {
            found.node = &node;
            for (const std::uint32_t operand : node.operands()) {
                found.operands.push_back(nodes[operand].shape());
            }
        }
    }
    return found;
}

std::atomic<int> kernel_runs{0};

// No work at all: faster than any product.
void writes_zeros(const NodeView& node, std::span<const View<float>>, float* out) {
    ++kernel_runs;
    std::fill_n(out, node.shape().elements(), 0.0F);
}

// The reference product, twice over: slower than the reference.
void products_twice(const NodeView& node, std::span<const View<float>> operands, float* out) {
    ++kernel_runs;
    const auto product = detail::op_info(Opcode::MatMul).kernel<float>();
    product(node, operands, out);
    product(node, operands, out);
}

Server timed_server(std::string_view name, detail::Kernel<float> kernel) {
    return {.name = name,
            .fidelity = Fidelity::Reordered,
            .formulas = {"MatMul"},
            .serves = nullptr,
            .kernel_f32 = kernel,
            .kernel_f64 = nullptr,
            .timed = true};
}

TEST(TimedElection, AServerFasterThanTheReferenceWinsItsTrial) {
    const Product p = product_of(256, 256);
    const MatMulNode matmul = matmul_of(p.plan);
    ASSERT_NE(matmul.node, nullptr);
    const Server server = timed_server("writes zeros", writes_zeros);
    EXPECT_TRUE(detail::wins_timed_trial<float>(server, *matmul.node, matmul.operands));
}

TEST(TimedElection, AServerSlowerThanTheReferenceLosesItsTrial) {
    const Product p = product_of(256, 256);
    const MatMulNode matmul = matmul_of(p.plan);
    ASSERT_NE(matmul.node, nullptr);
    const Server server = timed_server("products twice", products_twice);
    EXPECT_FALSE(detail::wins_timed_trial<float>(server, *matmul.node, matmul.operands));
}

TEST(TimedElection, AShapeIsTimedOnceAProcess) {
    const Server server = timed_server("counts its runs", writes_zeros);
    const Product first = product_of(64, 96);
    const MatMulNode matmul = matmul_of(first.plan);
    ASSERT_NE(matmul.node, nullptr);
    kernel_runs = 0;
    EXPECT_TRUE(detail::wins_timed_trial<float>(server, *matmul.node, matmul.operands));
    const int runs_of_a_trial = kernel_runs;
    EXPECT_GT(runs_of_a_trial, 1);
    EXPECT_TRUE(detail::wins_timed_trial<float>(server, *matmul.node, matmul.operands));
    EXPECT_EQ(kernel_runs, runs_of_a_trial);
    const Product other = product_of(65, 96);
    const MatMulNode other_matmul = matmul_of(other.plan);
    EXPECT_TRUE(detail::wins_timed_trial<float>(server, *other_matmul.node, other_matmul.operands));
    EXPECT_EQ(kernel_runs, 2 * runs_of_a_trial);
}

TEST(TimedElection, AFastPlanGivesOpenBlasTheProductsItWon) {
    if (TOPOS_HAS_BLAS == 0) {
        GTEST_SKIP() << "this build has no BLAS backend (TOPOS_ENABLE_BLAS)";
    }
    const auto all = detail::servers();
    const auto blas = std::find_if(
        all.begin(), all.end(), [](const Server* server) { return server->name == "openblas"; });
    ASSERT_NE(blas, all.end());
    for (const std::size_t rows : {8, 512}) {
        const Product p = product_of(rows, 512);
        const MatMulNode matmul = matmul_of(p.plan);
        const bool won = detail::wins_timed_trial<float>(**blas, *matmul.node, matmul.operands);
        const Tally tally = Backend::tallied([&] { (void)p.plan.forward(p.network.parameters()); });
        EXPECT_EQ(tally.count("MatMul", "openblas"), won ? 1U : 0U) << rows << " rows\n" << tally;
    }
}

}  // namespace
}  // namespace topos
