// Reading checkpoints: the safetensors header of 100k tensors parsed alone, the
// whole checkpoint::load of 20k parameters (by node and by name) and of 100k,
// and two 100 MB headers (the size limit) refused: one of '[' and one of
// {"a": repeated. Beside each time, heap_peak_MiB is the most heap the call
// held at once beyond what was live before it (every operator new counted),
// and rss_MiB the process's peak resident set so far.
#include "heap_peak.hpp"
#include "model/safetensors.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/tape.hpp>
#include <topos/model/checkpoint.hpp>
#include <topos/model/named.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <span>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using topos::CheckpointError;
using topos::Network;
using topos::Shape;
using topos::Tape;
using topos::Tensor;

std::span<const std::byte> bytes_of(const std::string& text) {
    return std::as_bytes(std::span<const char>(text.data(), text.size()));
}

// A header of `count` F32 tensors of 4 elements, as topos names parameters.
std::string header_of(std::size_t count) {
    std::string header = "{\"__metadata__\":{\"format\":\"topos\"}";
    for (std::size_t i = 0; i < count; ++i) {
        header += ",\"parameter." + std::to_string(i) + "\":{\"data_offsets\":[" +
                  std::to_string(16 * i) + "," + std::to_string(16 * i + 16) +
                  "],\"dtype\":\"F32\",\"shape\":[4]}";
    }
    return header + "}";
}

void parse_header_of_100k_tensors(benchmark::State& state) {
    const std::size_t count = 100'000;
    const std::string header = header_of(count);
    bench::measure_heap(state, [&] {
        const auto parsed =
            topos::detail::parse_safetensors_header(bytes_of(header), 16 * count, "bench");
        benchmark::DoNotOptimize(parsed.tensors.size());
    });
    state.counters["header_MB"] = static_cast<double>(header.size()) / 1e6;
}

BENCHMARK(parse_header_of_100k_tensors)->Unit(benchmark::kMillisecond);

// The most entries a header within the limit can hold: 100 MB of empty U8
// tensors, the worst case of what a valid header makes the reader keep.
void parse_100_MB_of_empty_tensors(benchmark::State& state) {
    std::string header = "{";
    std::size_t count = 0;
    while (header.size() + 64 < topos::detail::safetensors_header_limit) {
        header += count == 0 ? "\"" : ",\"";
        header +=
            std::to_string(count) + "\":{\"dtype\":\"U8\",\"shape\":[0],\"data_offsets\":[0,0]}";
        ++count;
    }
    header += "}";
    bench::measure_heap(state, [&] {
        const auto parsed = topos::detail::parse_safetensors_header(bytes_of(header), 0, "bench");
        benchmark::DoNotOptimize(parsed.tensors.size());
    });
    state.counters["tensors"] = static_cast<double>(count);
}

BENCHMARK(parse_100_MB_of_empty_tensors)->Unit(benchmark::kMillisecond);

void refuse(const std::string& header) {
    try {
        (void)topos::detail::parse_safetensors_header(bytes_of(header), 0, "bench");
    } catch (const CheckpointError& error) {
        benchmark::DoNotOptimize(error.what());
        return;
    }
    std::abort();
}

void refuse_100_MB_of_brackets(benchmark::State& state) {
    const std::string header(topos::detail::safetensors_header_limit, '[');
    bench::measure_heap(state, [&] { refuse(header); });
}

BENCHMARK(refuse_100_MB_of_brackets)->Unit(benchmark::kMillisecond);

void refuse_100_MB_of_nested_objects(benchmark::State& state) {
    std::string header;
    header.reserve(topos::detail::safetensors_header_limit);
    while (header.size() + 5 <= topos::detail::safetensors_header_limit) {
        header += "{\"a\":";
    }
    bench::measure_heap(state, [&] { refuse(header); });
}

BENCHMARK(refuse_100_MB_of_nested_objects)->Unit(benchmark::kMillisecond);

// The same refusal through checkpoint::load, which first reads the 100 MB header.
void load_refusing_100_MB_of_brackets(benchmark::State& state) {
    const fs::path path = fs::temp_directory_path() / "topos_bench_brackets.safetensors";
    {
        std::ofstream out(path, std::ios::binary | std::ios::trunc);
        const std::uint64_t length = topos::detail::safetensors_header_limit;
        for (std::size_t i = 0; i < 8; ++i) {
            out.put(static_cast<char>((length >> (8 * i)) & 0xff));
        }
        const std::string header(length, '[');
        out << header;
    }
    const Network<float> network = [] {
        Tape<float> tape;
        (void)tape.parameter(Tensor<float>::filled(Shape{4}, 1.0f));
        return std::move(tape).into_network();
    }();
    bench::measure_heap(state, [&] {
        try {
            (void)topos::checkpoint::load(path, network);
        } catch (const CheckpointError& error) {
            benchmark::DoNotOptimize(error.what());
        }
    });
    fs::remove(path);
}

BENCHMARK(load_refusing_100_MB_of_brackets)->Unit(benchmark::kMillisecond);

// A network of `count` parameters of 4 elements, and their names.
struct ManyParameters {
    Network<float> network;
    std::vector<topos::NamedParameter> names;
};

ManyParameters many_parameters(std::size_t count) {
    Tape<float> tape;
    std::vector<topos::NamedParameter> names;
    for (std::size_t i = 0; i < count; ++i) {
        const auto p = tape.parameter(Tensor<float>::filled(Shape{4}, static_cast<float>(i)));
        names.push_back({.name = "layers." + std::to_string(i) + ".weight", .symbol = p});
    }
    return {std::move(tape).into_network(), std::move(names)};
}

void load_checkpoint_by_node(benchmark::State& state) {
    const auto count = static_cast<std::size_t>(state.range(0));
    const ManyParameters model = many_parameters(count);
    const fs::path path = fs::temp_directory_path() / "topos_bench_by_node.safetensors";
    topos::checkpoint::save(path, model.network.parameters());
    bench::measure_heap(state, [&] {
        benchmark::DoNotOptimize(topos::checkpoint::load(path, model.network).size());
    });
    state.counters["file_MB"] = static_cast<double>(fs::file_size(path)) / 1e6;
    fs::remove(path);
}

BENCHMARK(load_checkpoint_by_node)->Arg(20'000)->Arg(100'000)->Unit(benchmark::kMillisecond);

void save_checkpoint_by_node(benchmark::State& state) {
    const auto count = static_cast<std::size_t>(state.range(0));
    const ManyParameters model = many_parameters(count);
    const fs::path path = fs::temp_directory_path() / "topos_bench_save.safetensors";
    const auto parameters = model.network.parameters();
    bench::measure_heap(state, [&] { topos::checkpoint::save(path, parameters); });
    fs::remove(path);
}

BENCHMARK(save_checkpoint_by_node)->Arg(20'000)->Unit(benchmark::kMillisecond);

void load_checkpoint_by_name(benchmark::State& state) {
    const auto count = static_cast<std::size_t>(state.range(0));
    const ManyParameters model = many_parameters(count);
    const fs::path path = fs::temp_directory_path() / "topos_bench_by_name.safetensors";
    topos::checkpoint::save(path, model.network.parameters(), model.names);
    bench::measure_heap(state, [&] {
        benchmark::DoNotOptimize(topos::checkpoint::load(path, model.network, model.names).size());
    });
    fs::remove(path);
}

BENCHMARK(load_checkpoint_by_name)->Arg(20'000)->Unit(benchmark::kMillisecond);

}  // namespace
