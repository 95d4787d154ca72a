// The safetensors container, privately: an 8-byte little-endian header length
// n, n bytes of a JSON object, then the payload. The object maps each tensor
// name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets into the
// payload) and may hold "__metadata__", a map of strings to strings. Parsing
// checks everything before any payload byte is read: a file that is not a
// well-formed container is refused with CheckpointError, never read past.
#pragma once

#include <topos/core/shape.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

namespace topos::detail {

// The largest header accepted (the reference implementation's limit).
inline constexpr std::uint64_t safetensors_header_limit = 100'000'000;

struct StoredTensor {
    std::string dtype;  // "F32", "F64", ... as written
    Shape shape;
    std::span<const std::byte> bytes;  // into the parsed file's buffer
};

struct SafetensorsFile {
    std::vector<std::byte> buffer;  // the whole file
    std::map<std::string, StoredTensor> tensors;
    std::map<std::string, std::string> metadata;
};

// What one tensor contributes to a file: its elements already in little-endian bytes.
struct TensorToWrite {
    std::string name;
    std::string dtype;
    Shape shape;
    std::vector<std::byte> bytes;
};

// Parses and validates a whole file; `origin` names it in error messages.
// Throws CheckpointError naming the first problem.
SafetensorsFile parse_safetensors(std::vector<std::byte> buffer, const std::string& origin);

// The bytes of a file holding `tensors` in the order given, header padded with
// spaces to a multiple of 8 bytes so every payload is 8-byte aligned.
std::vector<std::byte> encode_safetensors(const std::vector<TensorToWrite>& tensors,
                                          const std::map<std::string, std::string>& metadata);

// The bytes an element type occupies, or 0 for a dtype safetensors does not define.
std::size_t safetensors_dtype_size(const std::string& dtype);

}  // namespace topos::detail
