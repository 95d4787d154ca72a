// A strict reader of JSON texts (RFC 8259) for the files a released model
// folder holds beside its tensors (config.json, model.safetensors.index.json):
// objects keep their members in order and refuse a key written twice,
// numbers keep their text (so an integer is read exactly), strings are
// decoded (escapes, surrogate pairs) to UTF-8, and nesting deeper than 64 is
// refused. Every refusal is a CheckpointError naming the source and the byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace topos::detail::json {

struct Value;
struct Member;
using Array = std::vector<Value>;
using Object = std::vector<Member>;

// A number as written: its text, and whether it is an integer (no fraction, no exponent).
struct Number {
    std::string text;
    bool integer = false;
};

struct Value {
    std::variant<std::nullptr_t, bool, Number, std::string, Array, Object> held;

    // "null", "a boolean", "a number", "a string", "an array" or "an object".
    const char* kind() const;

    // The member `key` of an object; nullptr when absent or not an object.
    const Value* member(std::string_view key) const;
};

// An object's member: its name and its value.
struct Member {
    std::string name;
    Value value;
};

// The value `text` holds; `source` names it in messages (a file's path).
Value parse(std::string_view text, const std::string& source);

// The text of the regular file `path` (a JSON file beside a model's tensors),
// refused with CheckpointError when it is missing, not a regular file, or
// larger than `limit` bytes.
std::string read_text_file(const std::filesystem::path& path, std::uint64_t limit = 64U << 20U);

}  // namespace topos::detail::json
