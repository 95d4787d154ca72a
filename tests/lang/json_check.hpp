// A JSON well-formedness checker (RFC 8259) for the tests and the fuzz driver:
// values, objects, arrays, strings with their escapes (no raw control
// characters, valid UTF-8), numbers, literals; nesting bounded. It answers
// what is wrong and where, or nothing.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace topos::lang::test {

class JsonChecker {
public:
    explicit JsonChecker(std::string_view text) : text_(text) {}

    // Empty when the text is one well-formed JSON value, else what is wrong and where.
    std::string run() {
        space();
        value(0);
        space();
        if (error_.empty() && at_ != text_.size()) {
            fail("text after the value");
        }
        return error_;
    }

private:
    static constexpr std::size_t max_depth = 256;

    bool ok() const { return error_.empty(); }

    void fail(const std::string& what) {
        if (error_.empty()) {
            error_ = what + " at byte " + std::to_string(at_);
        }
    }

    char peek() const { return at_ < text_.size() ? text_[at_] : '\0'; }

    void space() {
        while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\n' ||
                                      text_[at_] == '\t' || text_[at_] == '\r')) {
            ++at_;
        }
    }

    bool take(char c) {
        if (peek() == c && at_ < text_.size()) {
            ++at_;
            return true;
        }
        return false;
    }

    void value(std::size_t depth) {
        if (depth > max_depth) {
            fail("nesting too deep");
            return;
        }
        const char c = peek();
        if (c == '{') {
            object(depth);
        } else if (c == '[') {
            array(depth);
        } else if (c == '"') {
            string();
        } else if (c == '-' || (c >= '0' && c <= '9')) {
            number();
        } else if (!literal("true") && !literal("false") && !literal("null")) {
            fail("expected a value");
        }
    }

    bool literal(std::string_view word) {
        if (text_.substr(at_, word.size()) == word) {
            at_ += word.size();
            return true;
        }
        return false;
    }

    void object(std::size_t depth) {
        ++at_;
        space();
        if (take('}')) {
            return;
        }
        while (ok()) {
            space();
            if (peek() != '"') {
                fail("expected a key");
                return;
            }
            string();
            space();
            if (!take(':')) {
                fail("expected ':'");
                return;
            }
            space();
            value(depth + 1);
            space();
            if (take('}')) {
                return;
            }
            if (!take(',')) {
                fail("expected ',' or '}'");
            }
        }
    }

    void array(std::size_t depth) {
        ++at_;
        space();
        if (take(']')) {
            return;
        }
        while (ok()) {
            space();
            value(depth + 1);
            space();
            if (take(']')) {
                return;
            }
            if (!take(',')) {
                fail("expected ',' or ']'");
            }
        }
    }

    std::size_t digits() {
        std::size_t count = 0;
        while (peek() >= '0' && peek() <= '9' && at_ < text_.size()) {
            ++at_;
            ++count;
        }
        return count;
    }

    void number() {
        take('-');
        if (take('0')) {
            if (peek() >= '0' && peek() <= '9') {
                fail("leading zero");
                return;
            }
        } else if (digits() == 0) {
            fail("expected digits");
            return;
        }
        if (take('.') && digits() == 0) {
            fail("expected a fraction");
            return;
        }
        if (take('e') || take('E')) {
            if (!take('+')) {
                take('-');
            }
            if (digits() == 0) {
                fail("expected an exponent");
            }
        }
    }

    void string() {
        ++at_;
        while (ok()) {
            if (at_ >= text_.size()) {
                fail("unterminated string");
                return;
            }
            const auto c = static_cast<unsigned char>(text_[at_]);
            if (c == '"') {
                ++at_;
                return;
            }
            if (c < 0x20) {
                fail("raw control character in a string");
            } else if (c == '\\') {
                escape();
            } else if (c >= 0x80) {
                utf8();
            } else {
                ++at_;
            }
        }
    }

    void escape() {
        ++at_;
        const char c = peek();
        if (c == 'u') {
            ++at_;
            for (int i = 0; i < 4; ++i) {
                const char h = peek();
                const bool hex =
                    (h >= '0' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F');
                if (!hex || at_ >= text_.size()) {
                    fail("bad \\u escape");
                    return;
                }
                ++at_;
            }
            return;
        }
        if (std::string_view("\"\\/bfnrt").find(c) == std::string_view::npos ||
            at_ >= text_.size()) {
            fail("bad escape");
            return;
        }
        ++at_;
    }

    void utf8() {
        const auto lead = static_cast<unsigned char>(text_[at_]);
        const std::size_t continuation = lead >= 0xF0 ? 3 : lead >= 0xE0 ? 2 : lead >= 0xC2 ? 1 : 0;
        if (continuation == 0 || lead > 0xF4) {
            fail("invalid UTF-8 lead byte");
            return;
        }
        ++at_;
        for (std::size_t i = 0; i < continuation; ++i) {
            if (at_ >= text_.size() || (static_cast<unsigned char>(text_[at_]) & 0xC0) != 0x80) {
                fail("invalid UTF-8 continuation");
                return;
            }
            ++at_;
        }
    }

    std::string_view text_;
    std::size_t at_ = 0;
    std::string error_;
};

// Empty when `text` is well-formed JSON, else what is wrong and where.
inline std::string json_error(std::string_view text) {
    return JsonChecker(text).run();
}

}  // namespace topos::lang::test
