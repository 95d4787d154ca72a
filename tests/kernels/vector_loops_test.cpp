// The elementwise loops, the sums of contiguous runs and the convolution's
// filter-gradient loop run a copy compiled for AVX2 and FMA, or for AVX-512,
// where the processor has them, split among the library's threads when long.
// Neither may change a bit, each vector copy compared: every opcode, the transcendental functions
// over long float tensors (which the threads share), sums of runs of every length and down columns,
// and a fused convolution's gradients give the portable loops' bits.
#include "support/bit_equal.hpp"
#include "support/op_specs.hpp"
#include "support/thread_count_guard.hpp"
#include <topos/autodiff/adjoints.hpp>
#include <topos/core/isa.hpp>
#include <topos/core/threads.hpp>
#include <topos/graph/compositions.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/init.hpp>
#include <topos/plan/plan.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cfenv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

namespace topos {
namespace {

using test::bit_equal;

// Caps the kernels at an instruction set, and restores the set they ran
// before when a test ends, whatever happened.
class IsaCap {
public:
    explicit IsaCap(Isa cap) : before_(isa()) { set_max_isa(cap); }

    ~IsaCap() { set_max_isa(before_); }

    IsaCap(const IsaCap&) = delete;
    IsaCap& operator=(const IsaCap&) = delete;

private:
    Isa before_;
};

// `compute` on each vector copy of the loops the processor runs (AVX2 + FMA,
// and AVX-512 where it has it), and on the portable loops; then
// check(vector, portable) for each copy's result.
template <class Compute, class Check>
void against_portable_loops(const Compute& compute, const Check& check) {
    std::vector<std::pair<Isa, decltype(compute())>> vector_results;
    for (const Isa each : supported_isas()) {
        if (each != Isa::Portable && each <= isa()) {
            const IsaCap cap(each);
            vector_results.emplace_back(each, compute());
        }
    }
    const auto portable = [&] {
        const IsaCap cap(Isa::Portable);
        return compute();
    }();
    for (const auto& [each, result] : vector_results) {
        SCOPED_TRACE(std::string("the ") + std::string(name_of(each)) + " loops");
        check(result, portable);
    }
}

class EveryOpcode : public ::testing::TestWithParam<Opcode> {};

TEST_P(EveryOpcode, GivesThePortableLoopsBits) {
    const test::OpSpec* spec = test::find_op_spec(GetParam());
    ASSERT_NE(spec, nullptr);
    for (std::uint64_t seed = 1; seed <= 8; ++seed) {
        test::Rng rng(seed);
        Tape<double> tape;
        const test::OpCase use = spec->record(tape, rng);
        const Symbol output = use.output;
        const auto network = std::move(tape).into_network();
        against_portable_loops([&] { return network.forward(network.parameters(), {}).of(output); },
                               [&](const auto& vector, const auto& portable) {
                                   EXPECT_TRUE(bit_equal(vector, portable)) << "seed " << seed;
                               });
    }
}

INSTANTIATE_TEST_SUITE_P(VectorLoops,
                         EveryOpcode,
                         ::testing::ValuesIn(test::computed_opcodes()),
                         test::opcode_name);

// Long enough for several chunks on the pool, with values from far below to far
// above where the functions saturate, and the special values.
Tensor<float> wide_range(std::size_t count) {
    std::vector<float> values(count);
    for (std::size_t i = 0; i < count; ++i) {
        values[i] = -40.0f + 80.0f * static_cast<float>(i) / static_cast<float>(count);
    }
    const float specials[] = {0.0f,
                              -0.0f,
                              std::numeric_limits<float>::infinity(),
                              -std::numeric_limits<float>::infinity(),
                              std::numeric_limits<float>::quiet_NaN(),
                              std::numeric_limits<float>::denorm_min(),
                              std::numeric_limits<float>::max()};
    for (std::size_t i = 0; i < std::size(specials); ++i) {
        values[i * 997] = specials[i];
    }
    return Tensor<float>(Shape{count}, values);
}

TEST(VectorLoops, TranscendentalFunctionsOverLongFloatTensorsOnOneAndTwoThreads) {
    using Function = std::function<Value<float>(const Value<float>&)>;
    const std::vector<std::pair<const char*, Function>> functions = {
        {"exp", [](const auto& x) { return x.exp(); }},
        {"expm1", [](const auto& x) { return x.expm1(); }},
        {"log", [](const auto& x) { return x.abs().log(); }},
        {"log1p", [](const auto& x) { return x.abs().log1p(); }},
        {"sin", [](const auto& x) { return x.sin(); }},
        {"cos", [](const auto& x) { return x.cos(); }},
        {"tanh", [](const auto& x) { return x.tanh(); }},
        {"sigmoid", [](const auto& x) { return x.sigmoid(); }},
        {"erf", [](const auto& x) { return x.erf(); }},
        {"gelu", [](const auto& x) { return x.gelu(); }},
        {"softplus", [](const auto& x) { return x.softplus(); }},
    };
    const test::ThreadCountGuard restore_threads;
    for (const std::size_t thread_count : {1, 2}) {
        set_threads(thread_count);
        for (const auto& listed : functions) {
            const char* name = listed.first;
            Tape<float> tape;
            const auto y = listed.second(tape.input(wide_range(50'000)));
            const auto network = std::move(tape).into_network();
            against_portable_loops([&] { return network.forward(network.parameters(), {}).of(y); },
                                   [&](const auto& vector, const auto& portable) {
                                       EXPECT_TRUE(bit_equal(vector, portable))
                                           << name << " on " << thread_count << " threads";
                                   });
        }
    }
}

// Runs of every length up to three blocks of 16 lanes, and a long one; values
// with the special ones mixed in, and runs of -0 alone, whose sum is -0 only if
// the short last block is padded with -0.
template <Element T>
Tensor<T> runs_to_sum(std::size_t runs, std::size_t extent, std::uint64_t seed) {
    Tensor<T> normal = init::normal(seed, 1.0)(Shape{runs, extent});
    std::vector<T> values(normal.data().begin(), normal.data().end());
    const T specials[] = {T{0},
                          T{-0.0},
                          std::numeric_limits<T>::infinity(),
                          std::numeric_limits<T>::denorm_min(),
                          std::numeric_limits<T>::max()};
    for (std::size_t i = 0; i < values.size(); i += 7) {
        values[i] = specials[(i / 7) % std::size(specials)];
    }
    std::fill_n(values.begin(), extent, T{-0.0});  // the first run
    return Tensor<T>(Shape{runs, extent}, values);
}

template <Element T>
void expect_sums_of_runs_give_the_portable_bits() {
    std::vector<std::size_t> extents(48);
    std::iota(extents.begin(), extents.end(), std::size_t{1});
    extents.push_back(1000);
    for (const std::size_t extent : extents) {
        Tape<T> tape;
        // 19 runs: two tiles of eight short runs summed at once, and three alone.
        const auto x = tape.input(runs_to_sum<T>(19, extent, extent));
        const auto along = x.sum(1);
        const auto whole = x.sum();
        const auto network = std::move(tape).into_network();
        against_portable_loops(
            [&] {
                const auto run = network.forward(network.parameters(), {});
                return std::pair{run.of(along), run.of(whole)};
            },
            [&](const auto& vector, const auto& portable) {
                EXPECT_TRUE(bit_equal(vector.first, portable.first)) << "runs of " << extent;
                EXPECT_TRUE(bit_equal(vector.second, portable.second)) << "runs of " << extent;
                EXPECT_TRUE(std::signbit(vector.first.data()[0]) && vector.first.data()[0] == 0)
                    << "a run of -0 sums to " << vector.first.data()[0];
            });
    }
}

TEST(VectorLoops, SumsOfContiguousRunsOfEveryLengthGiveThePortableBits) {
    expect_sums_of_runs_give_the_portable_bits<float>();
    expect_sums_of_runs_give_the_portable_bits<double>();
}

// Rounding down, +0 + -0 is -0: a partial that skipped one of the -0 additions
// of the documented order would give +0 where the order gives -0.
TEST(VectorLoops, SumsOfContiguousRunsRoundingDownGiveThePortableBits) {
    const int before = std::fegetround();
    std::fesetround(FE_DOWNWARD);
    expect_sums_of_runs_give_the_portable_bits<float>();
    expect_sums_of_runs_give_the_portable_bits<double>();
    std::fesetround(before);
}

// Sums down the rows of [extent, columns] matrices: each column a strided sum,
// the columns in lanes; long ones share their partial rows among two threads,
// which must give one thread's bits.
template <Element T>
void expect_sums_down_columns_give_the_portable_bits() {
    const test::ThreadCountGuard restore_threads;
    for (const std::size_t columns : {1, 3, 8, 16, 21}) {
        for (const std::size_t extent : {1, 5, 16, 17, 40, 333, 5003}) {
            Tape<T> tape;
            const auto x = tape.input(runs_to_sum<T>(extent, columns, extent * columns));
            const auto down = x.sum(0);
            const auto network = std::move(tape).into_network();
            set_threads(1);
            const Tensor<T> alone = network.forward(network.parameters(), {}).of(down);
            set_threads(2);
            against_portable_loops(
                [&] { return network.forward(network.parameters(), {}).of(down); },
                [&](const auto& vector, const auto& portable) {
                    EXPECT_TRUE(bit_equal(vector, portable)) << extent << " rows of " << columns;
                    EXPECT_TRUE(bit_equal(vector, alone)) << extent << " rows of " << columns;
                });
        }
    }
}

TEST(VectorLoops, SumsDownColumnsGiveThePortableBits) {
    expect_sums_down_columns_give_the_portable_bits<float>();
    expect_sums_down_columns_give_the_portable_bits<double>();
}

TEST(VectorLoops, FusedConvolutionGradientsGiveThePortableBits) {
    Tape<float> tape;
    const auto image = tape.input(init::normal(1, 1.0)(Shape{3, 2, 9, 9}));
    const auto filters = tape.parameter(init::normal(2, 0.5)(Shape{5, 2, 3, 3}));
    const auto bias = tape.parameter(init::normal(3, 0.5)(Shape{5}));
    const auto loss = (conv2d(image, filters, bias, 1, 1).tanh()).sum();
    const auto adjoints = tape.differentiate(loss, {filters, bias});
    const auto network = std::move(tape).into_network();
    const auto plan = network.entry(adjoints.roots()).numerics(Numerics::Exact).lower();
    ASSERT_FALSE(plan.patterns().empty());
    against_portable_loops(
        [&] {
            const auto run = plan.forward(network.parameters());
            return std::pair{run.of(adjoints.of(filters)), run.of(adjoints.of(bias))};
        },
        [&](const auto& vector, const auto& portable) {
            EXPECT_TRUE(bit_equal(vector.first, portable.first));
            EXPECT_TRUE(bit_equal(vector.second, portable.second));
        });
}

TEST(VectorLoops, LongMapRegionsSharedAmongThreadsGiveTheUnfusedBits) {
    Tape<float> tape;
    const auto x = tape.input(wide_range(100'000));
    const auto y = ((x * x).tanh() + x.sigmoid() * x).exp().sum();
    const auto network = std::move(tape).into_network();
    const auto unfused = network.entry({y}).elect_patterns(false).lower();
    const auto fused = network.entry({y}).lower();
    ASSERT_FALSE(fused.patterns().empty());
    const test::ThreadCountGuard restore_threads;
    for (const std::size_t thread_count : {1, 2, 3}) {
        set_threads(thread_count);
        EXPECT_TRUE(bit_equal(fused.forward(network.parameters()).of(y),
                              unfused.forward(network.parameters()).of(y)))
            << thread_count << " threads";
    }
}

}  // namespace
}  // namespace topos
