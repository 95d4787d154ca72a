// The safetensors container around its header: the header length checked
// against the file, a whole file in memory split into header and payload, the
// dtypes' sizes, and the encoder, which writes the header as compact JSON (keys
// in byte order, strings escaped, UTF-8 checked) padded with spaces to a
// multiple of 8 bytes. The header itself is read by safetensors_header.cpp.
#include "model/safetensors.hpp"

#include <topos/core/error.hpp>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace topos::detail {
namespace {

[[noreturn]] void refuse(const std::string& origin, const std::string& problem) {
    throw CheckpointError(origin + " is not a valid safetensors file: " + problem);
}

std::uint64_t read_u64_le(std::span<const std::byte> bytes) {
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < 8; ++i) {
        value |= static_cast<std::uint64_t>(bytes[i]) << (8 * i);
    }
    return value;
}

void append_u64_le(std::vector<std::byte>& out, std::uint64_t value) {
    for (std::size_t i = 0; i < 8; ++i) {
        out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xff));
    }
}

// `text` with each byte that is not part of a well-formed UTF-8 character
// written as \xNN, for a message about it.
std::string printable(std::string_view text) {
    constexpr std::string_view digits = "0123456789abcdef";
    std::string shown;
    std::size_t at = 0;
    while (at < text.size()) {
        const std::size_t length = utf8_sequence(text.substr(at)).length;
        if (length == 0) {
            const auto byte = static_cast<unsigned char>(text[at]);
            shown += "\\x";
            shown += digits[byte >> 4];
            shown += digits[byte & 0xf];
            ++at;
        } else {
            shown.append(text.substr(at, length));
            at += length;
        }
    }
    return shown;
}

// Appends `text` as a JSON string, escaped as nlohmann/json's dump escapes:
// the quote, the backslash and the control characters (\b \f \n \r \t, the
// others as \u00xx), everything else as it is. `what` names the string for
// the CheckpointError that a string of malformed UTF-8 gets.
void append_json_string(std::string& out, std::string_view text, const std::string& what) {
    constexpr std::string_view digits = "0123456789abcdef";
    out += '"';
    std::size_t at = 0;
    while (at < text.size()) {
        const auto byte = static_cast<unsigned char>(text[at]);
        if (byte >= 0x80) {
            const std::size_t length = utf8_sequence(text.substr(at)).length;
            if (length == 0) {
                throw CheckpointError("cannot write a safetensors header: " + what + " \"" +
                                      printable(text) + "\" is not well-formed UTF-8 (byte " +
                                      std::to_string(at) + " of it, " + std::string("0x") +
                                      digits[byte >> 4] + digits[byte & 0xf] +
                                      ", begins no character), and JSON strings must be");
            }
            out.append(text.substr(at, length));
            at += length;
            continue;
        }
        switch (byte) {
            case '"':
                out += "\\\"";
                break;
            case '\\':
                out += "\\\\";
                break;
            case '\b':
                out += "\\b";
                break;
            case '\f':
                out += "\\f";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                if (byte < 0x20) {
                    out += "\\u00";
                    out += digits[byte >> 4];
                    out += digits[byte & 0xf];
                } else {
                    out += static_cast<char>(byte);
                }
        }
        ++at;
    }
    out += '"';
}

// One top-level member of the header being written: a tensor, or the metadata.
struct Member {
    std::string_view key;
    const TensorToWrite* tensor;  // null for __metadata__
    std::uint64_t begin;
    std::uint64_t end;
};

}  // namespace

Utf8Sequence utf8_sequence(std::string_view bytes) {
    if (bytes.empty()) {
        return {0, 0};
    }
    const auto at = [&](std::size_t i) { return static_cast<unsigned char>(bytes[i]); };
    const unsigned char lead = at(0);
    if (lead < 0x80) {
        return {1, 0};
    }
    std::size_t length = 0;
    // The range of the second byte, which excludes overlong forms, surrogates
    // and code points above U+10FFFF (RFC 3629, section 4).
    unsigned char low = 0x80;
    unsigned char high = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf) {
        length = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        length = 3;
        low = lead == 0xe0 ? 0xa0 : 0x80;
        high = lead == 0xed ? 0x9f : 0xbf;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        length = 4;
        low = lead == 0xf0 ? 0x90 : 0x80;
        high = lead == 0xf4 ? 0x8f : 0xbf;
    } else {
        return {0, 0};
    }
    for (std::size_t i = 1; i < length; ++i) {
        if (i == bytes.size()) {
            return {0, i};
        }
        if (at(i) < (i == 1 ? low : 0x80) || at(i) > (i == 1 ? high : 0xbf)) {
            return {0, i};
        }
    }
    return {length, 0};
}

std::size_t safetensors_dtype_size(std::string_view dtype) {
    static const std::array<std::pair<const char*, std::size_t>, 15> sizes{{
        {"BOOL", 1},
        {"U8", 1},
        {"I8", 1},
        {"F8_E5M2", 1},
        {"F8_E4M3", 1},
        {"I16", 2},
        {"U16", 2},
        {"F16", 2},
        {"BF16", 2},
        {"I32", 4},
        {"U32", 4},
        {"F32", 4},
        {"I64", 8},
        {"U64", 8},
        {"F64", 8},
    }};
    for (const auto& [name, size] : sizes) {
        if (dtype == name) {
            return size;
        }
    }
    return 0;
}

std::uint64_t checked_header_length(std::span<const std::byte> prefix,
                                    std::uint64_t file_size,
                                    const std::string& origin) {
    if (file_size < safetensors_length_bytes || prefix.size() < safetensors_length_bytes) {
        refuse(origin,
               "it has " + std::to_string(file_size) +
                   " bytes, fewer than the 8 of the header length");
    }
    const std::uint64_t length = read_u64_le(prefix);
    const std::uint64_t after_length = file_size - safetensors_length_bytes;
    if (length > safetensors_header_limit) {
        refuse(origin,
               "its header length " + std::to_string(length) + " exceeds the limit of " +
                   std::to_string(safetensors_header_limit) + " bytes (the file has " +
                   std::to_string(file_size) + " bytes)");
    }
    if (length > after_length) {
        refuse(origin,
               "its header length " + std::to_string(length) +
                   " runs past the end of the file of " + std::to_string(file_size) + " bytes (" +
                   std::to_string(after_length) + " bytes follow the length); it is truncated");
    }
    return length;
}

SafetensorsFile parse_safetensors(std::span<const std::byte> bytes, const std::string& origin) {
    const std::uint64_t length = checked_header_length(bytes, bytes.size(), origin);
    const std::span<const std::byte> after_length = bytes.subspan(safetensors_length_bytes);
    const std::span<const std::byte> payload = after_length.subspan(length);
    SafetensorsFile file;
    file.header = parse_safetensors_header(after_length.first(length), payload.size(), origin);
    file.payload.assign(payload.begin(), payload.end());
    return file;
}

std::vector<std::byte> encode_safetensors(const std::vector<TensorToWrite>& tensors,
                                          const std::map<std::string, std::string>& metadata) {
    // Keys in byte order (std::string's order), as a JSON object held in a
    // std::map writes them; the payload keeps the order given.
    std::vector<Member> members;
    members.reserve(tensors.size() + 1);
    std::uint64_t offset = 0;
    for (const TensorToWrite& tensor : tensors) {
        if (tensor.name == "__metadata__") {
            throw CheckpointError(
                "cannot write a safetensors header: a tensor may not be named __metadata__, the "
                "key safetensors keeps for the file's metadata");
        }
        members.push_back({tensor.name, &tensor, offset, offset + tensor.bytes.size()});
        offset += tensor.bytes.size();
    }
    if (!metadata.empty()) {
        members.push_back({"__metadata__", nullptr, 0, 0});
    }
    std::sort(members.begin(), members.end(), [](const Member& a, const Member& b) {
        return a.key < b.key;
    });
    const auto twice =
        std::adjacent_find(members.begin(), members.end(), [](const Member& a, const Member& b) {
            return a.key == b.key;
        });
    if (twice != members.end()) {
        throw CheckpointError("cannot write a safetensors header: the tensor name \"" +
                              printable(twice->key) +
                              "\" is given twice, and a header holds each name once");
    }
    std::string text = "{";
    for (const Member& member : members) {
        if (text.size() > 1) {
            text += ',';
        }
        if (member.tensor == nullptr) {
            text += "\"__metadata__\":{";
            bool first = true;
            for (const auto& [key, value] : metadata) {
                text += first ? "" : ",";
                first = false;
                append_json_string(text, key, "the metadata key");
                text += ':';
                append_json_string(text, value, "the metadata value of \"" + printable(key) + "\"");
            }
            text += '}';
            continue;
        }
        const TensorToWrite& tensor = *member.tensor;
        append_json_string(text, tensor.name, "the tensor name");
        text += ":{\"data_offsets\":[" + std::to_string(member.begin) + ',' +
                std::to_string(member.end) + "],\"dtype\":";
        append_json_string(text, tensor.dtype, "the dtype of a tensor");
        text += ",\"shape\":[";
        const std::span<const std::size_t> extents = tensor.shape.extents();
        for (std::size_t axis = 0; axis < extents.size(); ++axis) {
            text += (axis == 0 ? "" : ",") + std::to_string(extents[axis]);
        }
        text += "]}";
    }
    text += '}';
    text.append((8 - text.size() % 8) % 8, ' ');
    std::vector<std::byte> out;
    out.reserve(8 + text.size() + offset);
    append_u64_le(out, text.size());
    for (const char c : text) {
        out.push_back(static_cast<std::byte>(c));
    }
    for (const TensorToWrite& tensor : tensors) {
        out.insert(out.end(), tensor.bytes.begin(), tensor.bytes.end());
    }
    return out;
}

bool HeaderNesting::refuses(std::span<const std::byte> more) {
    for (const std::byte byte : more) {
        if (refused_) {
            break;
        }
        const auto c = static_cast<char>(byte);
        if (in_string_) {
            if (escaped_) {
                escaped_ = false;
            } else if (c == '\\') {
                escaped_ = true;
            } else if (c == '"') {
                in_string_ = false;
            }
            continue;
        }
        if (!started_) {
            if (c == ' ' || c == '\n' || c == '\r' || c == '\t') {
                continue;
            }
            started_ = true;
            refused_ = c != '{';
        }
        if (c == '"') {
            in_string_ = true;
        } else if (c == '{' || c == '[') {
            refused_ = ++depth_ > safetensors_header_depth;
        } else if ((c == '}' || c == ']') && depth_ > 0) {
            --depth_;
        }
    }
    return refused_;
}

}  // namespace topos::detail
