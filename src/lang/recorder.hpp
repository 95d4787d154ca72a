// The recorder: statements' syntax trees onto a Tape<float>, one statement at
// a time, left operand before right so that every compiler records the same
// tape. Library errors from a recording are rethrown as ProgramErrors at the
// operator or call that caused them, with the operands' shapes.
#pragma once

#include "syntax.hpp"
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/lang/program.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace topos::lang::detail {

class Recorder {
public:
    explicit Recorder(const Limits& limits) : limits_(limits) {}

    // Records one statement; throws ProgramError.
    void record(const StatementSyntax& statement);

    // Seals the tape; throws ProgramError when nothing was recorded.
    Program finish() &&;

private:
    Value<float> source(const SourceSyntax& source);
    Value<float> evaluate(const Expression& expression);
    [[gnu::noinline]] Value<float> literal(const Expression& number);
    [[gnu::noinline]] Value<float> named(const Expression& name) const;
    [[gnu::noinline]] Value<float> negated(const Expression& minus, const Value<float>& operand);
    [[gnu::noinline]] Value<float> binary(const Expression& expression,
                                          const Value<float>& a,
                                          const Value<float>& b);
    [[gnu::noinline]] Value<float> call(const Expression& expression, const Value<float>& a);
    Value<float> along_axis(const Expression& expression, const Value<float>& a);
    Value<float> along_last_axis(const Expression& expression, const Value<float>& a);
    Shape shape_of(const std::vector<std::size_t>& extents, Position at) const;
    void check_elements(const Shape& shape, Position at) const;

    // Runs `record`, rethrowing a library error as a ProgramError at `at` that
    // begins with `what`; then accounts for the nodes it appended.
    template <class Record>
    Value<float> guarded(Position at, const std::string& what, Record&& record);

    // Checks the nodes appended since the last call against the limits.
    void account(Position at);

    std::string unknown_name_hint(const std::string& name) const;

    Limits limits_;
    Tape<float> tape_;
    std::vector<Statement> statements_;
    std::vector<Value<float>> values_;  // one per statement
    std::unordered_map<std::string, std::size_t> by_name_;
    std::string defining_;  // the name of the statement being recorded
    std::size_t accounted_nodes_ = 0;
    std::uint64_t work_ = 0;
};

}  // namespace topos::lang::detail
