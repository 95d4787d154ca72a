// StableHlo::html: a module's text with its tokens coloured. A small scanner,
// not a parser: it recognises the tokens MLIR's pretty and generic forms are
// made of (operation names, types, SSA values and symbols, numbers, attribute
// words, comments) and writes everything else as plain escaped text.
#include <topos/show/html.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace topos::show {

namespace {

enum class Token {
    Plain,
    Op,
    Type,
    Value,
    Number,
    Keyword,
    Comment,
};

// A token's kind and its length in the text.
struct Scanned {
    Token kind = Token::Plain;
    std::size_t length = 1;
};

std::string_view class_of(Token kind) {
    switch (kind) {
        case Token::Op:
            return "hlo-op";
        case Token::Type:
            return "hlo-type";
        case Token::Value:
            return "hlo-value";
        case Token::Number:
            return "hlo-number";
        case Token::Keyword:
            return "hlo-keyword";
        case Token::Comment:
            return "hlo-comment";
        case Token::Plain:
            break;
    }
    return "";
}

bool is_alpha(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_hex_digit(char c) {
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool is_word_start(char c) {
    return is_alpha(c) || c == '_';
}

bool is_word_char(char c) {
    return is_alpha(c) || is_digit(c) || c == '_' || c == '.' || c == '$';
}

// MLIR's suffix-id: the characters after %, ^ or @.
bool is_value_char(char c) {
    return is_word_char(c) || c == '-';
}

// Words that shape an operation's syntax or name an enumerated attribute.
constexpr std::string_view keywords[] = {
    "module", "applies", "across",     "dimensions", "init",    "dims",    "dim",
    "dense",  "array",   "attributes", "true",       "false",   "private", "public",
    "sparse", "EQ",      "NE",         "LT",         "LE",      "GT",      "GE",
    "FLOAT",  "SIGNED",  "UNSIGNED",   "TOTALORDER", "DEFAULT", "HIGH",    "HIGHEST",
};

bool is_keyword(std::string_view word) {
    for (const std::string_view keyword : keywords) {
        if (word == keyword) {
            return true;
        }
    }
    return false;
}

// f32, bf16, i1, ui8, si64, index, f8E4M3FN...
bool is_scalar_type(std::string_view word) {
    if (word == "index") {
        return true;
    }
    for (const std::string_view prefix : {"bf", "ui", "si", "f", "i"}) {
        if (word.starts_with(prefix) && word.size() > prefix.size() &&
            is_digit(word[prefix.size()])) {
            const std::string_view rest = word.substr(prefix.size());
            std::size_t digits = 0;
            while (digits < rest.size() && is_digit(rest[digits])) {
                ++digits;
            }
            return digits == rest.size() || (prefix == "f" && is_alpha(rest[digits]));
        }
    }
    return false;
}

bool is_parametric_type(std::string_view word) {
    return word == "tensor" || word == "complex" || word == "tuple" || word == "vector" ||
           word == "memref";
}

bool is_op_name(std::string_view word) {
    return word == "return" ||
           (word.find('.') != std::string_view::npos && is_word_start(word.front()));
}

class Scanner {
public:
    explicit Scanner(std::string_view text) : text_(text) {}

    // The token that starts at `at`.
    Scanned scan(std::size_t at) const {
        const char c = text_[at];
        if (c == '/' && peek(at + 1) == '/') {
            return {Token::Comment, until_line_end(at) - at};
        }
        if ((c == '%' || c == '^' || c == '@') && is_value_char(peek(at + 1))) {
            return {Token::Value, run_of(at + 1, is_value_char) - at};
        }
        if (c == '"') {
            return quoted(at);
        }
        if (c == '#' && is_word_start(peek(at + 1))) {
            return {Token::Keyword, run_of(at + 1, is_word_char) - at};
        }
        if (c == '!' && is_word_start(peek(at + 1))) {
            return {Token::Type, run_of(at + 1, is_word_char) - at};
        }
        if (starts_number(at)) {
            return number(at);
        }
        if (is_word_start(c) && !continues_word(at)) {
            return word(at);
        }
        return {Token::Plain, 1};
    }

private:
    char peek(std::size_t at) const { return at < text_.size() ? text_[at] : '\0'; }

    bool continues_word(std::size_t at) const { return at > 0 && is_value_char(text_[at - 1]); }

    template <class Predicate>
    std::size_t run_of(std::size_t at, Predicate accepts) const {
        while (at < text_.size() && accepts(text_[at])) {
            ++at;
        }
        return at;
    }

    std::size_t until_line_end(std::size_t at) const {
        const std::size_t end = text_.find('\n', at);
        return end == std::string_view::npos ? text_.size() : end;
    }

    // A string literal, up to its closing quote on the same line; an
    // operation's name in the generic form ("stablehlo.add").
    Scanned quoted(std::size_t at) const {
        std::size_t end = at + 1;
        while (end < text_.size() && text_[end] != '"' && text_[end] != '\n') {
            end += text_[end] == '\\' ? 2 : 1;
        }
        if (end >= text_.size() || text_[end] != '"') {
            return {Token::Plain, std::min(end, text_.size()) - at};
        }
        const std::string_view inner = text_.substr(at + 1, end - at - 1);
        return {is_op_name(inner) ? Token::Op : Token::Plain, end + 1 - at};
    }

    bool starts_number(std::size_t at) const {
        const char c = text_[at];
        const bool digit_here = is_digit(c) || (c == '-' && is_digit(peek(at + 1)));
        return digit_here && !continues_word(at);
    }

    // 12, -0.5, 1.25e-09, 0xFF800000. Digits running into letters (2x3) are
    // not a number.
    Scanned number(std::size_t at) const {
        std::size_t end = at + (text_[at] == '-' ? 1 : 0);
        if (text_[end] == '0' && (peek(end + 1) == 'x' || peek(end + 1) == 'X') &&
            is_hex_digit(peek(end + 2))) {
            end = run_of(end + 2, is_hex_digit);
        } else {
            end = decimal(end);
        }
        if (is_word_start(peek(end))) {
            return {Token::Plain, run_of(end, is_value_char) - at};
        }
        return {Token::Number, end - at};
    }

    std::size_t decimal(std::size_t at) const {
        std::size_t end = run_of(at, is_digit);
        if (peek(end) == '.' && is_digit(peek(end + 1))) {
            end = run_of(end + 1, is_digit);
        }
        if (peek(end) == 'e' || peek(end) == 'E') {
            const std::size_t sign = peek(end + 1) == '+' || peek(end + 1) == '-' ? 1 : 0;
            if (is_digit(peek(end + 1 + sign))) {
                end = run_of(end + 1 + sign, is_digit);
            }
        }
        return end;
    }

    Scanned word(std::size_t at) const {
        const std::size_t end = run_of(at, is_word_char);
        const std::string_view text = text_.substr(at, end - at);
        if (is_parametric_type(text) && peek(end) == '<') {
            return {Token::Type, closing_angle(end) - at};
        }
        if (is_scalar_type(text)) {
            return {Token::Type, end - at};
        }
        if (is_op_name(text)) {
            return {Token::Op, end - at};
        }
        if (is_keyword(text) || names_an_attribute(end)) {
            return {Token::Keyword, end - at};
        }
        return {Token::Plain, end - at};
    }

    // A word followed by `=` (not `==`) names an attribute: `dims = [0]`.
    bool names_an_attribute(std::size_t end) const {
        const std::size_t next = run_of(end, [](char c) { return c == ' '; });
        return peek(next) == '=' && peek(next + 1) != '=';
    }

    // Just past the `>` that closes the `<` at `open`, or the line's end.
    std::size_t closing_angle(std::size_t open) const {
        int depth = 0;
        for (std::size_t at = open; at < text_.size() && text_[at] != '\n'; ++at) {
            depth += text_[at] == '<' ? 1 : 0;
            if (text_[at] == '>' && --depth == 0) {
                return at + 1;
            }
        }
        return until_line_end(open);
    }

    std::string_view text_;
};

}  // namespace

Html StableHlo::html() const {
    const Scanner scanner(module_);
    std::string markup = "<pre class=\"topos-hlo\">";
    markup.reserve(module_.size() * 3);
    std::size_t plain_from = 0;
    std::size_t at = 0;
    while (at < module_.size()) {
        const Scanned token = scanner.scan(at);
        if (token.kind != Token::Plain) {
            markup += escape(std::string_view(module_).substr(plain_from, at - plain_from));
            markup += "<span class=\"";
            markup += class_of(token.kind);
            markup += "\">";
            markup += escape(std::string_view(module_).substr(at, token.length));
            markup += "</span>";
            plain_from = at + token.length;
        }
        at += token.length;
    }
    markup += escape(std::string_view(module_).substr(plain_from));
    markup += "</pre>";
    return Html(std::move(markup));
}

}  // namespace topos::show
