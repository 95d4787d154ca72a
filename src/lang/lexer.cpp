// The lexer: one line into tokens. Names are ASCII letters, digits and `_`
// (not starting with a digit); a number is any run of letters, digits, dots
// and exponent signs that starts with a digit or a dot and a digit, checked
// later by whoever reads it, so `1.2.3` is one bad number rather than three
// tokens.
#include "syntax.hpp"

#include <algorithm>
#include <cstdio>

namespace topos::lang::detail {

namespace {

bool is_letter(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

bool is_digit(char c) {
    return c >= '0' && c <= '9';
}

bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

std::optional<TokenKind> punctuation(char c) {
    switch (c) {
        case '+':
            return TokenKind::Plus;
        case '-':
            return TokenKind::Minus;
        case '*':
            return TokenKind::Star;
        case '/':
            return TokenKind::Slash;
        case '@':
            return TokenKind::At;
        case '(':
            return TokenKind::LeftParen;
        case ')':
            return TokenKind::RightParen;
        case '[':
            return TokenKind::LeftBracket;
        case ']':
            return TokenKind::RightBracket;
        case ',':
            return TokenKind::Comma;
        case '=':
            return TokenKind::Equals;
        default:
            return std::nullopt;
    }
}

std::size_t name_end(std::string_view line, std::size_t at) {
    while (at < line.size() && (is_letter(line[at]) || is_digit(line[at]))) {
        ++at;
    }
    return at;
}

// A sign belongs to a number only right after its exponent's `e`.
std::size_t number_end(std::string_view line, std::size_t start) {
    std::size_t at = start;
    while (at < line.size()) {
        const char c = line[at];
        const bool exponent_sign = (c == '+' || c == '-') && at > start &&
                                   (line[at - 1] == 'e' || line[at - 1] == 'E') &&
                                   std::all_of(line.begin() + static_cast<std::ptrdiff_t>(start),
                                               line.begin() + static_cast<std::ptrdiff_t>(at - 1),
                                               [](char d) { return is_digit(d) || d == '.'; });
        if (!is_letter(c) && !is_digit(c) && c != '.' && !exponent_sign) {
            break;
        }
        ++at;
    }
    return at;
}

bool starts_number(std::string_view line, std::size_t at) {
    return is_digit(line[at]) ||
           (line[at] == '.' && at + 1 < line.size() && is_digit(line[at + 1]));
}

}  // namespace

std::string shown_byte(char byte) {
    const auto code = static_cast<unsigned char>(byte);
    if (code >= 0x20 && code < 0x7f) {
        return std::string(1, byte);
    }
    std::array<char, 8> escaped{};
    std::snprintf(escaped.data(), escaped.size(), "\\x%02X", static_cast<unsigned>(code));
    return escaped.data();
}

std::string shown(const Token& token) {
    if (token.kind == TokenKind::End) {
        return "the end of the line";
    }
    return "`" + std::string(token.text) + "`";
}

std::vector<Token> tokenize(std::string_view line, std::size_t line_number) {
    std::vector<Token> tokens;
    std::size_t at = 0;
    while (at < line.size() && line[at] != '#') {
        const char c = line[at];
        std::size_t end = at + 1;
        TokenKind kind = TokenKind::Name;
        if (is_space(c)) {
            ++at;
            continue;
        }
        if (is_letter(c)) {
            end = name_end(line, at);
        } else if (starts_number(line, at)) {
            kind = TokenKind::Number;
            end = number_end(line, at);
        } else if (const auto mark = punctuation(c)) {
            kind = *mark;
        } else {
            fail({line_number, at + 1},
                 "unexpected character `" + shown_byte(c) +
                     "`; a statement is `name = expression` (# starts a comment)");
        }
        tokens.push_back({kind, line.substr(at, end - at), at + 1});
        at = end;
    }
    tokens.push_back({TokenKind::End, {}, at + 1});
    return tokens;
}

const FunctionInfo* function_named(std::string_view name) {
    for (const FunctionInfo& info : functions) {
        if (info.name == name) {
            return &info;
        }
    }
    return nullptr;
}

std::optional<StatementKind> source_named(std::string_view name) {
    if (name == "parameter") {
        return StatementKind::Parameter;
    }
    if (name == "input") {
        return StatementKind::Input;
    }
    if (name == "leaf") {
        return StatementKind::Leaf;
    }
    return std::nullopt;
}

}  // namespace topos::lang::detail
