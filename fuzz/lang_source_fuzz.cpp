// libFuzzer target for the playground language's reader. Each input is a
// program's source, answered by answer_json as the page asks it, and compiled
// once more to check where a ProgramError is placed; then compiled under a
// small source bound with every byte past the bound poisoned (under
// AddressSanitizer), and read from a file (a memfd) under that bound.
//
// A finding is any of: a crash or sanitizer report, a poisoned byte read
// included; an exception that is not a topos::Error; a ProgramError placed
// outside the source; an answer that is not well-formed JSON; a source past
// the bound that is not refused with the size error; a file read further than
// the bound and one byte. The seed corpus (fuzz/corpus/lang_source/) holds the
// programs of tests/lang/programs and the walk-through.
#include "../tests/lang/fuzz_harness.hpp"
#include "memory_file.hpp"
#include <topos/core/error.hpp>
#include <topos/lang/play.hpp>
#include <topos/lang/program.hpp>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <memory>
#include <sanitizer/asan_interface.h>
#include <string>
#include <string_view>

namespace {

using topos::lang::Limits;
using topos::lang::ProgramError;

// A bound small enough that many inputs pass it (a multiple of 8, so the
// poisoned bytes start on AddressSanitizer's granule).
constexpr std::size_t small_bound = 64;

[[noreturn]] void finding(const std::string& what, std::string_view source) {
    std::fprintf(stderr,
                 "lang_source_fuzz finding: %s\n--- source (%zu bytes) ---\n%.*s\n---\n",
                 what.c_str(),
                 source.size(),
                 static_cast<int>(source.size()),
                 source.data());
    std::abort();
}

void check_compile(std::string_view source) {
    try {
        (void)topos::lang::compile(source);
    } catch (const ProgramError& error) {
        if (const std::string problem = topos::lang::test::positioned_error_problem(source, error);
            !problem.empty()) {
            finding(problem, source);
        }
    } catch (const topos::Error&) {
    } catch (const std::exception& error) {
        finding(std::string("a non-topos exception: ") + error.what(), source);
    }
}

void check_answer(std::string_view source) {
    std::string answer;
    try {
        answer = topos::lang::answer_json(source, {});
    } catch (...) {
        finding("answer_json threw", source);
    }
    if (const std::string error = topos::lang::test::json_error(answer); !error.empty()) {
        finding("the answer is not JSON: " + error, source);
    }
}

// Past the small bound the source must be refused at its first byte past it,
// and no byte past it read.
void check_bound(std::string_view source) {
    if (source.size() <= small_bound) {
        return;
    }
    const std::unique_ptr<char[]> copy(new char[source.size()]);
    std::memcpy(copy.get(), source.data(), source.size());
    ASAN_POISON_MEMORY_REGION(copy.get() + small_bound, source.size() - small_bound);
    const std::string_view poisoned(copy.get(), source.size());
    bool refused = false;
    try {
        (void)topos::lang::compile(poisoned, Limits{.max_source_bytes = small_bound});
    } catch (const ProgramError& error) {
        refused = error.reason().starts_with("the program is longer than 64 bytes");
    } catch (const std::exception&) {
    }
    ASAN_UNPOISON_MEMORY_REGION(copy.get() + small_bound, source.size() - small_bound);
    if (!refused) {
        finding("a source past the bound is not refused with the size error", source);
    }
}

void check_file(std::string_view source) {
    static const topos::fuzz::MemoryFile file("lang_source_fuzz");
    const std::string read = topos::lang::read_source(
        file.path_holding(source.data(), source.size()), Limits{.max_source_bytes = small_bound});
    if (read != source.substr(0, small_bound + 1)) {
        finding("the file was read as " + std::to_string(read.size()) + " other bytes", source);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view source(reinterpret_cast<const char*>(data), size);
    check_compile(source);
    check_answer(source);
    check_bound(source);
    check_file(source);
    return 0;
}
