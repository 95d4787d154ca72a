// Importing from ONNX, timed: Model::read and import<float> of the largest model of
// Debian's ONNX conformance suites the importer accepts, of a ResNet-18 and of a larger
// transformer layer exported by torch.onnx.export (`--import-once` times one cold import
// in a fresh process); then inference of the imported LeNet, transformer layers and
// ResNet-18 by Exact and Fast plans on 1 and 2 threads. bench/export_onnx_bench_models.py
// writes the exported models (into TOPOS_ONNX_BENCH_MODELS, else /tmp/topos-onnx-bench);
// libtorch_onnx_bench runs the same modules on LibTorch.
#include "kernels_picked.hpp"
#include <topos/data/npy.hpp>
#include <topos/onnx.hpp>
#include <topos/topos.hpp>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <iostream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path from_environment(const char* variable, const char* fallback) {
    const char* value = std::getenv(variable);
    return value != nullptr && *value != '\0' ? fs::path(value) : fs::path(fallback);
}

const fs::path source_models = fs::path(TOPOS_SOURCE_DIR) / "data" / "onnx";
const fs::path exported_models =
    from_environment("TOPOS_ONNX_BENCH_MODELS", "/tmp/topos-onnx-bench");
const fs::path conformance_suites =
    from_environment("TOPOS_ONNX_TESTDATA", "/usr/share/libonnx-testdata/data");

// The first line of an error's message.
std::string first_line(const std::string& text) {
    return text.substr(0, text.find('\n'));
}

void require_file(const fs::path& path) {
    if (!fs::is_regular_file(path)) {
        throw std::runtime_error(path.string() +
                                 " is missing: run /usr/bin/python3 "
                                 "bench/export_onnx_bench_models.py " +
                                 exported_models.string());
    }
}

topos::onnx::ImportOptions batch_of(std::size_t batch) {
    return {.dimensions = {{"batch", batch}}};
}

// The largest model.onnx of the node, pytorch-converted, pytorch-operator and
// simple suites that read and import<float> accept, and the larger ones refused.
struct Conformance {
    fs::path largest;
    std::vector<std::string> refused;
};

Conformance find_largest_accepted() {
    std::vector<std::pair<std::uintmax_t, fs::path>> files;
    for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
        const fs::path folder = conformance_suites / suite;
        if (!fs::is_directory(folder)) {
            continue;
        }
        for (const fs::directory_entry& test : fs::directory_iterator(folder)) {
            const fs::path model = test.path() / "model.onnx";
            if (fs::is_regular_file(model)) {
                files.emplace_back(fs::file_size(model), model);
            }
        }
    }
    std::ranges::sort(files, [](const auto& a, const auto& b) {
        return a.first != b.first ? a.first > b.first : a.second < b.second;
    });
    Conformance found;
    for (const auto& [size, path] : files) {
        try {
            const auto model = topos::onnx::Model::read(path);
            (void)model.import <float>();
            found.largest = path;
            return found;
        } catch (const std::exception& error) {
            found.refused.push_back(path.parent_path().filename().string() + " (" +
                                    std::to_string(size) + " bytes): " + first_line(error.what()));
        }
    }
    return found;
}

enum class Phase {
    Read,
    Import,
    ReadAndImport,
    Lower
};

// One phase of bringing a model in: reading the file, recording it on a tape,
// both (the import time), or lowering the sealed network's Exact plan.
void bring_in(benchmark::State& state, fs::path path, std::size_t batch, Phase phase) {
    try {
        require_file(path);
        const auto model = topos::onnx::Model::read(path);
        auto imported = model.import <float>(batch_of(batch));
        state.counters["nodes"] = static_cast<double>(imported.tape.nodes().size());
        state.counters["parameters"] = static_cast<double>(imported.named_parameters().size());
        state.counters["file_MiB"] = static_cast<double>(fs::file_size(path)) / (1 << 20);
        if (phase == Phase::Lower) {
            std::vector<topos::Symbol> outputs;
            for (const auto& output : imported.outputs) {
                outputs.push_back(output.value);
            }
            const topos::Network<float> network = std::move(imported.tape).into_network();
            for (auto _ : state) {
                auto plan = network.entry(outputs).numerics(topos::Numerics::Exact).lower();
                benchmark::DoNotOptimize(plan);
            }
            return;
        }
        for (auto _ : state) {
            if (phase == Phase::Read) {
                auto read = topos::onnx::Model::read(path);
                benchmark::DoNotOptimize(read);
            } else if (phase == Phase::Import) {
                auto recorded = model.import <float>(batch_of(batch));
                benchmark::DoNotOptimize(recorded);
            } else {
                auto recorded = topos::onnx::Model::read(path).import <float>(batch_of(batch));
                benchmark::DoNotOptimize(recorded);
            }
        }
    } catch (const std::exception& error) {
        state.SkipWithError(first_line(error.what()).c_str());
    }
}

void register_import(const std::string& name, const fs::path& path, std::size_t batch) {
    for (const auto& [label, phase] : {std::pair{"read", Phase::Read},
                                       std::pair{"import", Phase::Import},
                                       std::pair{"read+import", Phase::ReadAndImport},
                                       std::pair{"lower_exact", Phase::Lower}}) {
        benchmark::RegisterBenchmark(
            ("import/" + name + "/" + label).c_str(), bring_in, path, batch, phase)
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
}

// An imported model run forward: its file, its input and PyTorch's output for it.
struct Workload {
    fs::path model;
    fs::path input;
    fs::path expected;
};

// The services of a run that no exact kernel gave.
double inexact_services(const topos::Tally& tally) {
    double count = 0;
    for (const topos::Service& service : tally.services()) {
        count +=
            service.fidelity == topos::Fidelity::Exact ? 0.0 : static_cast<double>(service.count);
    }
    return count;
}

// One Plan::forward of the imported model's output per iteration; the plan is
// lowered (and its first run taken) before timing.
void infer(benchmark::State& state,
           Workload workload,
           topos::Numerics numerics,
           std::size_t threads) {
    try {
        topos::set_threads(threads);
        require_file(workload.model);
        require_file(workload.input);
        const topos::Tensor<float> batch = topos::data::read_npy<float>(workload.input);
        auto imported =
            topos::onnx::Model::read(workload.model).import <float>(batch_of(batch.shape()[0]));
        const topos::Symbol input = imported.input("input");
        const topos::Symbol output = imported.output("output");
        const topos::Network<float> network = std::move(imported.tape).into_network();
        const auto plan = network.entry({output}).numerics(numerics).lower();
        const topos::Parameters<float> parameters = network.parameters();
        topos::Tensor<float> result;
        const topos::Tally first = topos::Backend::tallied([&] {
            result = plan.forward(parameters, {{input, batch}}).of(output);
        });
        if (fs::is_regular_file(workload.expected)) {
            const topos::Tensor<float> expected = topos::data::read_npy<float>(workload.expected);
            double difference = 0;
            const auto ours = result.data();
            const auto theirs = expected.data();
            for (std::size_t i = 0; i < std::min(ours.size(), theirs.size()); ++i) {
                difference = std::max(difference, std::abs(double(ours[i]) - double(theirs[i])));
            }
            state.counters["max_abs_diff_to_pytorch"] = difference;
        }
        state.counters["inexact_services"] = inexact_services(first);
        for (auto _ : state) {
            const auto run = plan.forward(parameters, {{input, batch}});
            benchmark::DoNotOptimize(run.of(output).data().data());
        }
    } catch (const std::exception& error) {
        state.SkipWithError(first_line(error.what()).c_str());
    }
    topos::set_threads(0);
}

void register_inference(const std::string& name, const Workload& workload) {
    for (const auto& [label, numerics] :
         {std::pair{"exact", topos::Numerics::Exact}, std::pair{"fast", topos::Numerics::Fast}}) {
        for (const std::size_t threads : {1, 2}) {
            benchmark::RegisterBenchmark(
                (name + "/topos_" + label + "/threads:" + std::to_string(threads)).c_str(),
                infer,
                workload,
                numerics,
                threads)
                ->Unit(benchmark::kMillisecond)
                ->UseRealTime();
        }
    }
}

// `onnx_bench --import-once PATH BATCH`: one Model::read and one import<float>
// in this fresh process (what a program that loads a model pays: its heap is
// cold), timed by the steady clock; prints "read_ms import_ms total_ms".
int import_once(const fs::path& path, std::size_t batch) {
    using Clock = std::chrono::steady_clock;
    const auto start = Clock::now();
    const auto model = topos::onnx::Model::read(path);
    const auto read = Clock::now();
    const auto imported = model.import <float>(batch_of(batch));
    const auto done = Clock::now();
    benchmark::DoNotOptimize(imported.tape.nodes().size());
    const auto ms = [](Clock::duration duration) {
        return std::chrono::duration<double, std::milli>(duration).count();
    };
    std::cout << ms(read - start) << ' ' << ms(done - read) << ' ' << ms(done - start) << '\n';
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc == 4 && std::string_view(argv[1]) == "--import-once") {
        return import_once(argv[2], std::stoul(argv[3]));
    }
    const Conformance conformance = find_largest_accepted();
    for (const std::string& refusal : conformance.refused) {
        std::cerr << "conformance model refused: " << refusal << '\n';
    }
    if (!conformance.largest.empty()) {
        const std::string test = conformance.largest.parent_path().filename().string();
        std::cerr << "largest accepted conformance model: " << conformance.largest << " ("
                  << fs::file_size(conformance.largest) << " bytes)\n";
        benchmark::AddCustomContext("onnx_conformance_largest", conformance.largest.string());
        register_import("conformance_largest", conformance.largest, 1);
    }
    std::string refused;
    for (const std::string& refusal : conformance.refused) {
        refused += (refused.empty() ? "" : "; ") + refusal;
    }
    benchmark::AddCustomContext("onnx_conformance_refused", refused.empty() ? "none" : refused);
    register_import("resnet18", exported_models / "resnet18.onnx", 1);
    register_import("transformer_large", exported_models / "transformer_large.onnx", 8);
    register_import("lenet", source_models / "lenet.onnx", 64);

    register_inference("lenet_b64",
                       {source_models / "lenet.onnx",
                        exported_models / "lenet.input.npy",
                        exported_models / "lenet.output.npy"});
    register_inference("transformer_2x7x16",
                       {source_models / "transformer.onnx",
                        exported_models / "transformer.input.npy",
                        exported_models / "transformer.output.npy"});
    register_inference("transformer_large_8x128x256",
                       {exported_models / "transformer_large.onnx",
                        exported_models / "transformer_large.input.npy",
                        exported_models / "transformer_large.output.npy"});
    // The same layer with its layer norms' Pow(x, 2) written as Mul(x, x).
    register_inference("transformer_large_square_8x128x256",
                       {exported_models / "transformer_large_square.onnx",
                        exported_models / "transformer_large.input.npy",
                        exported_models / "transformer_large.output.npy"});
    register_inference("resnet18_b1",
                       {exported_models / "resnet18.onnx",
                        exported_models / "resnet18.input.npy",
                        exported_models / "resnet18.output.npy"});
    bench::add_kernels_context();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
