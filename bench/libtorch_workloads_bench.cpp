// W2-W5, W7, W8 and G1-G3 for LibTorch (Debian's libtorch-dev), the peer of
// workloads_bench, and G2 in bf16 (autocast, and the whole module converted).
// `--threads=N` sets LibTorch's intra-op pool (default 1); run it with
// OPENBLAS_NUM_THREADS=1 so that OpenBLAS does not start a second pool.
// `libtorch_workloads_bench --peak-memory` runs W6: 200 steps of W2, then the
// peak resident set in MiB; `--peak-memory=W7` and `=W8`: 3 steps of those.
#include "libtorch_workloads.hpp"
#include "peak_memory.hpp"
#include "thread_count_argument.hpp"

#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace {

using Build = std::unique_ptr<libtorch_workloads::Trainer> (*)();

void train(benchmark::State& state, Build build) {
    auto trainer = build();
    trainer->step();
    for (auto _ : state) {
        trainer->step();
    }
    state.counters["loss"] = trainer->loss();
}

void register_workload(const std::string& name, Build build) {
    benchmark::RegisterBenchmark((name + "/libtorch").c_str(), train, build)
        ->Unit(benchmark::kMillisecond)
        ->UseRealTime();
}

// Runs `steps` steps of a workload, then prints the process's peak resident
// set as "NAME libtorch peak M MiB, loss L".
void print_peak_memory(const char* name, Build build, int steps) {
    auto trainer = build();
    for (int step = 0; step < steps; ++step) {
        trainer->step();
    }
    std::cout << name << " libtorch peak " << bench::peak_resident_mib() << " MiB, loss "
              << trainer->loss() << '\n';
}

}  // namespace

int main(int argc, char** argv) {
    at::set_num_threads(take_thread_count(argc, argv));
    torch::manual_seed(1);
    if (argc > 1 && std::strncmp(argv[1], "--peak-memory", 13) == 0) {
        const std::string which = argv[1];
        if (which == "--peak-memory") {
            print_peak_memory("W6", libtorch_workloads::mlp_step, 200);
        } else if (which == "--peak-memory=W7") {
            print_peak_memory("W7", libtorch_workloads::resnet_stages_step, 3);
        } else if (which == "--peak-memory=W8") {
            print_peak_memory("W8", libtorch_workloads::gpt2_block_step, 3);
        } else {
            std::cerr << "unknown " << which << "; --peak-memory takes =W7, =W8 or nothing (W6)\n";
            return 2;
        }
        return 0;
    }
    register_workload("W2_mlp_step", libtorch_workloads::mlp_step);
    register_workload("W3_scalar_step", libtorch_workloads::scalar_step);
    register_workload("W4_cnn_step", libtorch_workloads::cnn_step);
    register_workload("W5_transformer_step", libtorch_workloads::transformer_step);
    register_workload("W7_resnet_stages_step", libtorch_workloads::resnet_stages_step);
    register_workload("W8_gpt2_block_step", libtorch_workloads::gpt2_block_step);
    register_workload("G1_digits_mlp_step", libtorch_workloads::digits_mlp_step);
    register_workload("G2_digits_cnn_step", libtorch_workloads::digits_cnn_step);
    // G2 in bf16, beside bench/bf16_cnn_bench (named apart from the G
    // workloads, which bench/compare selects by name).
    register_workload("digits_cnn_autocast_bf16_step",
                      libtorch_workloads::digits_cnn_autocast_bf16_step);
    register_workload("digits_cnn_bf16_step", libtorch_workloads::digits_cnn_bf16_step);
    register_workload("G3_char_transformer_step", libtorch_workloads::char_transformer_step);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
