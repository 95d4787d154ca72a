// The JSON reader: one recursive descent over the text, each refusal naming
// the byte at which it was found.
#include "model/json.hpp"

#include "core/regular_file.hpp"
#include <topos/core/error.hpp>

#include <cerrno>
#include <cstdint>
#include <system_error>
#include <unistd.h>
#include <utility>

namespace topos::detail::json {

const char* Value::kind() const {
    constexpr const char* kinds[] = {
        "null", "a boolean", "a number", "a string", "an array", "an object"};
    return kinds[held.index()];
}

const Value* Value::member(std::string_view key) const {
    if (const auto* object = std::get_if<Object>(&held)) {
        for (const Member& member : *object) {
            if (member.name == key) {
                return &member.value;
            }
        }
    }
    return nullptr;
}

namespace {

constexpr std::size_t deepest = 64;

class Reader {
public:
    Reader(std::string_view text, const std::string& source) : text_(text), source_(source) {}

    Value whole() {
        Value value = next_value(0);
        skip_space();
        if (at_ < text_.size()) {
            refuse("text after the value");
        }
        return value;
    }

private:
    [[noreturn]] void refuse(const std::string& what) const {
        throw CheckpointError(source_ + " is not valid JSON: " + what + " at byte " +
                              std::to_string(at_));
    }

    void skip_space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' ||
                                      text_[at_] == '\n' || text_[at_] == '\r')) {
            ++at_;
        }
    }

    char peek() {
        skip_space();
        if (at_ >= text_.size()) {
            refuse("the text ends where a value or a delimiter should be");
        }
        return text_[at_];
    }

    void expect(char c) {
        if (peek() != c) {
            refuse(std::string("'") + c + "' expected");
        }
        ++at_;
    }

    bool word(std::string_view expected) {
        if (text_.substr(at_, expected.size()) == expected) {
            at_ += expected.size();
            return true;
        }
        return false;
    }

    Value next_value(std::size_t depth) {
        if (depth > deepest) {
            refuse("nesting deeper than " + std::to_string(deepest));
        }
        const char c = peek();
        if (c == '{') {
            return {next_object(depth)};
        }
        if (c == '[') {
            return {next_array(depth)};
        }
        if (c == '"') {
            return {next_string()};
        }
        if (word("null")) {
            return {nullptr};
        }
        if (word("true")) {
            return {true};
        }
        if (word("false")) {
            return {false};
        }
        if (c == '-' || (c >= '0' && c <= '9')) {
            return {next_number()};
        }
        refuse("a value expected");
    }

    Object next_object(std::size_t depth) {
        expect('{');
        Object object;
        if (peek() == '}') {
            ++at_;
            return object;
        }
        while (true) {
            if (peek() != '"') {
                refuse("a member's name (a string) expected");
            }
            const std::size_t key_at = at_;
            std::string key = next_string();
            for (const Member& member : object) {
                if (member.name == key) {
                    at_ = key_at;
                    refuse("the key \"" + key + "\" written twice");
                }
            }
            expect(':');
            Value value = next_value(depth + 1);
            object.push_back(Member{std::move(key), std::move(value)});
            if (peek() == '}') {
                ++at_;
                return object;
            }
            expect(',');
        }
    }

    Array next_array(std::size_t depth) {
        expect('[');
        Array array;
        if (peek() == ']') {
            ++at_;
            return array;
        }
        while (true) {
            array.push_back(next_value(depth + 1));
            if (peek() == ']') {
                ++at_;
                return array;
            }
            expect(',');
        }
    }

    Number next_number() {
        const std::size_t start = at_;
        const auto digits = [this] {
            const std::size_t first = at_;
            while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') {
                ++at_;
            }
            if (at_ == first) {
                refuse("a digit expected");
            }
        };
        if (text_[at_] == '-') {
            ++at_;
        }
        if (at_ < text_.size() && text_[at_] == '0') {
            ++at_;
        } else {
            digits();
        }
        bool integer = true;
        if (at_ < text_.size() && text_[at_] == '.') {
            ++at_;
            digits();
            integer = false;
        }
        if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
            ++at_;
            if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) {
                ++at_;
            }
            digits();
            integer = false;
        }
        return {std::string(text_.substr(start, at_ - start)), integer};
    }

    std::uint32_t next_hex4() {
        if (at_ + 4 > text_.size()) {
            refuse("four hexadecimal digits expected after \\u");
        }
        std::uint32_t code = 0;
        for (int i = 0; i < 4; ++i) {
            const char h = text_[at_++];
            code <<= 4U;
            if (h >= '0' && h <= '9') {
                code |= static_cast<std::uint32_t>(h - '0');
            } else if (h >= 'a' && h <= 'f') {
                code |= static_cast<std::uint32_t>(h - 'a' + 10);
            } else if (h >= 'A' && h <= 'F') {
                code |= static_cast<std::uint32_t>(h - 'A' + 10);
            } else {
                --at_;
                refuse("a hexadecimal digit expected after \\u");
            }
        }
        return code;
    }

    static void append_utf8(std::string& out, std::uint32_t code) {
        const auto byte = [&out](std::uint32_t b) { out += static_cast<char>(b); };
        if (code < 0x80) {
            byte(code);
        } else if (code < 0x800) {
            byte(0xc0 | (code >> 6U));
            byte(0x80 | (code & 0x3fU));
        } else if (code < 0x10000) {
            byte(0xe0 | (code >> 12U));
            byte(0x80 | ((code >> 6U) & 0x3fU));
            byte(0x80 | (code & 0x3fU));
        } else {
            byte(0xf0 | (code >> 18U));
            byte(0x80 | ((code >> 12U) & 0x3fU));
            byte(0x80 | ((code >> 6U) & 0x3fU));
            byte(0x80 | (code & 0x3fU));
        }
    }

    std::uint32_t next_escaped_code() {
        std::uint32_t code = next_hex4();
        if (code >= 0xd800 && code < 0xdc00) {
            if (!word("\\u")) {
                refuse("a high surrogate without its low surrogate");
            }
            const std::uint32_t low = next_hex4();
            if (low < 0xdc00 || low >= 0xe000) {
                refuse("a high surrogate followed by no low surrogate");
            }
            code = 0x10000 + ((code - 0xd800) << 10U) + (low - 0xdc00);
        } else if (code >= 0xdc00 && code < 0xe000) {
            refuse("a low surrogate without its high surrogate");
        }
        return code;
    }

    std::string next_string() {
        expect('"');
        std::string out;
        while (true) {
            if (at_ >= text_.size()) {
                refuse("the text ends inside a string");
            }
            const char c = text_[at_++];
            if (c == '"') {
                return out;
            }
            if (static_cast<unsigned char>(c) < 0x20) {
                --at_;
                refuse("a control character inside a string");
            }
            if (c != '\\') {
                out += c;
                continue;
            }
            if (at_ >= text_.size()) {
                refuse("the text ends inside an escape");
            }
            const char escape = text_[at_++];
            switch (escape) {
                case '"':
                case '\\':
                case '/':
                    out += escape;
                    break;
                case 'b':
                    out += '\b';
                    break;
                case 'f':
                    out += '\f';
                    break;
                case 'n':
                    out += '\n';
                    break;
                case 'r':
                    out += '\r';
                    break;
                case 't':
                    out += '\t';
                    break;
                case 'u':
                    append_utf8(out, next_escaped_code());
                    break;
                default:
                    --at_;
                    refuse("an unknown escape \\" + std::string(1, escape));
            }
        }
    }

    std::string_view text_;
    const std::string& source_;
    std::size_t at_ = 0;
};

}  // namespace

Value parse(std::string_view text, const std::string& source) {
    return Reader(text, source).whole();
}

std::string read_text_file(const std::filesystem::path& path, std::uint64_t limit) {
    const RegularFile file = open_regular_file(path);
    if (file.descriptor < 0) {
        throw CheckpointError("cannot read " + path.string() + ": " +
                              (file.error != 0 ? std::generic_category().message(file.error)
                                               : "it is " + file_kind(file.mode)));
    }
    const OwnedDescriptor owned(file.descriptor);
    if (file.bytes > limit) {
        throw CheckpointError(path.string() + " holds " + std::to_string(file.bytes) +
                              " bytes, more than the " + std::to_string(limit) +
                              " a configuration or an index may");
    }
    std::string text(static_cast<std::size_t>(file.bytes), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t got = ::read(owned.get(), text.data() + done, text.size() - done);
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got <= 0) {
            throw CheckpointError(
                "cannot read " + path.string() + ": " +
                (got < 0 ? std::generic_category().message(errno) : "it ended early"));
        }
        done += static_cast<std::size_t>(got);
    }
    return text;
}

}  // namespace topos::detail::json
