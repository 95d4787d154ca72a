// The CUDA backend (built with TOPOS_ENABLE_CUDA; label `gpu`). On a device,
// Fast plans served by it are compared with the Exact plan, formula by
// formula, within the tolerances of docs/guide/backends.md:
//   products:  |fast - exact| <= 2 k eps sum_p |a_ip b_pj|
//   sums:      |fast - exact| <= 2 n eps sum |x|
//   LogSoftmax:|fast - exact| <= 2 (n + 4) eps (max |x| + |log n| + 1)
//   transcendentals (Exp, Expm1, Log, Log1p, Sin, Cos, Tanh, Sigmoid): a few ulps
//   correctly rounded operations, Max, comparisons and layouts: the same bits.
// Small nodes stay on the reference (the backend's size floors), so the
// shapes here are above them. Without a device each test skips, except those that check the machine
// without one falls back to the reference, and the one that loads cuBLAS
// (which is not linked: cublas_library.hpp).
#include "backend/cuda/cublas_library.hpp"
#include "backend/cuda/device.hpp"
#include "backend/cuda/device_kernels.hpp"
#include "ops/op_info.hpp"
#include "support/bit_equal.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <dlfcn.h>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;

#define SKIP_WITHOUT_DEVICE()                                             \
    if (!detail::cuda::device_present()) {                                \
        GTEST_SKIP() << "no CUDA device on this machine: nothing to run"; \
    }

constexpr double transcendental_ulps = 4;
constexpr double sigmoid_ulps = 6;  // exp, an addition and a division (Sigmoid, Silu)

template <Element T>
constexpr double eps = std::numeric_limits<T>::epsilon();

template <Element T>
struct Outcome {
    std::vector<Tensor<T>> fast;
    std::vector<Tensor<T>> exact;
    Tally tally;  // of the fast run
};

// The values `roots` from a Fast plan (unfused unless `elect`) and from an Exact one.
template <Element T>
Outcome<T> run_both(const Network<T>& network,
                    const std::vector<Symbol>& roots,
                    bool elect = false) {
    const auto fast = network.entry(roots).numerics(Numerics::Fast).elect_patterns(elect).lower();
    const auto exact = network.entry(roots).numerics(Numerics::Exact).lower();
    Outcome<T> outcome;
    std::optional<Run<T>> fast_run;
    outcome.tally = Backend::tallied([&] { fast_run = fast.forward(network.parameters()); });
    const Run<T> exact_run = exact.forward(network.parameters());
    for (const Symbol& root : roots) {
        outcome.fast.push_back(fast_run->of(root));
        outcome.exact.push_back(exact_run.of(root));
    }
    return outcome;
}

// Every element within `bound(i)` of the exact value.
template <Element T>
::testing::AssertionResult within(const Tensor<T>& fast,
                                  const Tensor<T>& exact,
                                  const std::function<double(std::size_t)>& bound) {
    if (!(fast.shape() == exact.shape())) {
        return ::testing::AssertionFailure() << "shapes differ";
    }
    for (std::size_t i = 0; i < exact.data().size(); ++i) {
        const double difference = std::abs(double(fast.data()[i]) - double(exact.data()[i]));
        if (!(difference <= bound(i))) {
            return ::testing::AssertionFailure()
                   << "element " << i << ": fast " << fast.data()[i] << ", exact "
                   << exact.data()[i] << ", bound " << bound(i);
        }
    }
    return ::testing::AssertionSuccess();
}

// Within `ulps` units in the last place of the exact value (denormals absolute).
template <Element T>
::testing::AssertionResult within_ulps(const Tensor<T>& fast, const Tensor<T>& exact, double ulps) {
    return within(fast, exact, [&](std::size_t i) {
        const double magnitude =
            std::max(std::abs(double(exact.data()[i])), double(std::numeric_limits<T>::min()));
        return ulps * eps<T> * magnitude;
    });
}

template <Element T>
Tensor<T> normal(std::uint64_t seed, double stddev, const Shape& shape) {
    const Tensor<T> values = init::normal(seed, stddev)(shape);
    return values;
}

// Positive values in [0.25, 4.25): every unary operation is defined on them.
template <Element T>
Tensor<T> positive(std::uint64_t seed, const Shape& shape) {
    const Tensor<T> noise = init::uniform(seed, 0.0, 4.0)(shape);
    return Tensor<T>::generate(shape, [&](std::span<T> values) {
        for (std::size_t i = 0; i < values.size(); ++i) {
            values[i] = noise.data()[i] + T(0.25);
        }
    });
}

template <Element T>
void check_product(const Shape& a_shape, const Shape& b_shape) {
    Tape<T> tape;
    const Tensor<T> a = normal<T>(3, 1.0, a_shape);
    const Tensor<T> b = normal<T>(4, 1.0, b_shape);
    const auto product = tape.input(a).matmul(tape.parameter(b));
    const auto network = std::move(tape).into_network();
    const Outcome<T> outcome = run_both<T>(network, {product});
    EXPECT_EQ(outcome.tally.count("MatMul", "cuda"), 1u) << outcome.tally;
    const std::size_t r = a_shape.rank();
    const std::size_t m = a_shape[r - 2], k = a_shape[r - 1], n = b_shape[r - 1];
    EXPECT_TRUE(within(outcome.fast[0], outcome.exact[0], [&](std::size_t index) {
        const std::size_t batch = index / (m * n), i = index / n % m, j = index % n;
        double magnitude = 0;
        for (std::size_t p = 0; p < k; ++p) {
            magnitude += std::abs(double(a.data()[(batch * m + i) * k + p]) *
                                  double(b.data()[(batch * k + p) * n + j]));
        }
        return 2 * double(k) * eps<T> * magnitude;
    }));
}

TEST(CudaBackend, IsListedAsAReorderingBackendWhenCompiledIn) {
    const std::vector<BackendInfo> backends = Backend::available();
    const auto cuda = std::find_if(
        backends.begin(), backends.end(), [](const BackendInfo& b) { return b.name == "cuda"; });
    ASSERT_NE(cuda, backends.end());
    EXPECT_EQ(cuda->fidelity, Fidelity::Reordered);
    for (const char* formula : {"MatMul", "Add", "Tanh", "Sum", "LogSoftmax", "Permute"}) {
        EXPECT_NE(std::find(cuda->formulas.begin(), cuda->formulas.end(), formula),
                  cuda->formulas.end())
            << formula;
    }
}

// The served opcodes come from the op table: every elementwise row with a
// device formula (one or two operands, no attributes), never a row without.
TEST(CudaBackend, ServesTheElementwiseRowsItHasFormulasFor) {
    const std::vector<BackendInfo> backends = Backend::available();
    const auto cuda = std::find_if(
        backends.begin(), backends.end(), [](const BackendInfo& b) { return b.name == "cuda"; });
    ASSERT_NE(cuda, backends.end());
    for (std::size_t i = 0; i < opcode_count; ++i) {
        const auto opcode = static_cast<Opcode>(i);
        const detail::OpInfo& row = detail::op_info(opcode);
        const bool listed =
            std::find(cuda->formulas.begin(), cuda->formulas.end(), std::string(name_of(opcode))) !=
            cuda->formulas.end();
        if (detail::cuda::has_device_formula(opcode)) {
            EXPECT_EQ(row.kind, detail::OpKind::Elementwise) << opcode;
            EXPECT_LE(row.arity, 2u) << opcode;
            EXPECT_TRUE(listed) << opcode;
        }
        if (row.kind == detail::OpKind::Elementwise && opcode != Opcode::Compare &&
            opcode != Opcode::Select) {
            EXPECT_EQ(listed, detail::cuda::has_device_formula(opcode)) << opcode;
        }
    }
}

TEST(CudaBackend, WithoutADeviceAFastPlanRunsOnTheReference) {
    if (detail::cuda::device_present()) {
        GTEST_SKIP() << "a CUDA device is present: the fallback is not taken";
    }
    Tape<float> tape;
    const auto x = tape.input(normal<float>(1, 1.0, Shape{96, 80}));
    const auto y = x.matmul(tape.parameter(normal<float>(2, 1.0, Shape{80, 72}))).tanh();
    const auto network = std::move(tape).into_network();
    const Outcome<float> outcome = run_both<float>(network, {y});
    EXPECT_EQ(outcome.tally.count("MatMul", "cuda"), 0u) << outcome.tally;
    EXPECT_EQ(outcome.tally.count("Tanh", "cuda"), 0u) << outcome.tally;
    EXPECT_TRUE(bit_equal(outcome.fast[0], outcome.exact[0]) || TOPOS_HAS_BLAS == 1);
}

std::string cublas_soname() {
    return "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR);
}

bool cublas_loaded() {
    void* const handle = dlopen(cublas_soname().c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (handle != nullptr) {
        dlclose(handle);
    }
    return handle != nullptr;
}

// Whether cuBLAS was in this process before main: the libraries linked and
// their initialisers have run by the time this one does.
const bool cublas_loaded_at_start_up = cublas_loaded();

TEST(CudaBackend, LoadsCublasAtItsFirstUseNotAtStartUp) {
    // Linked, cuBLAS's initialisers cost every process about 0.4 s at start-up.
    EXPECT_FALSE(cublas_loaded_at_start_up) << cublas_soname() << " is linked";
    const detail::cuda::CublasLibrary& cublas = detail::cuda::cublas_library();
    // Its words vary by version ("success" in cuBLAS 13); only that there are some.
    const char* const success = cublas.status_string(CUBLAS_STATUS_SUCCESS);
    ASSERT_NE(success, nullptr);
    EXPECT_NE(std::string(success), "");
    EXPECT_TRUE(cublas_loaded());
}

TEST(CudaBackend, AnExactPlanIsNeverServedByIt) {
    Tape<double> tape;
    const auto x = tape.input(normal<double>(1, 1.0, Shape{16, 8}));
    const auto y = x.matmul(x.transpose()).exp().sum();
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry({y}).numerics(Numerics::Exact).lower();
    const Tally tally = Backend::tallied([&] { plan.forward(network.parameters()); });
    for (const Service& service : tally.services()) {
        EXPECT_NE(service.backend, "cuda") << tally;
    }
}

TEST(CudaBackend, ProductsStayWithinTheirTolerance) {
    SKIP_WITHOUT_DEVICE();
    check_product<float>(Shape{96, 80}, Shape{80, 72});
    check_product<double>(Shape{130, 70}, Shape{70, 65});
    check_product<float>(Shape{4, 40, 48}, Shape{4, 48, 56});  // strided batched
    check_product<double>(Shape{2, 2, 50, 40}, Shape{2, 2, 40, 70});
}

template <Element T>
void check_elementwise() {
    Tape<T> tape;
    const auto x = tape.input(positive<T>(5, Shape{64, 300}));
    const auto y = tape.input(positive<T>(6, Shape{64, 300}));
    const auto s = tape.input(normal<T>(7, 2.0, Shape{64, 300}));
    const std::vector<Value<T>> same_bits = {x + y,
                                             x - y,
                                             x * y,
                                             x / y,
                                             x.maximum(y),
                                             x.minimum(y),
                                             -s,
                                             s.abs(),
                                             s.sign(),
                                             x.sqrt(),
                                             x.rsqrt(),
                                             s.square(),
                                             s.floor(),
                                             x.less(y),
                                             x.greater_equal(y),
                                             x.equal(x),
                                             where(s.greater(x), x, y)};
    const std::vector<Value<T>> transcendental = {
        s.exp(), s.expm1(), x.log(), x.log1p(), s.sin(), s.cos(), s.tanh()};
    const auto sigmoid = s.sigmoid();
    const auto silu = s.silu();
    std::vector<Symbol> roots;
    for (const auto& group : {same_bits, transcendental}) {
        for (const auto& value : group) {
            roots.push_back(value);
        }
    }
    roots.push_back(sigmoid);
    roots.push_back(silu);
    const auto network = std::move(tape).into_network();
    const Outcome<T> outcome = run_both<T>(network, roots);
    EXPECT_EQ(outcome.tally.count("Tanh", "cuda"), 1u) << outcome.tally;
    EXPECT_EQ(outcome.tally.count("Compare", "cuda"), 4u) << outcome.tally;
    std::size_t i = 0;
    for (; i < same_bits.size(); ++i) {
        EXPECT_TRUE(bit_equal(outcome.fast[i], outcome.exact[i])) << "value " << i;
    }
    for (; i < same_bits.size() + transcendental.size(); ++i) {
        EXPECT_TRUE(within_ulps(outcome.fast[i], outcome.exact[i], transcendental_ulps))
            << "value " << i;
    }
    EXPECT_TRUE(within_ulps(outcome.fast[i], outcome.exact[i], sigmoid_ulps));
    EXPECT_TRUE(within_ulps(outcome.fast[i + 1], outcome.exact[i + 1], sigmoid_ulps));
}

TEST(CudaBackend, ElementwiseOperationsMatchTheirTolerances) {
    SKIP_WITHOUT_DEVICE();
    check_elementwise<float>();
    check_elementwise<double>();
}

template <Element T>
void check_reductions() {
    Tape<T> tape;
    const Tensor<T> data = normal<T>(8, 3.0, Shape{6, 1025, 5});
    const auto x = tape.input(data);
    const std::vector<Value<T>> sums = {x.sum(), x.sum(0), x.sum(1), x.sum(2)};
    const std::vector<Value<T>> maxima = {x.max(0), x.max(1), x.max(2)};
    const std::vector<Value<T>> normalised = {x.log_softmax(1), x.log_softmax(2)};
    std::vector<Symbol> roots;
    for (const auto& group : {sums, maxima, normalised}) {
        for (const auto& value : group) {
            roots.push_back(value);
        }
    }
    const auto network = std::move(tape).into_network();
    const Outcome<T> outcome = run_both<T>(network, roots);
    EXPECT_EQ(outcome.tally.count("Sum", "cuda"), 4u) << outcome.tally;
    double largest = 0, total = 0;
    for (const T value : data.data()) {
        largest = std::max(largest, std::abs(double(value)));
        total += std::abs(double(value));
    }
    // The sums' bound uses the whole tensor's magnitude: an upper bound for every output.
    const double sum_bound = 2 * double(data.shape().elements()) * eps<T> * total;
    for (std::size_t i = 0; i < sums.size(); ++i) {
        EXPECT_TRUE(
            within(outcome.fast[i], outcome.exact[i], [&](std::size_t) { return sum_bound; }))
            << "sum " << i;
    }
    for (std::size_t i = 0; i < maxima.size(); ++i) {
        EXPECT_TRUE(bit_equal(outcome.fast[sums.size() + i], outcome.exact[sums.size() + i]))
            << "max " << i;
    }
    const std::size_t extents[] = {1025, 5};
    for (std::size_t i = 0; i < normalised.size(); ++i) {
        const std::size_t at = sums.size() + maxima.size() + i;
        const double n = double(extents[i]);
        const double bound = 2 * (n + 4) * eps<T> * (largest + std::log(n) + 1);
        EXPECT_TRUE(within(outcome.fast[at], outcome.exact[at], [&](std::size_t) { return bound; }))
            << "log_softmax " << i;
    }
}

TEST(CudaBackend, ReductionsMatchTheirTolerances) {
    SKIP_WITHOUT_DEVICE();
    check_reductions<float>();
    check_reductions<double>();
}

TEST(CudaBackend, LayoutOperationsCopyTheSameBits) {
    SKIP_WITHOUT_DEVICE();
    Tape<float> tape;
    const auto x = tape.input(normal<float>(9, 1.0, Shape{8, 8, 16, 24}));
    const std::vector<Symbol> roots = {x.permute(Axes{2, 0, 3, 1}),
                                       x.transpose(),
                                       x.reshape(Shape{64, 384}),
                                       x.broadcast_along(0, 3),
                                       x.broadcast_along(2, 2),
                                       x.broadcast_along(4, 7)};
    const auto network = std::move(tape).into_network();
    const Outcome<float> outcome = run_both<float>(network, roots);
    EXPECT_EQ(outcome.tally.count("Permute", "cuda"), 2u) << outcome.tally;
    for (std::size_t i = 0; i < roots.size(); ++i) {
        EXPECT_TRUE(bit_equal(outcome.fast[i], outcome.exact[i])) << "value " << i;
    }
}

// Pow and Unfold have no device kernel: they run on the host between device
// steps, and so do elected patterns (a convolution, a pooling, a Map region).
TEST(CudaBackend, DeclinedStepsRunOnTheHostBetweenDeviceSteps) {
    SKIP_WITHOUT_DEVICE();
    Tape<double> tape;
    const auto a = tape.input(positive<double>(10, Shape{256, 64}));
    const auto b = tape.parameter(positive<double>(11, Shape{64, 96}));
    const auto powered = a.matmul(b).pow(tape.leaf(Tensor<double>::filled(Shape{256, 96}, 0.5)));
    const auto result = powered.tanh().sum(1);
    const auto image = tape.input(normal<double>(12, 1.0, Shape{1, 1, 6, 6}));
    const auto filters = tape.parameter(normal<double>(13, 0.3, Shape{2, 1, 3, 3}));
    const auto bias = tape.parameter(Tensor<double>::filled(Shape{2}, 0.1));
    const auto pooled = max_pool(conv2d(image, filters, bias).relu(), 2, 2).exp().sum();
    const auto network = std::move(tape).into_network();
    for (const bool elect : {false, true}) {
        const Outcome<double> outcome = run_both<double>(network, {result, pooled}, elect);
        EXPECT_EQ(outcome.tally.count("MatMul", "cuda"), 1u)
            << outcome.tally;  // not the small conv's
        if (elect) {           // Pow and Tanh elected as one Map region
            EXPECT_EQ(outcome.tally.count("Map", "reference"), 1u) << outcome.tally;
            EXPECT_EQ(outcome.tally.count("WindowProduct", "reference"), 1u) << outcome.tally;
            EXPECT_EQ(outcome.tally.count("ReduceWindow", "reference"), 1u) << outcome.tally;
        } else {
            EXPECT_EQ(outcome.tally.count("Pow", "reference"), 1u) << outcome.tally;
            EXPECT_EQ(outcome.tally.count("Tanh", "cuda"), 1u) << outcome.tally;
            EXPECT_GE(outcome.tally.count("Unfold", "reference"), 2u) << outcome.tally;
        }
        for (std::size_t i = 0; i < 2; ++i) {
            EXPECT_TRUE(within(
                outcome.fast[i],
                outcome.exact[i],
                [&](std::size_t j) { return 1e-12 * (1 + std::abs(outcome.exact[i].data()[j])); }))
                << "value " << i << (elect ? " (elected)" : "");
        }
    }
}

// A training step's gradients (W2's shape, smaller): Fast on the device, Exact on the host.
TEST(CudaBackend, GradientsOfAnMlpAgreeWithTheExactPlan) {
    SKIP_WITHOUT_DEVICE();
    Tape<double> tape;
    const Mlp<double> mlp(tape, {64, 256, 256, 10}, Activation::Tanh, init::normal(14, 0.1));
    const auto x = tape.input(normal<double>(15, 1.0, Shape{128, 64}));
    std::vector<double> classes(128);
    for (std::size_t i = 0; i < classes.size(); ++i) {
        classes[i] = double(i % 10);
    }
    const auto labels = tape.indices(Tensor<double>(Shape{128}, classes));
    const auto loss = cross_entropy(mlp.express(x), labels);
    const auto gradients = tape.differentiate(loss, mlp.parameters());
    std::vector<Symbol> roots = {loss};
    for (const auto& parameter : mlp.parameters()) {
        roots.push_back(gradients.of(parameter));
    }
    const auto network = std::move(tape).into_network();
    const Outcome<double> outcome = run_both<double>(network, roots);
    EXPECT_GE(outcome.tally.count("MatMul", "cuda"), 3u) << outcome.tally;
    for (std::size_t i = 0; i < roots.size(); ++i) {
        EXPECT_TRUE(within(
            outcome.fast[i],
            outcome.exact[i],
            [&](std::size_t j) { return 1e-12 * (1 + std::abs(outcome.exact[i].data()[j])); }))
            << "value " << i;
    }
}

}  // namespace
}  // namespace topos
