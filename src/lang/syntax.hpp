// The language's tokens, syntax tree and built-in functions, shared by the
// lexer, the parser and the recorder.
#pragma once

#include <topos/lang/program.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topos::lang::detail {

struct Position {
    std::size_t line = 0;
    std::size_t column = 0;
};

[[noreturn]] inline void fail(Position at, const std::string& reason) {
    throw ProgramError(at.line, at.column, reason);
}

enum class TokenKind : std::uint8_t {
    Name,
    Number,
    Plus,
    Minus,
    Star,
    Slash,
    At,
    LeftParen,
    RightParen,
    LeftBracket,
    RightBracket,
    Comma,
    Equals,
    End,
};

struct Token {
    TokenKind kind = TokenKind::End;
    std::string_view text;  // a view into the line
    std::size_t column = 0;
};

// The tokens of one line, comment dropped, ending in an End token.
std::vector<Token> tokenize(std::string_view line, std::size_t line_number);

// How a token reads in a message: `(` or `end of line`.
std::string shown(const Token& token);

// A byte as a message shows it: itself when printable, else \xNN.
std::string shown_byte(char byte);

enum class Function : std::uint8_t {
    Tanh,
    Exp,
    Ln,
    Sqrt,
    Sin,
    Cos,
    Relu,
    Sigmoid,
    Transpose,
    Sum,
    Softmax,
    LogSoftmax,
    Logsumexp,
    SumAlong,
    MeanAlong,
    Broadcast,
    Reshape,
};

// What a function takes after its first operand.
enum class Extra : std::uint8_t {
    None,
    Axis,
    Shape,
};

struct FunctionInfo {
    std::string_view name;
    Function function;
    Extra extra;
};

inline constexpr std::array<FunctionInfo, 17> functions{{
    {"tanh", Function::Tanh, Extra::None},
    {"exp", Function::Exp, Extra::None},
    {"ln", Function::Ln, Extra::None},
    {"sqrt", Function::Sqrt, Extra::None},
    {"sin", Function::Sin, Extra::None},
    {"cos", Function::Cos, Extra::None},
    {"relu", Function::Relu, Extra::None},
    {"sigmoid", Function::Sigmoid, Extra::None},
    {"transpose", Function::Transpose, Extra::None},
    {"sum", Function::Sum, Extra::None},
    {"softmax", Function::Softmax, Extra::None},
    {"log_softmax", Function::LogSoftmax, Extra::None},
    {"logsumexp", Function::Logsumexp, Extra::None},
    {"sum_along", Function::SumAlong, Extra::Axis},
    {"mean_along", Function::MeanAlong, Extra::Axis},
    {"broadcast", Function::Broadcast, Extra::Shape},
    {"reshape", Function::Reshape, Extra::Shape},
}};

// The built-in function named `name`, if any.
const FunctionInfo* function_named(std::string_view name);

// The source kind a keyword declares (parameter, input, leaf), if any.
std::optional<StatementKind> source_named(std::string_view name);

struct Expression;
using ExpressionPtr = std::unique_ptr<Expression>;

struct Expression {
    enum class Kind : std::uint8_t {
        Number,
        Name,
        Negate,
        Binary,
        Call,
    };
    Kind kind = Kind::Number;
    Position at;       // the token: the literal, the name, the operator, the function
    std::string text;  // a literal's or a name's spelling; an operator's symbol
    float number = 0;
    Function function = Function::Tanh;
    std::vector<ExpressionPtr> operands;
    long long axis = 0;                // sum_along, mean_along
    std::vector<std::size_t> extents;  // broadcast, reshape
    Position extents_at;
    std::size_t height = 0;  // operations nested below and in this one, for the depth bound
};

struct SourceSyntax {
    StatementKind kind = StatementKind::Parameter;
    Position at;  // the keyword
    std::vector<std::size_t> extents;
    Position extents_at;
};

struct StatementSyntax {
    std::string name;
    Position at;
    std::optional<SourceSyntax> source;  // or:
    ExpressionPtr expression;
};

// The statement on one line, or nothing for a blank or comment line.
std::optional<StatementSyntax> parse_line(std::string_view line,
                                          std::size_t line_number,
                                          std::size_t max_depth);

}  // namespace topos::lang::detail
