// libFuzzer target for the ONNX importer. Each input is parsed as a
// ModelProto and, when that succeeds and its declared inputs are small,
// recorded at a batch of 2 and run once by the interpreter. A ModelError or an
// ImportError is the expected refusal (and any topos::Error the run raises);
// any other exception, a crash or a sanitizer report is a finding. The seed
// corpus (fuzz/corpus/onnx/) holds the MLP and residual block of data/onnx
// and a few of ONNX's node tests.
#include <topos/core/error.hpp>
#include <topos/onnx.hpp>
#include <topos/run/run.hpp>

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>

namespace {

// Inputs are recorded with zeros as their defaults: a fuzzed shape of 2^40
// elements would ask the allocator for terabytes, which is not a finding.
constexpr double largest_input = 1 << 20;

bool inputs_are_small(const topos::onnx::Summary& summary) {
    for (const auto& input : summary.inputs) {
        double elements = 1;
        for (const auto& dimension : input.dimensions) {
            elements *= dimension.extent >= 0 ? static_cast<double>(dimension.extent) : 2.0;
        }
        if (elements > largest_input) {
            return false;
        }
    }
    return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(data), size);
    try {
        const auto model = topos::onnx::Model::parse(bytes);
        if (!inputs_are_small(model.summary())) {
            return 0;
        }
        auto imported = model.import({.default_extent = 2});
        const auto network = std::move(imported.tape).into_network();
        (void)network.forward(network.parameters());
    } catch (const topos::Error&) {
    }
    return 0;
}
