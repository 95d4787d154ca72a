// W2-W5 for topos: one training step per iteration, under Numerics::Exact and
// Numerics::Fast. `workloads_bench --peak-memory` runs W6 instead: 200 steps of
// W2 under Exact, then prints the process's peak resident set in MiB.
// bench/compare runs this program beside libtorch_workloads_bench.
#include "kernels_picked.hpp"
#include "peak_memory.hpp"
#include "workloads.hpp"

#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>

namespace {

// The BroadcastAlong nodes a plan writes (those inside an elected pattern are
// never materialised).
std::size_t broadcast_steps(const topos::Plan<float>& plan) {
    std::size_t steps = 0;
    for (std::size_t i = 0; i < plan.nodes().size(); ++i) {
        steps += plan.nodes()[i].opcode() == topos::Opcode::BroadcastAlong &&
                 plan.liveness()[i].kind != topos::Liveness::Kind::Fused;
    }
    return steps;
}

template <class Build>
void train(benchmark::State& state, Build build, topos::Numerics numerics) {
    auto trainer = build(numerics);
    trainer.step();  // the first run touches the arena's pages
    for (auto _ : state) {
        trainer.step();
    }
    state.counters["loss"] = trainer.loss();
    state.counters["arena"] = static_cast<double>(trainer.plan().arena_elements());
    state.counters["broadcast_steps"] = static_cast<double>(broadcast_steps(trainer.plan()));
}

template <class Build>
void register_workload(const std::string& name, Build build) {
    for (const auto& [label, numerics] :
         {std::pair{"exact", topos::Numerics::Exact}, std::pair{"fast", topos::Numerics::Fast}}) {
        benchmark::RegisterBenchmark(
            (name + "/topos_" + label).c_str(), train<Build>, build, numerics)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strcmp(argv[1], "--peak-memory") == 0) {
        auto trainer = workloads::mlp_step(topos::Numerics::Exact);
        for (int step = 0; step < 200; ++step) {
            trainer.step();
        }
        std::cout << "W6 topos peak " << bench::peak_resident_mib() << " MiB, loss "
                  << trainer.loss() << '\n';
        return 0;
    }
    register_workload("W2_mlp_step", workloads::mlp_step);
    register_workload("W3_scalar_step", workloads::scalar_step);
    register_workload("W4_cnn_step", workloads::cnn_step);
    register_workload("W5_transformer_step", workloads::transformer_step);
    register_workload("G1_digits_mlp_step", workloads::digits_mlp_step);
    register_workload("G2_digits_cnn_step", workloads::digits_cnn_step);
    register_workload("G3_char_transformer_step", workloads::char_transformer_step);
    bench::add_kernels_context();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
