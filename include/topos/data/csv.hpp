// data::read_csv: a table of numbers in a text file, one row a line and its
// values separated by commas (numpy.loadtxt(path, delimiter=",")), as a
// Tensor<T> of shape [rows, columns].
#pragma once

#include <topos/core/tensor.hpp>

#include <filesystem>

namespace topos::data {

// How read_csv reads a file.
struct CsvOptions {
    char delimiter = ',';
    bool header = false;  // skip the first line (column names)
};

// Throws Error naming the file and the reason when it cannot be read, the line
// and column of a field that is not a number, and the line of a row whose
// length differs from the first's. Blank lines are skipped.
template <Element T>
Tensor<T> read_csv(const std::filesystem::path& path, CsvOptions options = {});

extern template Tensor<float> read_csv(const std::filesystem::path&, CsvOptions);
extern template Tensor<double> read_csv(const std::filesystem::path&, CsvOptions);

}  // namespace topos::data
