// The exact functions in vector lanes (kernels/transcendental.hpp)
// give the scalar functions' bits on every instruction set this processor runs,
// for float and double: at every boundary where the scalar code branches, for
// special values, for random bit patterns and ranges, with tails shorter than
// a vector, in place, and shared among threads, and floats whose results lie
// nearest halfway between two floats; and the log-sum-exp of rows,
// whose exps run in lanes, gives the bits of the striped sum of scalar exps,
// on any number of threads.
#include "core/exact_math.hpp"
#include "kernels/float_midpoint.hpp"
#include "kernels/striped_sum.hpp"
#include "kernels/transcendental.hpp"
#include "ops/log_sum_exp.hpp"
#include "support/float_hard_cases.hpp"
#include "support/thread_count_guard.hpp"
#include <topos/core/isa.hpp>
#include <topos/core/threads.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace topos::detail {
namespace {

template <class T>
bool same_bits(T a, T b) {
    return std::memcmp(&a, &b, sizeof(T)) == 0;
}

// Each boundary of the scalar code (and its neighbours), special values and
// both signs of each.
template <class T>
std::vector<T> boundary_inputs() {
    // exp, tanh, sigmoid; erf (its pieces at 0.75, 2, 3 and 6); gelu (the
    // polynomial up to about 1.06, the erfc pieces at about 2.83 and 4.24, two-step
    // scaling below -37); log (subnormals scaled below 2^-1022, the mantissa
    // halved from sqrt(2) on); softplus (log1p's argument itself below 0.4142,
    // that is |x| above 0.88137); shared ones.
    const double sqrt_two = 0x1.6a09e667f3bcdp+0;
    const double sqrt_half = 0x1.6a09e667f3bcdp-1;
    const double edges[] = {
        0.0,   0x1p-1074, 1e-310, 0x1p-1022, 0x1p-149, 0x1p-60,   0x1p-54, 0x1p-28, 0x1p-27,
        0.25,  0.3466,    0.5,    0.75,      0.88137,  1.0,       1.0606,  2.0,     2.8284,
        3.0,   4.2426,    6.0,    19.1,      22.0,     28.0,      37.0,    38.0,    40.0,
        45.0,  88.72,     103.97, 708.0,     708.4,    709.0,     709.78,  709.79,  745.13,
        745.2, 800.0,     1e10,   3.4e38,    1e300,    sqrt_half, sqrt_two};
    std::vector<T> inputs;
    for (const double edge : edges) {
        const T e = static_cast<T>(edge);
        for (const T value : {e, std::nextafter(e, T(0)), std::nextafter(e, T(1e30))}) {
            inputs.push_back(value);
            inputs.push_back(-value);
        }
    }
    for (const T special : {std::numeric_limits<T>::infinity(),
                            std::numeric_limits<T>::quiet_NaN(),
                            std::numeric_limits<T>::max(),
                            std::numeric_limits<T>::min(),
                            std::numeric_limits<T>::denorm_min()}) {
        inputs.push_back(special);
        inputs.push_back(-special);
    }
    return inputs;
}

// Random bit patterns (every class of value), then uniform values in the
// ranges where the functions do their work.
template <class T>
std::vector<T> random_inputs(std::size_t count, std::uint64_t seed) {
    std::mt19937_64 random(seed);
    std::vector<T> inputs(count);
    for (std::size_t i = 0; i < count; ++i) {
        if (i % 2 == 0) {
            using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
            const Bits bits = static_cast<Bits>(random());
            std::memcpy(&inputs[i], &bits, sizeof(T));
        } else {
            const double range = i % 3 == 0 ? 50.0 : (i % 3 == 1 ? 2.0 : 800.0);
            inputs[i] =
                static_cast<T>(std::uniform_real_distribution<double>(-range, range)(random));
        }
    }
    return inputs;
}

template <class T>
void expect_scalar_bits(ExactFunction f,
                        const std::vector<T>& inputs,
                        const std::vector<T>& outputs,
                        const std::string& where) {
    std::size_t differing = 0;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        T expected{};
        exact_map_portable(f, &inputs[i], &expected, 1);
        if (!same_bits(expected, outputs[i]) && ++differing <= 5) {
            ADD_FAILURE() << where << ": " << name_of(f) << "(" << std::hexfloat << inputs[i]
                          << ") is " << outputs[i] << ", the scalar function gives " << expected;
        }
    }
    EXPECT_EQ(differing, 0U) << where << ": " << name_of(f);
}

#if defined(__x86_64__)
template <class T>
void check_instruction_sets(const std::vector<T>& inputs, const std::string& what) {
    int checked = 0;
    for (const Isa set : supported_isas()) {
        if (set == Isa::Portable) {
            continue;
        }
        for (const ExactFunction f : every_exact_function) {
            // Every length up to two vectors and one more, so every tail is met.
            for (std::size_t length :
                 {inputs.size(), std::size_t{1}, std::size_t{7}, std::size_t{17}}) {
                length = std::min(length, inputs.size());
                const std::vector<T> part(inputs.begin(),
                                          inputs.begin() + static_cast<std::ptrdiff_t>(length));
                std::vector<T> out(length);
                exact_map_on(set, f, part.data(), out.data(), length);
                expect_scalar_bits(f, part, out, what + " on " + std::string(topos::name_of(set)));
            }
        }
        ++checked;
    }
    if (checked == 0) {
        GTEST_SKIP() << "this processor runs no vector instruction set";
    }
}
#endif

template <class T>
class ExactLanes : public ::testing::Test {};

using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ExactLanes, Elements);

TYPED_TEST(ExactLanes, EveryBoundaryOfTheScalarCodeGivesItsBits) {
#if defined(__x86_64__)
    check_instruction_sets(boundary_inputs<TypeParam>(), "boundaries");
#else
    GTEST_SKIP() << "vector lanes are x86-64 only";
#endif
}

TYPED_TEST(ExactLanes, RandomBitPatternsAndRangesGiveTheScalarBits) {
#if defined(__x86_64__)
    check_instruction_sets(random_inputs<TypeParam>(200003, 20261202), "random inputs");
#else
    GTEST_SKIP() << "vector lanes are x86-64 only";
#endif
}

TYPED_TEST(ExactLanes, TheDispatchedMapSharedAmongThreadsAndInPlaceGivesTheScalarBits) {
    const std::vector<TypeParam> inputs = random_inputs<TypeParam>(100001, 7);
    for (const ExactFunction f : every_exact_function) {
        std::vector<TypeParam> out(inputs.size());
        exact_map(f, inputs.data(), out.data(), inputs.size());
        expect_scalar_bits(f, inputs, out, "exact_map at " + std::string(topos::name_of(isa())));
        std::vector<TypeParam> in_place = inputs;
        exact_map(f, in_place.data(), in_place.data(), in_place.size());
        expect_scalar_bits(f, inputs, in_place, "exact_map in place");
    }
}

// Whether the exact result y of a listed float is a hard case: a normal float
// result within 2^6 units of its double's last place of a midpoint between
// two floats, or a subnormal one (whose midpoints the shortcut cannot place).
bool is_hard_case(double y) {
    if (std::fabs(y) < 0x1p-126) {
        return std::fabs(y) >= 0x1p-150;
    }
    return float_midpoint::units_from_midpoint(y) < 64;
}

// The floats whose results lie nearest a midpoint between two floats
// (support/float_hard_cases.hpp) are still hard cases, and the lanes give
// them the scalar bits: the shortcut leaves them to the exact lanes.
TEST(ExactLanesOfFloats, ResultsNearestAMidpointBetweenFloatsKeepTheScalarBits) {
    for (const test::FloatHardCases& cases : test::float_hard_cases) {
        const ExactFunction f = cases.function;
        std::vector<float> inputs(cases.patterns.size());
        std::memcpy(inputs.data(), cases.patterns.data(), inputs.size() * sizeof(float));
        for (const float x : inputs) {
            const double wide = x;
            double y = 0;
            exact_map_portable(f, &wide, &y, 1);
            EXPECT_TRUE(is_hard_case(y)) << name_of(f) << "(" << std::hexfloat << x << ") = " << y;
        }
#if defined(__x86_64__)
        for (const Isa set : supported_isas()) {
            std::vector<float> out(inputs.size());
            exact_map_on(set, f, inputs.data(), out.data(), inputs.size());
            expect_scalar_bits(f, inputs, out, "near a midpoint on " + std::string(name_of(set)));
        }
#endif
    }
}

template <class T, class Scalar>
void expect_portable_map_is(ExactFunction f, Scalar scalar) {
    const std::vector<T> inputs = boundary_inputs<T>();
    std::vector<T> out(inputs.size());
    exact_map_portable(f, inputs.data(), out.data(), inputs.size());
    for (std::size_t i = 0; i < inputs.size(); ++i) {
        EXPECT_TRUE(same_bits(out[i], scalar(inputs[i]))) << name_of(f) << "(" << inputs[i] << ")";
    }
}

TYPED_TEST(ExactLanes, ThePortableMapIsTheScalarFunction) {
    using T = TypeParam;
    expect_portable_map_is<T>(ExactFunction::Tanh, [](T x) { return exact::tanh(x); });
    expect_portable_map_is<T>(ExactFunction::Log, [](T x) { return exact::log(x); });
    expect_portable_map_is<T>(ExactFunction::Softplus, [](T x) { return exact::softplus(x); });
}

// log_sum_exp_of as it was before its exps ran in lanes: each term's scalar
// exp added in the striped order.
template <class T>
T scalar_log_sum_exp(const T* x, std::size_t stride, std::size_t count) {
    T top = -std::numeric_limits<T>::infinity();
    for (std::size_t a = 0; a < count; ++a) {
        const T term = x[a * stride];
        top = (term > top || term != term) ? term : top;
    }
    if (!std::isfinite(top)) {
        return top;
    }
    const T total =
        striped_sum<T>(count, [&](std::size_t a) { return exact::exp(x[a * stride] - top); });
    return top + exact::log(total);
}

// Rows of every length around the chunk of 256 terms and the 16 stripes,
// read with a stride, with terms whose exps underflow, take two scaling steps
// or are -inf, on each instruction set.
template <class T>
void expect_log_sum_exp_of_scalar_bits(Isa set) {
    std::mt19937_64 random(17);
    std::normal_distribution<double> logit(0.0, 4.0);
    for (const std::size_t count : {1, 2, 7, 15, 16, 17, 33, 255, 256, 257, 600}) {
        for (const std::size_t stride : {1, 3}) {
            std::vector<T> x(count * stride);
            for (std::size_t i = 0; i < x.size(); ++i) {
                x[i] = static_cast<T>(logit(random));
            }
            x[(count / 2) * stride] = static_cast<T>(-720.0);  // two scaling steps for doubles
            x[(count / 3) * stride] = -std::numeric_limits<T>::infinity();
            x[(count - 1) * stride] = static_cast<T>(-1e4);  // underflows
            const T lanes = log_sum_exp_of(
                x.data(), [stride](std::size_t a) { return a * stride; }, count, ExactExpAndLog{});
            const T expected = scalar_log_sum_exp(x.data(), stride, count);
            EXPECT_TRUE(same_bits(lanes, expected))
                << name_of(set) << ", " << count << " terms, stride " << stride << ": "
                << std::hexfloat << lanes << ", the scalar sum gives " << expected;
        }
    }
}

TYPED_TEST(ExactLanes, TheLogSumExpOfRowsGivesTheBitsOfTheStripedScalarSum) {
    const Isa before = isa();
    for (const Isa set : supported_isas()) {
        set_max_isa(set);
        expect_log_sum_exp_of_scalar_bits<TypeParam>(set);
    }
    set_max_isa(before);
}

// A tensor large enough that its rows are shared among the pool's threads,
// reduced along each axis: every row has the striped scalar sum's bits on 1, 2
// and 3 threads.
TYPED_TEST(ExactLanes, RowsOfALargeLogSoftmaxSharedAmongThreadsKeepTheScalarBits) {
    using T = TypeParam;
    const test::ThreadCountGuard restore_threads;
    const Shape shape{96, 500};
    std::mt19937_64 random(23);
    std::normal_distribution<double> logit(0.0, 4.0);
    std::vector<T> x(shape.elements());
    for (T& value : x) {
        value = static_cast<T>(logit(random));
    }
    for (const std::size_t axis : {0, 1}) {
        const std::size_t stride = axis == 0 ? shape[1] : 1;
        const std::size_t rows = shape[1 - axis];
        for (const std::size_t threads : {1, 2, 3}) {
            set_threads(threads);
            std::vector<T> sums(rows);
            std::vector<T> out(x.size());
            log_sum_exp_rows(x.data(), shape, axis, sums.data(), ExactExpAndLog{});
            log_softmax_rows(x.data(), shape, axis, out.data(), ExactExpAndLog{});
            for (std::size_t row = 0; row < rows; ++row) {
                const std::size_t first = axis == 0 ? row : row * shape[1];
                const T expected = scalar_log_sum_exp(x.data() + first, stride, shape[axis]);
                ASSERT_TRUE(same_bits(sums[row], expected))
                    << "axis " << axis << ", row " << row << ", " << threads << " threads";
                const std::size_t last = first + (shape[axis] - 1) * stride;
                ASSERT_TRUE(same_bits(out[last], static_cast<T>(x[last] - expected)))
                    << "axis " << axis << ", row " << row << ", " << threads << " threads";
            }
        }
    }
}

}  // namespace
}  // namespace topos::detail
