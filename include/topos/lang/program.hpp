// topos::lang: the playground's line language. A program is one statement per
// line, `name = expression`, recorded onto a Tape<float> as it is read:
//
//   weights = parameter [2, 2]      # sources: parameter, input, leaf, seeded
//   x = input [1, 2]
//   hidden = tanh(x @ weights)      # + - * / @, unary -, calls, parentheses
//   loss = sum(hidden * hidden)
//
// compile() reads a whole program and answers a Program: the sealed network and
// one Statement per named line. Every mistake is a ProgramError whose message
// starts with `line L, column C: `. The grammar, `#` starting a comment:
//
//   statement := name '=' ( source shape | expression )
//   source    := 'parameter' | 'input' | 'leaf'         (payloads seeded by line)
//   shape     := '[' [ whole (',' whole)* ] ']'
//   expression:= product (('+' | '-') product)*
//   product   := unary (('*' | '/' | '@') unary)*
//   unary     := '-' unary | number | name | call | '(' expression ')'
//   call      := function '(' expression [',' (axis | shape)] ')'
//
// Functions: tanh exp ln sqrt sin cos relu sigmoid sum (to rank 0) transpose
// (the last two axes) softmax log_softmax logsumexp (along the last axis), and
// sum_along(a, axis) mean_along(a, axis) (a negative axis counts from the
// end), broadcast(a, shape) reshape(a, shape). A name is defined once.
#pragma once

#include <topos/core/error.hpp>
#include <topos/core/shape.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/symbol.hpp>

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace topos::lang {

// A mistake in a program, at a line and column (both counted from 1).
class ProgramError : public Error {
public:
    // The message is `line L, column C: ` followed by `reason`.
    ProgramError(std::size_t line, std::size_t column, const std::string& reason);

    // The line of the mistake, from 1.
    std::size_t line() const { return line_; }

    // The column of the mistake, from 1, in bytes.
    std::size_t column() const { return column_; }

    // The message without its position.
    const std::string& reason() const { return reason_; }

private:
    std::size_t line_;
    std::size_t column_;
    std::string reason_;
};

// A reading option names no statement of the program (a target, an observed name).
class OptionError : public Error {
public:
    using Error::Error;
};

// A program's source cannot be read: its file is missing or unreadable, or is
// not a regular file (a directory, a FIFO, a device). The message names the file.
class SourceError : public Error {
public:
    using Error::Error;
};

// The most bytes a program's source may hold, by default (1 MiB): over three
// thousand times the walk-through's, and room for max_nodes statements of sixty
// bytes each.
inline constexpr std::size_t default_max_source_bytes = std::size_t{1} << 20;

// The most statements a program may hold, by default, those that record no
// node (`b = a` names a's node again) included.
inline constexpr std::size_t default_max_statements = 16384;

// Bounds that keep every program's recording and readings small: what passes
// them records, differentiates, lowers and runs in well under a second.
struct Limits {
    // Bytes of the source, checked before any of it is read: a longer source
    // is refused at its first byte past the bound.
    std::size_t max_source_bytes = default_max_source_bytes;
    std::size_t max_statements = default_max_statements;  // statements, b = a included
    std::size_t max_depth = 64;        // parentheses, calls and operators nested in one expression
    std::size_t max_elements = 65536;  // elements of any one value
    std::size_t max_nodes = 16384;     // nodes the program records
    // Elements every recorded node reads and writes, a matrix product counting
    // its multiply-adds: a bound on the work of one forward run.
    std::uint64_t max_work = std::uint64_t{1} << 24;
};

// What a statement's right-hand side is.
enum class StatementKind : std::uint8_t {
    Parameter,
    Input,
    Leaf,
    Expression,
};

// One named line of a program.
struct Statement {
    std::string name;
    std::size_t line = 0;    // from 1
    std::size_t column = 0;  // of the name, from 1
    StatementKind kind = StatementKind::Expression;
    Symbol symbol;  // the node the name stands for (a plain `b = a` shares a's)
    Shape shape;
};

// A recorded program: its network (the program's own nodes, nothing derived)
// and its statements in line order.
class Program {
public:
    // A program of `network`, whose nodes `statements` name.
    Program(Network<float> network, std::vector<Statement> statements)
        : network_(std::move(network)), statements_(std::move(statements)) {}

    // The sealed network of the program's nodes.
    const Network<float>& network() const { return network_; }

    // The statements, in line order (at least one).
    std::span<const Statement> statements() const { return statements_; }

    // The statement named `name`, or nullptr.
    const Statement* find(std::string_view name) const;

private:
    Network<float> network_;
    std::vector<Statement> statements_;
};

// Reads and records `source`; throws ProgramError at the first mistake, a
// source longer than limits.max_source_bytes before reading any of it.
Program compile(std::string_view source, const Limits& limits = {});

// The source of the program in the regular file `file`: at most
// limits.max_source_bytes + 1 of its bytes, so that compile refuses a longer
// one without the rest being read. Throws SourceError, naming the file, for a
// file that cannot be opened or read and for anything but a regular file.
std::string read_source(const std::string& file, const Limits& limits = {});

// The same from a stream (standard input): at most max_source_bytes + 1 bytes.
std::string read_source(std::istream& stream, const Limits& limits = {});

// The seed of the payload of a source declared on `line`: the line number, so
// moving a statement changes its values and nothing else does. Payloads are
// uniform in [-1, 1) (topos::init::uniform).
std::uint64_t seed_of_line(std::size_t line);

// The source's name in a program: "parameter", "input", "leaf" or "expression".
std::string_view name_of(StatementKind kind);

}  // namespace topos::lang
