// Floating-point numbers as text, as std::to_chars writes them and
// std::from_chars reads them. Where the standard library has those for float
// and double (__cpp_lib_to_chars), these are they. Where it has not (the
// libc++ of Emscripten 3.1, from LLVM 13), the *_by_c_library functions give
// the same text through snprintf and strtod, which round correctly: the
// shortest digits that read back as the value (the nearest such), in fixed or
// scientific notation, whichever is shorter (fixed on a tie), as std::to_chars
// writes them. They are compiled everywhere, so that a test compares them
// with the standard library's.
#pragma once

#include <charconv>
#include <system_error>

namespace topos::detail {

std::to_chars_result to_chars_by_c_library(char* first, char* last, float value);
std::to_chars_result to_chars_by_c_library(char* first, char* last, double value);
std::to_chars_result to_chars_by_c_library(
    char* first, char* last, double value, std::chars_format format, int precision);
std::from_chars_result from_chars_by_c_library(const char* first, const char* last, double& value);

// The shortest decimal that reads back as `value`.
inline std::to_chars_result to_chars(char* first, char* last, float value) {
#if defined(__cpp_lib_to_chars)
    return std::to_chars(first, last, value);
#else
    return to_chars_by_c_library(first, last, value);
#endif
}

inline std::to_chars_result to_chars(char* first, char* last, double value) {
#if defined(__cpp_lib_to_chars)
    return std::to_chars(first, last, value);
#else
    return to_chars_by_c_library(first, last, value);
#endif
}

// `precision` digits in `format`: printf's %.*f, %.*e, %.*g (and %.*a without 0x).
inline std::to_chars_result to_chars(
    char* first, char* last, double value, std::chars_format format, int precision) {
#if defined(__cpp_lib_to_chars)
    return std::to_chars(first, last, value, format, precision);
#else
    return to_chars_by_c_library(first, last, value, format, precision);
#endif
}

// A decimal number (std::chars_format::general): no leading space, no '+'.
inline std::from_chars_result from_chars(const char* first, const char* last, double& value) {
#if defined(__cpp_lib_to_chars)
    return std::from_chars(first, last, value);
#else
    return from_chars_by_c_library(first, last, value);
#endif
}

}  // namespace topos::detail
