// data::read_csv: a table of numbers in a text file, one row a line and its
// values separated by commas (numpy.loadtxt(path, delimiter=",")), as a
// Tensor<T> of shape [rows, columns]. Every refusal is a CsvError naming the
// file, and the line and column where there is one.
#pragma once

#include <topos/core/tensor.hpp>

#include <cstdint>
#include <filesystem>

namespace topos::data {

// How read_csv reads a file: the delimiter between values, whether line 1 is
// a header to skip, and the largest file it reads (1 GiB by default).
struct CsvOptions {
    char delimiter = ',';  // not '\n', '\r', a digit, '.', '+', '-', 'e' or 'E'
    bool header = false;   // skip the first line (column names)
    std::uint64_t max_bytes = std::uint64_t{1} << 30;  // the largest file read: 1 GiB
};

// The table of numbers in the regular file `path`, of at most
// options.max_bytes bytes, as a [rows, columns] tensor; every refusal is a
// CsvError naming the file, and the line and column where there is one.
// Accepts: a regular file or a symbolic link to one; lines ending in "\n" or
// "\r\n" (the last may lack it); a leading UTF-8 byte order mark; blank lines
// (skipped); spaces and tabs around a field; fields as std::from_chars reads
// them ("1", "-2.5", "3e-1", "inf", "nan"), with an optional leading '+'.
// Each field is read as the nearest double, then rounded to T; a magnitude
// too small for T reads as 0 (or a subnormal). The column of a message counts
// fields from 1. Refuses, naming the file: a path that is not a regular file,
// saying what it is (a directory, a FIFO, a device...); one that cannot be
// opened or read (a read error mid-file too); a file larger than
// options.max_bytes, by its size before reading and by the bytes read while
// reading (a file growing meanwhile); a file with no row of numbers (empty,
// blank, or a header alone); a delimiter CsvOptions rules out. Refuses, naming the line and
// column too: a field that is not a number (quoted, cut to its first 40 bytes;
// on line 1 with a hint at CsvOptions::header); a finite number out of T's
// range ("1e39" for float, "1e400" for double); a row whose count of values
// differs from the first row's. Time O(file size); memory sizeof(T) bytes a
// value (each takes at least 2 bytes of the file: a digit and a delimiter or
// line end), twice over while the tensor is made.
template <ComputeElement T>
Tensor<T> read_csv(const std::filesystem::path& path, CsvOptions options = {});

extern template Tensor<float> read_csv(const std::filesystem::path&, CsvOptions);
extern template Tensor<double> read_csv(const std::filesystem::path&, CsvOptions);

}  // namespace topos::data
