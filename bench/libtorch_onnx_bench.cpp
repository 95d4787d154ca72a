// The LibTorch peer of onnx_bench: the PyTorch modules whose ONNX exports topos imports,
// traced to TorchScript by bench/export_onnx_bench_models.py, loaded with torch::jit::load
// and run forward in eval mode under torch::NoGradGuard, one forward per iteration.
// Transformers run twice: traced without gradients (PyTorch's fused inference path) and
// with them (the composite path torch.onnx.export records). `--threads=N` sets the
// intra-op pool (default 1); run with OPENBLAS_NUM_THREADS=1 so that no second pool starts.
#include "thread_count_argument.hpp"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>
#include <torch/script.h>
#include <torch/torch.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path exported_models() {
    const char* value = std::getenv("TOPOS_ONNX_BENCH_MODELS");
    return value != nullptr && *value != '\0' ? fs::path(value) : fs::path("/tmp/topos-onnx-bench");
}

// A little-endian float32 C-ordered array written by numpy.save (what
// export_onnx_bench_models.py writes), as a tensor.
torch::Tensor read_npy(const fs::path& path) {
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        throw std::runtime_error(path.string() +
                                 " is missing: run /usr/bin/python3 "
                                 "bench/export_onnx_bench_models.py " +
                                 exported_models().string());
    }
    const std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                                  std::istreambuf_iterator<char>());
    if (bytes.size() < 10 || std::memcmp(bytes.data(), "\x93NUMPY", 6) != 0) {
        throw std::runtime_error(path.string() + " is not a .npy file");
    }
    const bool version_one = bytes[6] == 1;
    const std::size_t length_bytes = version_one ? 2 : 4;
    std::size_t header_length = 0;
    for (std::size_t i = 0; i < length_bytes; ++i) {
        header_length |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + i]))
                         << (8 * i);
    }
    const std::size_t start = 8 + length_bytes;
    const std::string header(bytes.data() + start, header_length);
    if (header.find("'descr': '<f4'") == std::string::npos ||
        header.find("'fortran_order': False") == std::string::npos) {
        throw std::runtime_error(path.string() + ": not a C-ordered float32 array: " + header);
    }
    std::vector<std::int64_t> shape;
    const std::size_t open = header.find('(', header.find("'shape'"));
    const std::size_t close = header.find(')', open);
    std::string extents = header.substr(open + 1, close - open - 1);
    std::replace(extents.begin(), extents.end(), ',', ' ');
    std::size_t position = 0;
    while (position < extents.size()) {
        std::size_t used = 0;
        if (extents.find_first_not_of(' ', position) == std::string::npos) {
            break;
        }
        shape.push_back(std::stoll(extents.substr(position), &used));
        position += used;
    }
    const std::size_t data_bytes = bytes.size() - start - header_length;
    auto tensor = torch::empty(shape, torch::kFloat32);
    if (data_bytes != static_cast<std::size_t>(tensor.numel()) * sizeof(float)) {
        throw std::runtime_error(path.string() + ": data does not match its shape");
    }
    std::memcpy(tensor.data_ptr<float>(), bytes.data() + start + header_length, data_bytes);
    return tensor;
}

// One forward of a traced module per iteration, after one untimed forward.
void infer(benchmark::State& state, std::string name, std::string module_file) {
    try {
        const fs::path folder = exported_models();
        const torch::Tensor input = read_npy(folder / (name + ".input.npy"));
        const torch::Tensor expected = read_npy(folder / (name + ".output.npy"));
        torch::NoGradGuard no_gradients;
        torch::jit::script::Module module = torch::jit::load((folder / module_file).string());
        module.eval();
        const std::vector<torch::jit::IValue> arguments{input};
        const torch::Tensor first = module.forward(arguments).toTensor();
        state.counters["max_abs_diff_to_pytorch"] = (first - expected).abs().max().item<double>();
        for (auto _ : state) {
            torch::Tensor output = module.forward(arguments).toTensor();
            benchmark::DoNotOptimize(output.data_ptr<float>());
        }
    } catch (const std::exception& error) {
        const std::string message(error.what());
        state.SkipWithError(message.substr(0, message.find('\n')).c_str());
    }
}

}  // namespace

int main(int argc, char** argv) {
    const int threads = take_thread_count(argc, argv);
    at::set_num_threads(threads);
    const std::string suffix = "/threads:" + std::to_string(threads);

    struct Row {
        const char* workload;
        const char* column;
        const char* name;
        const char* module;
    };

    for (const Row& row : {
             Row{"lenet_b64", "libtorch", "lenet", "lenet.pt"},
             Row{"transformer_2x7x16", "libtorch", "transformer", "transformer.pt"},
             Row{"transformer_2x7x16",
                 "libtorch_composite",
                 "transformer",
                 "transformer_composite.pt"},
             Row{"transformer_large_8x128x256",
                 "libtorch",
                 "transformer_large",
                 "transformer_large.pt"},
             Row{"transformer_large_8x128x256",
                 "libtorch_composite",
                 "transformer_large",
                 "transformer_large_composite.pt"},
             Row{"resnet18_b1", "libtorch", "resnet18", "resnet18.pt"},
         }) {
        benchmark::RegisterBenchmark(
            (std::string(row.workload) + "/" + row.column + suffix).c_str(),
            infer,
            std::string(row.name),
            std::string(row.module))
            ->Unit(benchmark::kMillisecond)
            ->UseRealTime();
    }
    benchmark::AddCustomContext("libtorch_threads", std::to_string(at::get_num_threads()));
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
