// The header of a .npy file, privately: the Python dict literal numpy.save
// writes after the magic bytes ("{'descr': '<f4', 'fortran_order': False,
// 'shape': (2, 3), }"), read into the element type, the order and the shape
// it names, and written back byte for byte as numpy.save writes it.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace topos::data {

// An element type as 'descr' names it: '<f4' is kind 'f', 4 bytes, little-endian.
struct NpyElement {
    std::string descr;
    char kind = 'f';  // 'f' float, 'i' signed and 'u' unsigned integer, 'b' bool
    std::size_t bytes = 4;
    bool big_endian = false;
};

// What a header says about the array after it.
struct NpyHeader {
    NpyElement element;
    bool fortran_order = false;
    std::vector<std::size_t> shape;  // outermost first; empty for a scalar
};

// Reads a header's dict: exactly the keys 'descr', 'fortran_order' and
// 'shape', in any order, spaced as Python allows, with the element types
// read_npy reads and at most Shape::max_rank extents whose product stays
// within Shape::max_elements. Throws NpyError "cannot read ORIGIN: ..." saying
// what is wrong and where in the header.
NpyHeader parse_npy_header(std::string_view text, const std::string& origin);

// The bytes before the data of a row-major array of `descr` and `shape` that
// numpy.save writes: the magic string, version 1.0, the header's length and
// the header, padded with spaces (and numpy's room for the first extent to
// grow) to a multiple of 64 bytes and ended by '\n'.
std::string npy_preamble(std::string_view descr, std::span<const std::size_t> shape);

// The magic string every .npy file begins with.
inline constexpr std::string_view npy_magic{"\x93NUMPY", 6};

}  // namespace topos::data
