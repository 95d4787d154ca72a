// Reading playground programs that are too large: a 50 MB program (one long
// comment) read from a file and compiled, a 50 MB single line held in memory,
// and 2 million alias statements (`b = a`), each refused; and, for scale, a
// program at the statement bound (16,384 statements) compiled. Beside each
// time, heap_peak_MiB and rss_MiB (bench/heap_peak.hpp).
#include "heap_peak.hpp"
#include <topos/core/error.hpp>
#include <topos/lang/program.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;

constexpr std::size_t fifty_megabytes = 50'000'000;

void refuse(const std::string& source) {
    try {
        (void)topos::lang::compile(source);
    } catch (const topos::Error& error) {
        benchmark::DoNotOptimize(error.what());
    }
}

// `lines` statements: a source, then aliases of it one after another.
std::string aliases(std::size_t lines) {
    std::string source = "v0 = 1\n";
    for (std::size_t i = 1; i < lines; ++i) {
        source += "v" + std::to_string(i) + " = v" + std::to_string(i - 1) + "\n";
    }
    return source;
}

void read_and_refuse_a_50_MB_program_file(benchmark::State& state) {
    const fs::path path = fs::temp_directory_path() / "topos_bench_program.tp";
    {
        std::ofstream out(path, std::ios::trunc);
        out << "a = 1\n# " << std::string(fifty_megabytes, 'x') << '\n';
    }
    bench::measure_heap(state, [&] {
        try {
            refuse(topos::lang::read_source(path.string()));
        } catch (const topos::Error& error) {
            benchmark::DoNotOptimize(error.what());
        }
    });
    fs::remove(path);
}

BENCHMARK(read_and_refuse_a_50_MB_program_file)->Unit(benchmark::kMillisecond);

void refuse_a_50_MB_line(benchmark::State& state) {
    const std::string source = "a = " + std::string(fifty_megabytes, '1');
    bench::measure_heap(state, [&] { refuse(source); });
}

BENCHMARK(refuse_a_50_MB_line)->Unit(benchmark::kMillisecond);

void refuse_two_million_aliases(benchmark::State& state) {
    const std::string source = aliases(2'000'000);
    state.counters["source_MB"] = static_cast<double>(source.size()) / 1e6;
    bench::measure_heap(state, [&] { refuse(source); });
}

BENCHMARK(refuse_two_million_aliases)->Unit(benchmark::kMillisecond);

void compile_the_most_statements(benchmark::State& state) {
    const std::string source = aliases(topos::lang::default_max_statements);
    bench::measure_heap(state, [&] { benchmark::DoNotOptimize(topos::lang::compile(source)); });
}

BENCHMARK(compile_the_most_statements)->Unit(benchmark::kMillisecond);

}  // namespace
