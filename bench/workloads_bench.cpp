// W2-W5, W7, W8 and the gallery's steps for topos: one training step per
// iteration, under Numerics::Exact and Numerics::Fast, with the step's product
// GFLOP/s (flops.hpp). `workloads_bench --peak-memory` runs W6 instead: 200
// steps of W2 under Exact, then prints the process's peak resident set in MiB;
// `--peak-memory=W7` and `--peak-memory=W8` do the same for 3 steps of those.
// bench/compare runs this program beside libtorch_workloads_bench.
#include "kernels_picked.hpp"
#include "peak_memory.hpp"
#include "plan/plan_state.hpp"
#include "workloads.hpp"

#include <benchmark/benchmark.h>

#include <cstring>
#include <iostream>
#include <string>
#include <utility>

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

// The steps of a plan that run in groups at once (plan/concurrent_steps.hpp),
// and how many groups.
std::pair<std::size_t, std::size_t> concurrent_steps(const topos::Plan<float>& plan) {
    const auto& groups = topos::detail::PlanAccess::state(plan).concurrent;
    std::size_t steps = 0;
    for (const auto& group : groups) {
        steps += group.count;
    }
    return {steps, groups.size()};
}

// The services of one step that were not the exact ones: a Fast step that
// has none runs the Exact plan's kernels.
std::size_t inexact_services(const topos::Tally& tally) {
    std::size_t count = 0;
    for (const topos::Service& service : tally.services()) {
        count += service.fidelity == topos::Fidelity::Exact ? 0 : service.count;
    }
    return count;
}

template <class Build>
void train(benchmark::State& state, Build build, topos::Numerics numerics) {
    auto trainer = build(numerics);
    // The first run touches the arena's pages.
    const topos::Tally first = topos::Backend::tallied([&] { trainer.step(); });
    for (auto _ : state) {
        trainer.step();
    }
    state.counters["loss"] = trainer.loss();
    state.counters["product_flops"] = trainer.product_flops();
    state.counters["GFLOP/s"] = benchmark::Counter(trainer.product_flops() * 1e-9,
                                                   benchmark::Counter::kIsIterationInvariantRate);
    state.counters["arena"] = static_cast<double>(trainer.plan().arena_elements());
    state.counters["broadcast_steps"] = static_cast<double>(broadcast_steps(trainer.plan()));
    const auto [steps_at_once, groups] = concurrent_steps(trainer.plan());
    state.counters["steps"] =
        static_cast<double>(topos::detail::PlanAccess::state(trainer.plan()).steps.size());
    state.counters["steps_at_once"] = static_cast<double>(steps_at_once);
    state.counters["groups"] = static_cast<double>(groups);
    state.counters["inexact_services"] = static_cast<double>(inexact_services(first));
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

// Runs `steps` Exact steps of a workload, then prints the process's peak
// resident set as "NAME topos peak M MiB, loss L".
void print_peak_memory(const char* name,
                       workloads::SgdTrainer (*build)(topos::Numerics),
                       int steps) {
    auto trainer = build(topos::Numerics::Exact);
    for (int step = 0; step < steps; ++step) {
        trainer.step();
    }
    std::cout << name << " topos peak " << bench::peak_resident_mib() << " MiB, loss "
              << trainer.loss() << '\n';
}

}  // namespace

int main(int argc, char** argv) {
    if (argc > 1 && std::strncmp(argv[1], "--peak-memory", 13) == 0) {
        const std::string which = argv[1];
        if (which == "--peak-memory") {
            print_peak_memory("W6", workloads::mlp_step, 200);
        } else if (which == "--peak-memory=W7") {
            print_peak_memory("W7", workloads::resnet_stages_step, 3);
        } else if (which == "--peak-memory=W8") {
            print_peak_memory("W8", workloads::gpt2_block_step, 3);
        } else {
            std::cerr << "unknown " << which << "; --peak-memory takes =W7, =W8 or nothing (W6)\n";
            return 2;
        }
        return 0;
    }
    register_workload("W2_mlp_step", workloads::mlp_step);
    register_workload("W3_scalar_step", workloads::scalar_step);
    register_workload("W4_cnn_step", workloads::cnn_step);
    register_workload("W5_transformer_step", workloads::transformer_step);
    register_workload("W7_resnet_stages_step", workloads::resnet_stages_step);
    register_workload("W8_gpt2_block_step", workloads::gpt2_block_step);
    register_workload("G1_digits_mlp_step", workloads::digits_mlp_step);
    register_workload("G2_digits_cnn_step", workloads::digits_cnn_step);
    register_workload("G3_char_transformer_step", workloads::char_transformer_step);
    bench::add_kernels_context();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
