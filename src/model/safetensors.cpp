// The safetensors container read and written: the header length checked
// against the file, the JSON header parsed with nlohmann/json (a key written
// twice refused), each entry's dtype, shape and data_offsets checked, and the
// offsets required to tile the payload with no overlap or gap; encoding writes
// the header padded with spaces to a multiple of 8 bytes.
#include "model/safetensors.hpp"

#include <topos/core/error.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <limits>
#include <set>
#include <sstream>
#include <utility>

namespace topos::detail {
namespace {

using Json = nlohmann::json;

struct Extent {
    std::uint64_t begin;
    std::uint64_t end;
    std::string name;
};

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

// The keys of every object of the header as the parser meets them, to refuse a
// key written twice: nlohmann/json would keep the last silently, so two readers
// could disagree about what the file holds.
class DuplicateKeys {
public:
    bool observe(Json::parse_event_t event, const Json& parsed) {
        if (event == Json::parse_event_t::object_start) {
            open_objects_.emplace_back();
        } else if (event == Json::parse_event_t::object_end && !open_objects_.empty()) {
            open_objects_.pop_back();
        } else if (event == Json::parse_event_t::key && !open_objects_.empty()) {
            note_key(parsed.get<std::string>());
        }
        return true;
    }

    // The first key written twice, described, or "" when there is none.
    const std::string& first() const { return first_; }

private:
    struct OpenObject {
        std::set<std::string> keys;
        std::string last_key;
    };

    void note_key(const std::string& key) {
        OpenObject& object = open_objects_.back();
        object.last_key = key;
        if (object.keys.insert(key).second || !first_.empty()) {
            return;
        }
        first_ =
            open_objects_.size() == 1
                ? "\"" + key + "\" appears twice in the header (a reader would keep one of them)"
                : "\"" + key + "\" appears twice inside the entry of \"" +
                      open_objects_.front().last_key + "\"";
    }

    std::vector<OpenObject> open_objects_;
    std::string first_;
};

Json parse_header_json(std::span<const std::byte> bytes, const std::string& origin) {
    DuplicateKeys duplicates;
    const auto* text = reinterpret_cast<const char*>(bytes.data());
    Json header = Json::parse(
        text,
        text + bytes.size(),
        [&duplicates](int, Json::parse_event_t event, Json& parsed) {
            return duplicates.observe(event, parsed);
        },
        false);
    if (header.is_discarded() || !header.is_object()) {
        refuse(origin, "its header is not a JSON object");
    }
    if (!duplicates.first().empty()) {
        refuse(origin, duplicates.first());
    }
    return header;
}

std::map<std::string, std::string> metadata_of(const Json& entry, const std::string& origin) {
    if (!entry.is_object()) {
        refuse(origin, "__metadata__ is not an object");
    }
    std::map<std::string, std::string> metadata;
    for (const auto& [key, value] : entry.items()) {
        if (!value.is_string()) {
            refuse(origin, "__metadata__." + key + " is not a string");
        }
        metadata[key] = value.get<std::string>();
    }
    return metadata;
}

std::uint64_t unsigned_of(const Json& value, const std::string& origin, const std::string& what) {
    if (!value.is_number_unsigned()) {
        refuse(origin, what + " is not a non-negative integer");
    }
    return value.get<std::uint64_t>();
}

// The product of the nonzero extents, what a Shape's strides reach, must stay
// within 2^60 - 1 (Shape's own limit), so no byte count can overflow.
void check_element_count(std::span<const std::size_t> extents,
                         const std::string& name,
                         const std::string& origin) {
    constexpr std::uint64_t largest_count = (std::uint64_t{1} << 60) - 1;
    std::uint64_t count = 1;
    for (const std::size_t extent : extents) {
        if (extent != 0 && count > largest_count / extent) {
            refuse(origin, "tensor \"" + name + "\" has more elements than fit in memory");
        }
        count *= extent == 0 ? 1 : extent;
    }
}

Shape shape_of(const Json& entry, const std::string& name, const std::string& origin) {
    const auto found = entry.find("shape");
    if (found == entry.end() || !found->is_array() || found->size() > Shape::max_rank) {
        refuse(origin,
               "tensor \"" + name + "\" needs a shape: an array of at most " +
                   std::to_string(Shape::max_rank) + " extents");
    }
    std::vector<std::size_t> extents;
    for (const Json& extent : *found) {
        const std::uint64_t value = unsigned_of(extent, origin, "an extent of \"" + name + "\"");
        if (value > std::numeric_limits<std::uint32_t>::max()) {
            refuse(origin, "an extent of \"" + name + "\" is implausibly large");
        }
        extents.push_back(static_cast<std::size_t>(value));
    }
    check_element_count(extents, name, origin);
    try {
        return Shape(std::span<const std::size_t>(extents));
    } catch (const ShapeError& error) {
        refuse(origin, "tensor \"" + name + "\" has no valid shape: " + error.what());
    }
}

// elements * dtype size, or refuses when it overflows.
std::uint64_t byte_count(const Shape& shape,
                         std::size_t size,
                         const std::string& name,
                         const std::string& origin) {
    std::uint64_t count = size;
    for (const std::size_t extent : shape.extents()) {
        if (extent != 0 && count > std::numeric_limits<std::uint64_t>::max() / extent) {
            refuse(origin, "tensor \"" + name + "\" has more elements than fit in memory");
        }
        count *= extent;
    }
    return count;
}

Extent extent_of(const Json& entry, const std::string& name, const std::string& origin) {
    const auto found = entry.find("data_offsets");
    if (found == entry.end() || !found->is_array() || found->size() != 2) {
        refuse(origin, "tensor \"" + name + "\" needs data_offsets: [begin, end]");
    }
    const std::uint64_t begin = unsigned_of((*found)[0], origin, "the begin of \"" + name + "\"");
    const std::uint64_t end = unsigned_of((*found)[1], origin, "the end of \"" + name + "\"");
    if (end < begin) {
        refuse(origin, "tensor \"" + name + "\" ends before it begins");
    }
    return {begin, end, name};
}

std::string dtype_of(const Json& entry, const std::string& name, const std::string& origin) {
    const auto found = entry.find("dtype");
    if (found == entry.end() || !found->is_string() ||
        safetensors_dtype_size(found->get<std::string>()) == 0) {
        refuse(origin, "tensor \"" + name + "\" needs a dtype safetensors defines (F32, F64, ...)");
    }
    return found->get<std::string>();
}

std::string byte_range(std::uint64_t begin, std::uint64_t end) {
    return "bytes " + std::to_string(begin) + ".." + std::to_string(end);
}

// The extents must tile the payload exactly: no overlap, no hole, nothing after.
void check_tiling(std::vector<Extent> extents, std::uint64_t payload, const std::string& origin) {
    std::sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) {
        return std::pair(a.begin, a.end) < std::pair(b.begin, b.end);
    });
    std::uint64_t covered = 0;
    const Extent* previous = nullptr;
    for (const Extent& extent : extents) {
        if (extent.begin < covered) {
            refuse(origin,
                   "tensor \"" + extent.name + "\" (" + byte_range(extent.begin, extent.end) +
                       " of the payload) overlaps another, \"" + previous->name + "\" (" +
                       byte_range(previous->begin, previous->end) + ")");
        }
        if (extent.begin > covered) {
            refuse(origin,
                   byte_range(covered, extent.begin) +
                       " of the payload belong to no tensor (a gap before \"" + extent.name +
                       "\")");
        }
        covered = extent.end;
        previous = &extent;
    }
    if (covered != payload) {
        refuse(origin,
               "the tensors cover " + std::to_string(covered) + " bytes of a payload of " +
                   std::to_string(payload) + ": " + byte_range(covered, payload) +
                   " belong to no tensor");
    }
}

}  // namespace

std::size_t safetensors_dtype_size(const std::string& dtype) {
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

SafetensorsHeader parse_safetensors_header(std::span<const std::byte> json,
                                           std::uint64_t payload_size,
                                           const std::string& origin) {
    SafetensorsHeader result;
    result.payload_size = payload_size;
    const Json header = parse_header_json(json, origin);
    std::vector<Extent> extents;
    for (const auto& [name, entry] : header.items()) {
        if (name == "__metadata__") {
            result.metadata = metadata_of(entry, origin);
            continue;
        }
        if (!entry.is_object()) {
            refuse(origin, "the entry of tensor \"" + name + "\" is not an object");
        }
        const std::string dtype = dtype_of(entry, name, origin);
        const Shape shape = shape_of(entry, name, origin);
        const Extent extent = extent_of(entry, name, origin);
        const std::uint64_t size = byte_count(shape, safetensors_dtype_size(dtype), name, origin);
        if (extent.end - extent.begin != size || extent.end > payload_size) {
            std::ostringstream problem;
            problem << "tensor \"" << name << "\" of " << dtype << ' ' << shape << " needs " << size
                    << " bytes; its data_offsets [" << extent.begin << ", " << extent.end
                    << "] do not fit a payload of " << payload_size;
            refuse(origin, problem.str());
        }
        extents.push_back(extent);
        result.tensors.emplace(name, TensorEntry{dtype, shape, extent.begin, extent.end});
    }
    check_tiling(std::move(extents), payload_size, origin);
    return result;
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
    Json header = Json::object();
    if (!metadata.empty()) {
        header["__metadata__"] = metadata;
    }
    std::uint64_t offset = 0;
    for (const TensorToWrite& tensor : tensors) {
        const std::uint64_t end = offset + tensor.bytes.size();
        header[tensor.name] = {{"dtype", tensor.dtype},
                               {"shape",
                                std::vector<std::size_t>(tensor.shape.extents().begin(),
                                                         tensor.shape.extents().end())},
                               {"data_offsets", {offset, end}}};
        offset = end;
    }
    std::string text = header.dump();
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

}  // namespace topos::detail
