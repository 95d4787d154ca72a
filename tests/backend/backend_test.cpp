// Backends as data: who served which formula is run-time data (the tally); an
// Exact plan is served only bit-identically; a Fast plan may be served by a
// reordering backend, within the formula's documented tolerance.
#include "support/bit_equal.hpp"
#include <topos/config.hpp>
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace topos {
namespace {

using test::bit_equal;

struct Product {
    Network<float> network;
    Symbol product;
    Symbol loss;
    Tensor<float> a;
    Tensor<float> b;
};

// A [96, 80] x [80, 72] product (above the BLAS backend's size floor), then tanh and a sum.
Product large_product() {
    Tape<float> tape;
    const Tensor<float> a = init::normal(1, 1.0)(Shape{96, 80});
    const Tensor<float> b = init::normal(2, 1.0)(Shape{80, 72});
    auto left = tape.input(a);
    auto right = tape.parameter(b);
    auto product = left.matmul(right);
    auto loss = product.tanh().sum();
    return {std::move(tape).into_network(), product, loss, a, b};
}

TEST(Backend, TheReferenceIsAlwaysAvailableAndListedFirst) {
    const std::vector<BackendInfo> backends = Backend::available();
    ASSERT_FALSE(backends.empty());
    EXPECT_EQ(backends[0].name, "reference");
    EXPECT_EQ(backends[0].fidelity, Fidelity::Exact);
    const bool has_blas = std::any_of(backends.begin(), backends.end(), [](const BackendInfo& b) {
        return b.name == "openblas";
    });
    EXPECT_EQ(has_blas, TOPOS_HAS_BLAS == 1);
}

TEST(Backend, AnExactPlansTallyShowsOnlyBitIdenticalServers) {
    const Product p = large_product();
    const auto plan = p.network.entry({p.loss}).numerics(Numerics::Exact).lower();
    const Tally tally = Backend::tallied([&] { plan.forward(p.network.parameters()); });
    ASSERT_FALSE(tally.services().empty());
    for (const Service& service : tally.services()) {
        EXPECT_EQ(service.fidelity, Fidelity::Exact) << tally;
        EXPECT_EQ(service.precision, Precision::F32);
    }
    EXPECT_EQ(tally.count("MatMul", "reference"), 1u) << tally;
    EXPECT_EQ(tally.count("Tanh", "reference"), 1u) << tally;
}

TEST(Backend, TalliesCountEveryRunInsideTheRegionAndNest) {
    const Product p = large_product();
    const auto plan = p.network.entry({p.loss}).numerics(Numerics::Exact).lower();
    Tally inner;
    const Tally outer = Backend::tallied([&] {
        plan.forward(p.network.parameters());
        inner = Backend::tallied([&] { plan.forward(p.network.parameters()); });
        plan.forward(p.network.parameters());
    });
    EXPECT_EQ(outer.count("MatMul", "reference"), 2u);
    EXPECT_EQ(inner.count("MatMul", "reference"), 1u);
    const Tally after = Backend::tallied([] {});
    EXPECT_TRUE(after.services().empty());
}

TEST(Backend, ElectedPatternsAreTalliedByFormula) {
    Tape<double> tape;
    auto image = tape.input(init::normal(1, 1.0)(Shape{1, 1, 6, 6}));
    auto filters = tape.parameter(init::normal(2, 0.3)(Shape{2, 1, 3, 3}));
    auto bias = tape.parameter(Tensor<double>::filled(Shape{2}, 0.0));
    auto loss = max_pool(conv2d(image, filters, bias).relu(), 2, 2).sum();
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({loss}).lower();
    const Tally tally = Backend::tallied([&] { plan.forward(network.parameters()); });
    EXPECT_EQ(tally.count("WindowProduct", "reference"), 1u) << tally;
    EXPECT_EQ(tally.count("ReduceWindow", "reference"), 1u) << tally;
    EXPECT_EQ(tally.count("MatMul", "reference"), 0u) << tally;
}

// The Fast road's tolerance for MatMul: every output within 2 k eps
// sum_p |a_ip b_pj| of the exact product.
TEST(Backend, AFastPlanStaysWithinTheProductsTolerance) {
    const Product p = large_product();
    const auto fast = p.network.entry({p.product}).numerics(Numerics::Fast).lower();
    const auto exact = p.network.entry({p.product}).numerics(Numerics::Exact).lower();
    Tensor<float> fast_product;
    const Tally tally = Backend::tallied(
        [&] { fast_product = fast.forward(p.network.parameters()).of(p.product); });
    const Tensor<float> exact_product = exact.forward(p.network.parameters()).of(p.product);
    // OpenBLAS serves the product where it won its timed trial (timed_election_test).
    EXPECT_LE(tally.count("MatMul", "openblas"), TOPOS_HAS_BLAS == 1 ? 1u : 0u) << tally;
    const std::size_t k = 80, n = 72;
    const double eps = std::numeric_limits<float>::epsilon();
    for (std::size_t i = 0; i < 96; ++i) {
        for (std::size_t j = 0; j < n; ++j) {
            double magnitude = 0;
            for (std::size_t q = 0; q < k; ++q) {
                magnitude +=
                    std::abs(double(p.a.data()[i * k + q]) * double(p.b.data()[q * n + j]));
            }
            const double difference = std::abs(double(fast_product.data()[i * n + j]) -
                                               double(exact_product.data()[i * n + j]));
            EXPECT_LE(difference, 2 * double(k) * eps * magnitude) << i << ", " << j;
        }
    }
    // Served only by exact servers (no backend, or a CUDA build without a device): the same bits.
    const bool reordered =
        std::any_of(tally.services().begin(), tally.services().end(), [](const Service& s) {
            return s.fidelity == Fidelity::Reordered;
        });
    if (!reordered) {
        EXPECT_TRUE(bit_equal(fast_product, exact_product));
    }
}

}  // namespace
}  // namespace topos
