// The Loader's cost per batch of 32 rows of 30 floats (a breast-cancer-sized
// table of 569 rows), without prefetching (depth 0) and with it:
//   BM_LoaderAlone: nothing but taking batches;
//   BM_Step / BM_StepAndLoader: a stand-in training step of fixed work (a
//     dependent chain of multiply-adds, about 35 microseconds), alone and
//     after taking each batch. Their difference is what the loader adds to a
//     step, the figure docs/performance.md records. These batches gather in
//     about half a microsecond, under gather_inline_below, so they are
//     gathered where they are taken;
//   BM_StepAndWorker: the same with gather_inline_below = 0, every batch
//     handed to the worker: the cost of the hand-off (a thread wake-up every
//     depth / 2 batches, and the batch's memory crossing cores).
#include <topos/data.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <optional>
#include <vector>

namespace {

using topos::data::LoaderOptions;

constexpr std::size_t rows = 569;
constexpr std::size_t columns = 30;
constexpr std::size_t batch_rows = 32;
constexpr int step_work = 20'000;

topos::data::Dataset<float> table() {
    std::vector<float> values(rows * columns);
    std::iota(values.begin(), values.end(), 0.0F);
    std::vector<float> labels(rows, 1.0F);
    return topos::data::Dataset<float>({topos::Tensor<float>(topos::Shape{rows, columns}, values),
                                        topos::Tensor<float>(topos::Shape{rows}, labels)});
}

// About 20 microseconds of arithmetic the compiler cannot drop or reorder.
float step(float seed) {
    float x = seed;
    for (int i = 0; i < step_work; ++i) {
        x = x * 0.999999F + 1e-7F;
    }
    return x;
}

// Batches from epoch after epoch, as a training loop takes them.
class Batches {
public:
    // depth 0: no prefetching. `inline_below` as LoaderOptions::gather_inline_below.
    explicit Batches(std::int64_t depth,
                     std::chrono::nanoseconds inline_below = LoaderOptions{}.gather_inline_below)
        : loader_(table(),
                  {.batch_size = batch_rows,
                   .seed = 1,
                   .prefetch = depth > 0,
                   .prefetch_depth = static_cast<std::size_t>(depth),
                   .gather_inline_below = inline_below}) {}

    topos::data::Batch<float> next() {
        while (true) {
            if (!epoch_) {
                epoch_.emplace(loader_.epoch(number_++));
            }
            if (auto batch = epoch_->next()) {
                return std::move(*batch);
            }
            epoch_.reset();
        }
    }

private:
    topos::data::Loader<float> loader_;
    std::optional<topos::data::Epoch<float>> epoch_;
    std::size_t number_ = 0;
};

void BM_LoaderAlone(benchmark::State& state) {
    Batches batches(state.range(0));
    for (auto _ : state) {
        benchmark::DoNotOptimize(batches.next());
    }
}

BENCHMARK(BM_LoaderAlone)->ArgName("depth")->Arg(0)->Arg(4);

void BM_Step(benchmark::State& state) {
    float x = 1.0F;
    for (auto _ : state) {
        x = step(x);
        benchmark::DoNotOptimize(x);
    }
}

BENCHMARK(BM_Step);

void BM_StepAndLoader(benchmark::State& state) {
    Batches batches(state.range(0));
    float x = 1.0F;
    for (auto _ : state) {
        const topos::data::Batch<float> batch = batches.next();
        x = step(x + batch[0].data()[0] * 0.0F);
        benchmark::DoNotOptimize(x);
    }
}

BENCHMARK(BM_StepAndLoader)->ArgName("depth")->Arg(0)->Arg(4);

// The same with every batch handed to the worker, however cheap.
void BM_StepAndWorker(benchmark::State& state) {
    Batches batches(state.range(0), std::chrono::nanoseconds(0));
    float x = 1.0F;
    for (auto _ : state) {
        const topos::data::Batch<float> batch = batches.next();
        x = step(x + batch[0].data()[0] * 0.0F);
        benchmark::DoNotOptimize(x);
    }
}

BENCHMARK(BM_StepAndWorker)->ArgName("depth")->Arg(2)->Arg(4)->Arg(16);

}  // namespace
