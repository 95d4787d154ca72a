// The safetensors container, privately: an 8-byte little-endian header length
// n, n bytes of a JSON object, then the payload. The object maps each tensor
// name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets into the
// payload) and may hold "__metadata__", a map of strings to strings. A file is
// checked in the order it is read: the header length against the file's size,
// then the header against the payload's size, and only then may the payload
// be read; a file that is not a well-formed container is refused with
// CheckpointError, never read past.
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

// The bytes of the header length that opens every file.
inline constexpr std::size_t safetensors_length_bytes = 8;

// One tensor as the header describes it; its bytes are [begin, end) of the payload.
struct TensorEntry {
    std::string dtype;  // "F32", "F64", ... as written
    Shape shape;
    std::uint64_t begin = 0;
    std::uint64_t end = 0;
};

// A validated header: the entries tile a payload of `payload_size` bytes exactly.
struct SafetensorsHeader {
    std::map<std::string, TensorEntry> tensors;
    std::map<std::string, std::string> metadata;
    std::uint64_t payload_size = 0;
};

// A whole file: its header, and the payload its entries point into.
struct SafetensorsFile {
    SafetensorsHeader header;
    std::vector<std::byte> payload;
};

// What one tensor contributes to a file: its elements already in little-endian bytes.
struct TensorToWrite {
    std::string name;
    std::string dtype;
    Shape shape;
    std::vector<std::byte> bytes;
};

// The header length that `prefix` (the file's first 8 bytes) declares, checked
// against the limit and against the `file_size` bytes of the whole file.
// `origin` names the file in error messages.
std::uint64_t checked_header_length(std::span<const std::byte> prefix,
                                    std::uint64_t file_size,
                                    const std::string& origin);

// Parses the JSON header and checks every entry against a payload of
// `payload_size` bytes: dtypes, shapes, offsets, tiling, no duplicate keys.
SafetensorsHeader parse_safetensors_header(std::span<const std::byte> json,
                                           std::uint64_t payload_size,
                                           const std::string& origin);

// Parses and validates a whole file held in memory.
SafetensorsFile parse_safetensors(std::span<const std::byte> bytes, const std::string& origin);

// The bytes of a file holding `tensors` in the order given, header padded with
// spaces to a multiple of 8 bytes so every payload is 8-byte aligned.
std::vector<std::byte> encode_safetensors(const std::vector<TensorToWrite>& tensors,
                                          const std::map<std::string, std::string>& metadata);

// The bytes an element type occupies, or 0 for a dtype safetensors does not define.
std::size_t safetensors_dtype_size(const std::string& dtype);

}  // namespace topos::detail
