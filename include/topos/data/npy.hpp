// data::read_npy and data::write_npy: one array in NumPy's .npy format
// (numpy.load, numpy.save), as a Tensor<T> of the array's shape. Every refusal
// is an NpyError naming the file.
//
//   numpy.save("x.npy", numpy.arange(6.0).reshape(2, 3))
//   Tensor<float> x = topos::data::read_npy<float>("x.npy");  // [2, 3]
#pragma once

#include <topos/core/tensor.hpp>

#include <filesystem>

namespace topos::data {

// The array in the regular file `path` (or a symbolic link to one) written by
// numpy.save, as a tensor of its shape, in row-major order. Reads format
// versions 1.0, 2.0 and 3.0; element types float16, float32 and float64
// (either byte order: '<f4', '>f8', ...), int8 to int64, uint8 to uint64 and
// bool ('|b1'); a rank-0 array (a scalar), an array with an extent 0, and a
// Fortran-ordered array (fortran_order True), whose elements are put back in
// row-major order. Floats are rounded once to the nearest T (float16 to float
// and double is exact); integers and bools become T exactly. Refuses, naming
// the file: a path that is not a regular file, saying what it is; one that
// cannot be opened or read; bytes that do not begin with "\x93NUMPY" and a
// version read_npy reads; a header cut short by the file's end, or not a
// Python dict of exactly 'descr', 'fortran_order' and 'shape' (a negative
// extent, a rank above Shape::max_rank, more than Shape::max_elements
// elements); another element type (complex, strings, objects, structured
// arrays), saying which; data shorter or longer than the shape needs; a
// finite float beyond T's range ("1e300" for float); an integer T does not
// hold exactly (past 2^24 for float, 2^53 for double, 256 for bf16), naming
// its index. Time O(file size); memory the tensor's, twice over for a
// Fortran-ordered array.
template <Element T>
Tensor<T> read_npy(const std::filesystem::path& path);

// Writes `tensor` to `path` as numpy.save writes an array of its shape:
// format version 1.0, '<f8' for double, '<f4' for float and for bf16 (each
// element widened exactly to float), the header padded to 64 bytes. The file
// is written beside `path` under a temporary name and renamed over it, so a
// failed write leaves `path` as it was; through a symbolic link, the file it
// names is replaced. Refuses, with an NpyError naming the file: a path that
// holds something other than a regular file or a symbolic link to one (a
// directory, a FIFO, a dangling link...), and a folder that cannot be written
// (missing, read-only, full). Time O(elements); memory a 64 KiB buffer.
template <Element T>
void write_npy(const std::filesystem::path& path, const Tensor<T>& tensor);

extern template Tensor<float> read_npy(const std::filesystem::path&);
extern template Tensor<double> read_npy(const std::filesystem::path&);
extern template Tensor<bf16> read_npy(const std::filesystem::path&);
extern template void write_npy(const std::filesystem::path&, const Tensor<float>&);
extern template void write_npy(const std::filesystem::path&, const Tensor<double>&);
extern template void write_npy(const std::filesystem::path&, const Tensor<bf16>&);

}  // namespace topos::data
