// libFuzzer target for the CSV reader. The first byte of each input picks the
// options (bit 0: a header; bits 1-2: the delimiter ',', ';', tab or space,
// so the seeds begin with 0x00 for commas); the rest is the text,
// read by read_csv_text (the reader read_csv feeds a file's bytes to) in
// double and in float. The seed corpus is fuzz/corpus/csv/, the dictionary
// fuzz/csv.dict.
//
// A finding is any of: a crash or sanitizer report; an exception that is not
// a CsvError, or one whose message does not name the origin; a table that is
// not [rows, columns] with rows and columns at least 1; a float read that
// succeeds where the double read fails, or whose shape or values are not the
// double read's rounded to float.
#include "data/csv_text.hpp"
#include <topos/core/error.hpp>

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <optional>
#include <string>
#include <string_view>

namespace {

using topos::Element;
using topos::Tensor;

const std::string origin = "the fuzzer's input";

[[noreturn]] void finding(const char* what, const char* detail = "") {
    std::fprintf(stderr, "csv_fuzz finding: %s %s\n", what, detail);
    std::abort();
}

// The table, or nothing when the reader refused the text as it should.
template <Element T>
std::optional<Tensor<T>> read(std::string_view text, topos::data::CsvOptions options) {
    try {
        Tensor<T> table = topos::data::read_csv_text<T>(text, options, origin);
        const topos::Shape& shape = table.shape();
        if (shape.rank() != 2 || shape[0] == 0 || shape[1] == 0 ||
            shape[0] * shape[1] != table.elements()) {
            finding("a table that is not [rows, columns]:", shape.str().c_str());
        }
        return table;
    } catch (const topos::CsvError& error) {
        if (std::string_view(error.what()).find(origin) == std::string_view::npos) {
            finding("a CsvError that does not name the origin:", error.what());
        }
        return std::nullopt;
    } catch (const std::exception& error) {
        finding("an exception that is not a CsvError:", error.what());
    }
}

bool same_bits(float a, float b) {
    return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    if (size == 0) {
        return 0;
    }
    constexpr char delimiters[] = {',', ';', '\t', ' '};
    const topos::data::CsvOptions options{.delimiter = delimiters[(data[0] >> 1) & 3],
                                          .header = (data[0] & 1) != 0,
                                          .max_bytes = std::uint64_t{1} << 20};
    const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
    const std::optional<Tensor<double>> wide = read<double>(text, options);
    const std::optional<Tensor<float>> narrow = read<float>(text, options);
    if (!narrow) {
        return 0;
    }
    if (!wide || wide->shape() != narrow->shape()) {
        finding("a float read that is not the double read's");
    }
    for (std::size_t i = 0; i < narrow->elements(); ++i) {
        if (!same_bits(static_cast<float>(wide->data()[i]), narrow->data()[i])) {
            finding("a float value that is not the double value rounded");
        }
    }
    return 0;
}
