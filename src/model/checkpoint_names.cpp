// The names a safetensors file can hold: the checks a save makes before it
// writes anything, with the byte that breaks UTF-8 named in hexadecimal.
#include "model/checkpoint_names.hpp"

#include "model/safetensors.hpp"
#include <topos/core/error.hpp>
#include <topos/model/checkpoint.hpp>

#include <map>
#include <optional>
#include <string_view>

namespace topos::detail {

namespace {

// "3f": a byte in two hexadecimal digits.
std::string byte_in_hex(unsigned char byte) {
    static constexpr char digits[] = "0123456789abcdef";
    return {digits[byte >> 4], digits[byte & 0xf]};
}

// The offset of the first byte of `text` that is not well-formed UTF-8
// (overlong forms, surrogates and code points past U+10FFFF are not), its size
// when it ends inside a character, or nothing when all of it is well-formed.
std::optional<std::size_t> invalid_utf8_at(std::string_view text) {
    std::size_t at = 0;
    while (at < text.size()) {
        const Utf8Sequence sequence = utf8_sequence(text.substr(at));
        if (sequence.length == 0) {
            return at + sequence.fault;
        }
        at += sequence.length;
    }
    return std::nullopt;
}

// Why `name` cannot name a tensor in a safetensors file, or "" when it can.
std::string name_problem(const std::string& name) {
    if (name.empty()) {
        return "is empty: every tensor in a file needs a name";
    }
    if (name == "__metadata__") {
        return "is reserved: a safetensors header keeps the file's metadata under it";
    }
    if (name.size() > checkpoint::longest_parameter_name) {
        return "is " + std::to_string(name.size()) + " bytes long, more than the " +
               std::to_string(checkpoint::longest_parameter_name) + " a checkpoint name may have";
    }
    if (const std::optional<std::size_t> at = invalid_utf8_at(name)) {
        const std::string where = *at == name.size()
                                      ? "it ends inside a character"
                                      : "byte " + std::to_string(*at) + ", 0x" +
                                            byte_in_hex(static_cast<unsigned char>(name[*at])) +
                                            ", is out of place";
        return "is not valid UTF-8 (" + where +
               "), which the JSON header of a safetensors file requires";
    }
    return "";
}

}  // namespace

std::string printable_name(const std::string& name) {
    constexpr std::size_t shown = 64;
    std::string text = "\"";
    for (std::size_t i = 0; i < name.size() && i < shown; ++i) {
        const auto byte = static_cast<unsigned char>(name[i]);
        if (byte >= 0x20 && byte < 0x7f && byte != '"' && byte != '\\') {
            text += static_cast<char>(byte);
        } else {
            text += "\\x" + byte_in_hex(byte);
        }
    }
    text += '"';
    return name.size() > shown ? text + "... (" + std::to_string(name.size()) + " bytes)" : text;
}

void check_names_storable(const std::filesystem::path& path,
                          const std::vector<std::string>& names,
                          const std::string& things,
                          const std::function<std::string(std::size_t)>& position) {
    const auto refuse = [&](const std::string& problem) {
        throw CheckpointError("could not save the checkpoint " + path.string() + ": " + problem +
                              " (" + path.string() + " is left as it was)");
    };
    std::map<std::string, std::size_t> first_use;
    for (std::size_t i = 0; i < names.size(); ++i) {
        const std::string& name = names[i];
        if (const std::string problem = name_problem(name); !problem.empty()) {
            refuse("the name " + printable_name(name) + " (" + position(i) + ") " + problem);
        }
        if (const auto [used, first] = first_use.emplace(name, i); !first) {
            refuse("the name " + printable_name(name) + " is given to two " + things + " (" +
                   position(used->second) + "; " + position(i) +
                   "): each tensor in a file needs its own name");
        }
    }
}

}  // namespace topos::detail
