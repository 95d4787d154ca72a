// read_csv over text held in memory, privately: the same checks and messages
// as a file's (read_csv feeds its bytes to the same reader), with `origin`
// naming the text. The fuzzer (fuzz/csv_fuzz.cpp) drives the reader through
// this, with no file system in between.
#pragma once

#include <topos/data/csv.hpp>

#include <string>
#include <string_view>

namespace topos::data {

// The table `text` holds; throws CsvError as read_csv does, options.max_bytes
// included.
template <ComputeElement T>
Tensor<T> read_csv_text(std::string_view text, CsvOptions options, const std::string& origin);

extern template Tensor<float> read_csv_text(std::string_view, CsvOptions, const std::string&);
extern template Tensor<double> read_csv_text(std::string_view, CsvOptions, const std::string&);

}  // namespace topos::data
