// bf16 matrix products in networks. The interpreter and Exact plans give the
// bits of the bf16 contract's previous road (widened_kernel: the float kernel
// on widened operands, rounded once), now computed by the exact bf16 GEMM.
// The bf16 dot backend (TOPOS_ENABLE_BF16_DOT) serves Fast plans' bf16
// products where the processor has AVX512_BF16 and the instruction set is not
// capped below AVX-512, within its documented bound, and says so in the
// tally; elsewhere, and for float products, it declines.
#include "kernels/gemm_bf16.hpp"
#include "ops/op_info.hpp"
#include "support/bit_equal.hpp"
#include <topos/config.hpp>
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace topos {
namespace {
namespace bf16_matmul_test {  // apart from the other tests of a unity build

using test::bit_equal;

constexpr bool has_bf16_dot = TOPOS_HAS_BF16_DOT == 1;

struct Bf16Product {
    Network<bf16> network;
    Symbol product;
    Tensor<bf16> a;
    Tensor<bf16> b;
};

// A batched [3, 40, 67] x [3, 67, 29] product: an odd depth (a half-empty k
// pair) and edge tiles.
Bf16Product batched_product() {
    const Tensor<bf16> a = Tensor<float>(init::normal(1, 1.0)(Shape{3, 40, 67})).convert<bf16>();
    const Tensor<bf16> b = Tensor<float>(init::normal(2, 1.0)(Shape{3, 67, 29})).convert<bf16>();
    Tape<bf16> tape;
    auto left = tape.input(a);
    auto right = tape.parameter(b);
    const Symbol product = left.matmul(right);
    return {std::move(tape).into_network(), product, a, b};
}

// The product by the contract's previous road: widened_kernel.
Tensor<bf16> widened_product(const Bf16Product& p) {
    const Shape shape{3, 40, 29};
    const Attributes none = NoAttributes{};
    const detail::View<bf16> operands[] = {{p.a.data().data(), &p.a.shape()},
                                           {p.b.data().data(), &p.b.shape()}};
    std::vector<bf16> out(shape.elements());
    detail::widened_kernel(detail::NodeView(Opcode::MatMul, none, shape), operands, out.data());
    return Tensor<bf16>(shape, out);
}

// Each output within the dot backend's bound of the exact sum (in double):
// gamma_k sum |a_p b_p| before the final rounding, then 2^-8 of the result.
::testing::AssertionResult within_dot_bound(const Bf16Product& p, const Tensor<bf16>& result) {
    const std::size_t batches = 3, m = 40, k = 67, n = 29;
    const double unit = std::ldexp(1.0, -24);
    const double gamma = k * unit / (1 - k * unit) + 1e-15;  // plus the double sum's error
    for (std::size_t batch = 0; batch < batches; ++batch) {
        for (std::size_t i = 0; i < m; ++i) {
            for (std::size_t j = 0; j < n; ++j) {
                double sum = 0;
                double magnitude = 0;
                for (std::size_t q = 0; q < k; ++q) {
                    const double term = double(p.a.data()[(batch * m + i) * k + q]) *
                                        double(p.b.data()[(batch * k + q) * n + j]);
                    sum += term;
                    magnitude += std::abs(term);
                }
                const double value = double(result.data()[(batch * m + i) * n + j]);
                const double bound = gamma * magnitude + std::ldexp(std::abs(value), -8);
                if (!(std::abs(value - sum) <= bound)) {
                    return ::testing::AssertionFailure()
                           << "output (" << batch << ", " << i << ", " << j << ") is " << value
                           << ", the exact sum " << sum << ", beyond the bound " << bound;
                }
            }
        }
    }
    return ::testing::AssertionSuccess();
}

// Whether the dot backend serves Fast bf16 products in this build, here, now.
bool dot_backend_runs() {
    return has_bf16_dot && detail::runs_avx512_bf16();
}

TEST(Bf16MatMul, InterpreterAndExactPlanGiveTheWidenedFloatKernelsBits) {
    const Bf16Product p = batched_product();
    const Tensor<bf16> widened = widened_product(p);
    const Tensor<bf16> interpreted = p.network.forward(p.network.parameters()).of(p.product);
    const auto plan = p.network.entry({p.product}).numerics(Numerics::Exact).lower();
    Tensor<bf16> planned;
    const Tally tally =
        Backend::tallied([&] { planned = plan.forward(p.network.parameters()).of(p.product); });
    EXPECT_TRUE(bit_equal(interpreted, widened));
    EXPECT_TRUE(bit_equal(planned, widened));
    EXPECT_EQ(tally.count("MatMul", "reference"), 1U) << tally;
}

TEST(Bf16MatMul, AFastPlanStaysWithinTheDotBoundAndNamesWhoServedIt) {
    const Bf16Product p = batched_product();
    const auto plan = p.network.entry({p.product}).numerics(Numerics::Fast).lower();
    Tensor<bf16> fast;
    const Tally tally =
        Backend::tallied([&] { fast = plan.forward(p.network.parameters()).of(p.product); });
    if (!dot_backend_runs()) {
        EXPECT_EQ(tally.count("MatMul", "reference"), 1U) << tally;
        EXPECT_TRUE(bit_equal(fast, widened_product(p)));
        return;
    }
    EXPECT_EQ(tally.count("MatMul", "bf16-dot"), 1U) << tally;
    ASSERT_EQ(tally.services().size(), 1U) << tally;
    EXPECT_EQ(tally.services()[0].precision, Precision::BF16);
    EXPECT_EQ(tally.services()[0].fidelity, Fidelity::Reordered);
    EXPECT_TRUE(within_dot_bound(p, fast));
}

// A cap below AVX-512 (set_max_isa, TOPOS_MAX_ISA) leaves the product to the
// exact kernel: the plan lowered under the cap runs the reference.
TEST(Bf16MatMul, AFastPlanLoweredUnderAnAvx2CapRunsTheExactKernel) {
    const Isa before = isa();
    set_max_isa(Isa::Avx2);
    const Bf16Product p = batched_product();
    const auto plan = p.network.entry({p.product}).numerics(Numerics::Fast).lower();
    Tensor<bf16> fast;
    const Tally tally =
        Backend::tallied([&] { fast = plan.forward(p.network.parameters()).of(p.product); });
    set_max_isa(before);
    EXPECT_EQ(tally.count("MatMul", "bf16-dot"), 0U) << tally;
    EXPECT_TRUE(bit_equal(fast, widened_product(p)));
}

TEST(Bf16MatMul, TheDotBackendLeavesFloatProductsAlone) {
    Tape<float> tape;
    auto left = tape.input(init::normal(1, 1.0)(Shape{40, 67}));
    auto right = tape.parameter(init::normal(2, 1.0)(Shape{67, 29}));
    const Symbol product = left.matmul(right);
    const Network<float> network = std::move(tape).into_network();
    const auto plan = network.entry({product}).numerics(Numerics::Fast).lower();
    const Tally tally = Backend::tallied([&] { (void)plan.forward(network.parameters()); });
    EXPECT_EQ(tally.count("MatMul", "bf16-dot"), 0U) << tally;
}

TEST(Bf16MatMul, TheDotBackendIsListedAsReorderedWhereCompiledIn) {
    const std::vector<BackendInfo> backends = Backend::available();
    const auto dot = std::find_if(backends.begin(), backends.end(), [](const BackendInfo& b) {
        return b.name == "bf16-dot";
    });
    ASSERT_EQ(dot != backends.end(), has_bf16_dot);
    if (has_bf16_dot) {
        EXPECT_EQ(dot->fidelity, Fidelity::Reordered);
        EXPECT_EQ(dot->formulas, std::vector<std::string>{"MatMul"});
    }
}

}  // namespace bf16_matmul_test
}  // namespace
}  // namespace topos
