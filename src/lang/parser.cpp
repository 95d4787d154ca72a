// The parser: one line's tokens into a statement's syntax tree, by recursive
// descent over the precedence levels (sums, products, unary minus, primaries).
// Recursion happens only where the source nests (parentheses, calls, unary
// minus), each level counted against Limits::max_depth, and every tree node
// records its height, bounded the same way, so that neither parsing nor
// recording a hostile line can exhaust the stack.
#include "syntax.hpp"
#include <topos/core/shape.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <locale>
#include <sstream>
#include <utility>

namespace topos::lang::detail {

namespace {

bool all_digits(std::string_view text) {
    return !text.empty() &&
           std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// digits [. digits] [e [+-] digits], with a digit somewhere before the exponent.
bool well_formed_number(std::string_view text) {
    std::size_t at = 0;
    std::size_t mantissa_digits = 0;
    const auto digits = [&] {
        std::size_t count = 0;
        while (at < text.size() && text[at] >= '0' && text[at] <= '9') {
            ++at;
            ++count;
        }
        return count;
    };
    mantissa_digits += digits();
    if (at < text.size() && text[at] == '.') {
        ++at;
        mantissa_digits += digits();
    }
    if (mantissa_digits == 0) {
        return false;
    }
    if (at < text.size() && (text[at] == 'e' || text[at] == 'E')) {
        ++at;
        if (at < text.size() && (text[at] == '+' || text[at] == '-')) {
            ++at;
        }
        if (digits() == 0) {
            return false;
        }
    }
    return at == text.size();
}

std::string usage_of(const FunctionInfo& info) {
    const std::string name(info.name);
    switch (info.extra) {
        case Extra::Axis:
            return name + "(a, axis)";
        case Extra::Shape:
            return name + "(a, [2, 3])";
        case Extra::None:
            break;
    }
    return name + "(a)";
}

constexpr const char* too_deep_advice = "; split it over several statements";

class Parser {
public:
    Parser(std::vector<Token> tokens, std::size_t line, std::size_t max_depth)
        : tokens_(std::move(tokens)), line_(line), max_depth_(max_depth) {}

    std::optional<StatementSyntax> statement() {
        if (peek().kind == TokenKind::End) {
            return std::nullopt;
        }
        StatementSyntax result;
        const Token name = take();
        check_statement_name(name);
        result.name = std::string(name.text);
        result.at = at(name);
        const Token equals = take();
        if (equals.kind != TokenKind::Equals) {
            fail(at(equals), "expected `=` after " + shown(name) + ", found " + shown(equals));
        }
        if (peek().kind == TokenKind::End) {
            fail(at(peek()), "expected an expression after `=`");
        }
        if (peek().kind == TokenKind::Name && source_named(peek().text)) {
            result.source = source();
        } else {
            result.expression = expression(0);
        }
        expect_end();
        return result;
    }

private:
    const Token& peek() const { return tokens_[next_]; }

    // The next token; the End token is never passed.
    const Token& take() {
        const Token& token = tokens_[next_];
        if (token.kind != TokenKind::End) {
            ++next_;
        }
        return token;
    }

    Position at(const Token& token) const { return {line_, token.column}; }

    void check_statement_name(const Token& name) const {
        if (name.kind != TokenKind::Name) {
            fail(at(name),
                 "a statement starts with a name: `name = expression`, found " + shown(name));
        }
        if (function_named(name.text) != nullptr) {
            fail(at(name),
                 shown(name) + " is a function's name; choose another name for the statement");
        }
        if (source_named(name.text)) {
            fail(at(name),
                 shown(name) + " declares a source; choose another name for the statement");
        }
    }

    void expect_end() const {
        const Token& token = peek();
        if (token.kind == TokenKind::RightParen) {
            fail(at(token), "this `)` closes no `(`");
        }
        if (token.kind != TokenKind::End) {
            fail(at(token),
                 "unexpected " + shown(token) + " after the expression; one statement per line");
        }
    }

    // The helpers outside the recursion are kept out of line, so that each
    // level of nesting costs the stack only the recursive functions' frames.
    [[gnu::noinline]] void enter(const Token& token, std::size_t depth) const {
        if (depth > max_depth_) {
            fail(at(token),
                 "the expression nests deeper than " + std::to_string(max_depth_) + " levels" +
                     too_deep_advice);
        }
    }

    [[gnu::noinline]] ExpressionPtr node(Expression::Kind kind, const Token& token) const {
        auto expression = std::make_unique<Expression>();
        expression->kind = kind;
        expression->at = at(token);
        expression->text = std::string(token.text);
        return expression;
    }

    // `parent` over `operands`, its height checked against the bound.
    [[gnu::noinline]] ExpressionPtr with_operands(ExpressionPtr parent,
                                                  ExpressionPtr first,
                                                  ExpressionPtr second = nullptr) const {
        parent->operands.push_back(std::move(first));
        if (second) {
            parent->operands.push_back(std::move(second));
        }
        for (const ExpressionPtr& operand : parent->operands) {
            parent->height = std::max(parent->height, operand->height + 1);
        }
        if (parent->height > max_depth_) {
            fail(parent->at,
                 "the expression nests more than " + std::to_string(max_depth_) +
                     " operations deep" + too_deep_advice);
        }
        return parent;
    }

    SourceSyntax source() {
        const Token keyword = take();
        SourceSyntax result;
        result.kind = *source_named(keyword.text);
        result.at = at(keyword);
        if (peek().kind != TokenKind::LeftBracket) {
            fail(at(peek()),
                 shown(keyword) + " needs a shape: `" + std::string(keyword.text) +
                     " [2, 3]`, found " + shown(peek()));
        }
        result.extents_at = at(peek());
        result.extents = shape();
        return result;
    }

    // '[' [whole (',' whole)*] ']'
    [[gnu::noinline]] std::vector<std::size_t> shape() {
        const Token open = take();
        std::vector<std::size_t> extents;
        if (peek().kind == TokenKind::RightBracket) {
            take();
            return extents;
        }
        while (true) {
            extents.push_back(extent(take()));
            const Token separator = take();
            if (separator.kind == TokenKind::RightBracket) {
                return extents;
            }
            if (separator.kind == TokenKind::End) {
                fail(at(open), "this `[` is never closed");
            }
            if (separator.kind != TokenKind::Comma) {
                fail(at(separator), "expected `,` or `]` in the shape, found " + shown(separator));
            }
        }
    }

    std::size_t extent(const Token& token) const {
        if (token.kind != TokenKind::Number || !all_digits(token.text)) {
            fail(at(token), "an extent is a whole number (0 or more), found " + shown(token));
        }
        std::size_t value = 0;
        for (const char digit : token.text) {
            value = value * 10 + static_cast<std::size_t>(digit - '0');
            if (value > Shape::max_elements) {
                fail(at(token),
                     "the extent " + shown(token) + " is larger than a shape allows (" +
                         std::to_string(Shape::max_elements) + ")");
            }
        }
        return value;
    }

    // sum := product (('+' | '-') product)*
    ExpressionPtr expression(std::size_t depth) {
        ExpressionPtr left = product(depth);
        while (peek().kind == TokenKind::Plus || peek().kind == TokenKind::Minus) {
            const Token& op = take();
            ExpressionPtr right = product(depth);
            left = with_operands(
                node(Expression::Kind::Binary, op), std::move(left), std::move(right));
        }
        return left;
    }

    // product := unary (('*' | '/' | '@') unary)*
    ExpressionPtr product(std::size_t depth) {
        ExpressionPtr left = unary(depth);
        while (peek().kind == TokenKind::Star || peek().kind == TokenKind::Slash ||
               peek().kind == TokenKind::At) {
            const Token& op = take();
            ExpressionPtr right = unary(depth);
            left = with_operands(
                node(Expression::Kind::Binary, op), std::move(left), std::move(right));
        }
        return left;
    }

    // unary := '-' unary | primary; a minus before a number is the number's sign.
    ExpressionPtr unary(std::size_t depth) {
        if (peek().kind != TokenKind::Minus) {
            return primary(depth);
        }
        const Token& minus = take();
        enter(minus, depth + 1);
        if (peek().kind == TokenKind::Number) {
            ExpressionPtr literal = number(take(), true);
            literal->at = at(minus);
            return literal;
        }
        ExpressionPtr operand = unary(depth + 1);
        return with_operands(node(Expression::Kind::Negate, minus), std::move(operand));
    }

    ExpressionPtr primary(std::size_t depth) {
        const Token& token = take();
        if (token.kind == TokenKind::Number) {
            return number(token, false);
        }
        if (token.kind == TokenKind::Name) {
            if (const FunctionInfo* info = callable(token)) {
                return call(token, *info, depth);
            }
            return node(Expression::Kind::Name, token);
        }
        if (token.kind != TokenKind::LeftParen) {
            fail_expected_expression(token);
        }
        enter(token, depth + 1);
        ExpressionPtr inner = expression(depth + 1);
        close(token, nullptr);
        return inner;
    }

    [[noreturn, gnu::noinline]] void fail_expected_expression(const Token& token) const {
        fail(at(token), "expected an expression, found " + shown(token));
    }

    [[gnu::noinline]] ExpressionPtr number(const Token& token, bool negative) const {
        if (!well_formed_number(token.text)) {
            fail(at(token),
                 "bad number " + shown(token) +
                     "; write digits with an optional fraction and exponent, as "
                     "2, 0.5 or 1e-3");
        }
        std::istringstream stream{std::string(token.text)};
        stream.imbue(std::locale::classic());
        // Read as a float at once, so the literal is the nearest float to the
        // decimal (reading a double first would round twice).
        float value = 0;
        stream >> value;
        // Standard libraries differ on whether a value too small for a float
        // fails the read; either way it is 0.
        const std::size_t exponent = token.text.find_first_of("eE");
        const bool tiny = exponent != std::string_view::npos && token.text[exponent + 1] == '-';
        if (stream.fail() && tiny) {
            value = 0;
        } else if (stream.fail()) {
            fail(at(token),
                 "the number " + shown(token) + " is beyond float's range (about 3.4e38)");
        }
        ExpressionPtr literal = node(Expression::Kind::Number, token);
        literal->number = negative ? -value : value;
        if (negative) {
            literal->text = "-" + literal->text;
        }
        return literal;
    }

    // The function a name followed by `(` calls; nothing for a plain name.
    [[gnu::noinline]] const FunctionInfo* callable(const Token& token) const {
        if (const FunctionInfo* info = function_named(token.text)) {
            if (peek().kind != TokenKind::LeftParen) {
                fail(at(token), shown(token) + " is a function: call it as " + usage_of(*info));
            }
            return info;
        }
        if (source_named(token.text)) {
            fail(at(token),
                 shown(token) + " declares a source and stands alone on its line: " + "`name = " +
                     std::string(token.text) + " [2, 3]`");
        }
        if (peek().kind == TokenKind::LeftParen) {
            fail(at(token),
                 shown(token) + " is not a function; the functions are " + function_list());
        }
        return nullptr;
    }

    static std::string function_list() {
        std::string list;
        for (const FunctionInfo& info : functions) {
            list += (list.empty() ? "" : ", ") + std::string(info.name);
        }
        return list;
    }

    // The `)` that closes `open`, after a call's operands when `info` is given.
    [[gnu::noinline]] void close(const Token& open, const FunctionInfo* info) {
        const Token& token = take();
        if (token.kind == TokenKind::RightParen) {
            return;
        }
        if (token.kind == TokenKind::End) {
            fail(at(open), "this `(` is never closed");
        }
        if (info != nullptr) {
            fail(at(token),
                 "expected `)` after the operands of " + usage_of(*info) + ", found " +
                     shown(token));
        }
        fail(at(token),
             "expected `)` to close the `(` at column " + std::to_string(open.column) + ", found " +
                 shown(token));
    }

    ExpressionPtr call(const Token& name, const FunctionInfo& info, std::size_t depth) {
        const Token& open = take();
        enter(open, depth + 1);
        if (peek().kind == TokenKind::RightParen) {
            fail_arity(name, info, "");
        }
        ExpressionPtr operand = expression(depth + 1);
        ExpressionPtr result = call_node(name, info);
        close(open, &info);
        return with_operands(std::move(result), std::move(operand));
    }

    // The call's node, with the axis or shape that follows its operand.
    [[gnu::noinline]] ExpressionPtr call_node(const Token& name, const FunctionInfo& info) {
        ExpressionPtr result = node(Expression::Kind::Call, name);
        result->function = info.function;
        if (info.extra != Extra::None) {
            if (peek().kind != TokenKind::Comma) {
                fail_arity(name, info, ", found " + shown(peek()));
            }
            take();
            if (info.extra == Extra::Axis) {
                result->axis = axis();
            } else {
                result->extents_at = at(peek());
                if (peek().kind != TokenKind::LeftBracket) {
                    fail(at(peek()), "expected a shape such as [2, 3], found " + shown(peek()));
                }
                result->extents = shape();
            }
        }
        if (peek().kind == TokenKind::Comma) {
            fail_arity(name, info, "");
        }
        return result;
    }

    [[noreturn, gnu::noinline]] void fail_arity(const Token& name,
                                                const FunctionInfo& info,
                                                const std::string& found) const {
        fail(at(peek()), shown(name) + " takes " + arity(info) + ": " + usage_of(info) + found);
    }

    static std::string arity(const FunctionInfo& info) {
        switch (info.extra) {
            case Extra::Axis:
                return "an operand and an axis";
            case Extra::Shape:
                return "an operand and a shape";
            case Extra::None:
                break;
        }
        return "one operand";
    }

    // An axis: a whole number, negative to count from the last axis.
    [[gnu::noinline]] long long axis() {
        const bool negative = peek().kind == TokenKind::Minus;
        const Token sign = negative ? take() : Token{};
        const Token token = take();
        if (token.kind != TokenKind::Number || !all_digits(token.text) || token.text.size() > 9) {
            const bool signed_number = negative && token.kind == TokenKind::Number;
            fail(signed_number ? at(sign) : at(token),
                 "an axis is a whole number of at most 9 digits (negative counts from the last "
                 "axis), found " +
                     (signed_number ? "`-" + std::string(token.text) + "`" : shown(token)));
        }
        const long long magnitude = std::stoll(std::string(token.text));
        return negative ? -magnitude : magnitude;
    }

    std::vector<Token> tokens_;
    std::size_t next_ = 0;
    std::size_t line_;
    std::size_t max_depth_;
};

}  // namespace

std::optional<StatementSyntax> parse_line(std::string_view line,
                                          std::size_t line_number,
                                          std::size_t max_depth) {
    return Parser(tokenize(line, line_number), line_number, max_depth).statement();
}

}  // namespace topos::lang::detail
