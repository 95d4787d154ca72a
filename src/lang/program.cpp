// compile: a program's lines parsed and recorded one at a time, so the first
// mistake in line order is the one reported.
#include "recorder.hpp"
#include "syntax.hpp"
#include <topos/lang/program.hpp>

namespace topos::lang {

ProgramError::ProgramError(std::size_t line, std::size_t column, const std::string& reason)
    : Error("line " + std::to_string(line) + ", column " + std::to_string(column) + ": " + reason),
      line_(line),
      column_(column),
      reason_(reason) {}

const Statement* Program::find(std::string_view name) const {
    for (const Statement& statement : statements_) {
        if (statement.name == name) {
            return &statement;
        }
    }
    return nullptr;
}

Program compile(std::string_view source, const Limits& limits) {
    detail::Recorder recorder(limits);
    std::size_t line_number = 0;
    std::size_t start = 0;
    while (start <= source.size()) {
        const std::size_t end = std::min(source.find('\n', start), source.size());
        ++line_number;
        if (const auto statement = detail::parse_line(
                source.substr(start, end - start), line_number, limits.max_depth)) {
            recorder.record(*statement);
        }
        start = end + 1;
    }
    return std::move(recorder).finish();
}

std::uint64_t seed_of_line(std::size_t line) {
    return line;
}

std::string_view name_of(StatementKind kind) {
    switch (kind) {
        case StatementKind::Parameter:
            return "parameter";
        case StatementKind::Input:
            return "input";
        case StatementKind::Leaf:
            return "leaf";
        case StatementKind::Expression:
            break;
    }
    return "expression";
}

}  // namespace topos::lang
