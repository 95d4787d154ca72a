// The safetensors container, privately: an 8-byte little-endian header length
// n, n bytes of a JSON object, then the payload. The object maps each tensor
// name to {"dtype", "shape", "data_offsets": [begin, end]} (offsets into the
// payload) and may hold "__metadata__", a map of strings to strings. A file is
// checked in the order it is read: the header length against the file's size,
// then the header against the payload's size, and only then may the payload
// be read; a file that is not a well-formed container is refused with
// CheckpointError, never read past. The header is read in one pass by a parser
// of exactly this schema (safetensors_header.cpp): its memory grows with what
// the header declares, never with how deeply it nests, and its refusals name
// the byte of the header where the problem is.
#pragma once

#include <topos/core/shape.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace topos::detail {

// The largest header accepted (the reference implementation's limit).
inline constexpr std::uint64_t safetensors_header_limit = 100'000'000;

// The bytes of the header length that opens every file.
inline constexpr std::size_t safetensors_length_bytes = 8;

// The deepest nesting a header may have: the header object, an entry, and an
// array inside the entry (its shape or data_offsets). A value of a key the
// schema does not know may nest only as far; an array or object below that is
// refused at its first byte.
inline constexpr std::size_t safetensors_header_depth = 3;

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
// `payload_size` bytes: dtypes, shapes, offsets, tiling, no duplicate keys,
// strings of well-formed UTF-8, at most safetensors_header_depth levels.
SafetensorsHeader parse_safetensors_header(std::span<const std::byte> json,
                                           std::uint64_t payload_size,
                                           const std::string& origin);

// Follows a header's bytes as they are read, chunk by chunk, for what makes a
// header hostile before it is complete: a first value that is not an object,
// or brackets (outside strings) nested deeper than safetensors_header_depth.
// When it sees either, parse_safetensors_header on the bytes read so far
// refuses the header at that byte, so a reader need not read on.
class HeaderNesting {
public:
    // Whether the bytes so far, ending with `more`, show either.
    bool refuses(std::span<const std::byte> more);

private:
    std::size_t depth_ = 0;
    bool started_ = false;
    bool in_string_ = false;
    bool escaped_ = false;
    bool refused_ = false;
};

// Parses and validates a whole file held in memory.
SafetensorsFile parse_safetensors(std::span<const std::byte> bytes, const std::string& origin);

// The bytes of a file holding `tensors` in the order given, header padded with
// spaces to a multiple of 8 bytes so every payload is 8-byte aligned. The
// header is compact JSON with its keys in byte order, at both levels. Throws
// CheckpointError for a name, metadata key or value that is not well-formed
// UTF-8, a name given twice, or a tensor named __metadata__.
std::vector<std::byte> encode_safetensors(const std::vector<TensorToWrite>& tensors,
                                          const std::map<std::string, std::string>& metadata);

// The bytes an element type occupies, or 0 for a dtype safetensors does not define.
std::size_t safetensors_dtype_size(std::string_view dtype);

// What begins a run of bytes as UTF-8: a well-formed character of `length`
// bytes (1 to 4), or none, with `length` 0 and `fault` the offset of the first
// byte out of place. That is 0 for a byte that begins no character (a stray
// continuation byte, 0xc0, 0xc1, 0xf5 to 0xff), a later offset for an
// overlong form, a surrogate, a code point above U+10FFFF or a byte that does
// not continue the character, and the run's size for a sequence cut short.
struct Utf8Sequence {
    std::size_t length = 0;
    std::size_t fault = 0;
};

// The UTF-8 sequence (RFC 3629) that begins `bytes`.
Utf8Sequence utf8_sequence(std::string_view bytes);

}  // namespace topos::detail
