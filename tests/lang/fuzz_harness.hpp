// One fuzz step, shared by the CTest-sized fuzz test and tools/play/lang_fuzz:
// compile a program and read it, with random reading options; a topos::Error
// is an answer, anything else thrown is a failure, and so is an answer that
// breaks the language's promises: a ProgramError whose position lies outside
// the source, readings whose JSON does not parse, a summary of another form.
#pragma once

#include "json_check.hpp"
#include "random_programs.hpp"
#include <topos/lang/program.hpp>
#include <topos/lang/readings.hpp>

#include <cstddef>
#include <exception>
#include <optional>
#include <string>
#include <string_view>
#include <typeinfo>
#include <vector>

namespace topos::lang::test {

struct FuzzTally {
    std::size_t inputs = 0;
    std::size_t read = 0;            // compiled and read
    std::size_t program_errors = 0;  // ProgramError
    std::size_t option_errors = 0;   // OptionError
    std::size_t other_errors = 0;    // any other topos::Error (each worth a look)
    std::string last_other_error;
};

// The length of line `line` (from 1) of `source`, or nothing past its last line.
inline std::optional<std::size_t> line_length(std::string_view source, std::size_t line) {
    std::size_t start = 0;
    for (std::size_t current = 1; current < line; ++current) {
        const std::size_t newline = source.find('\n', start);
        if (newline == std::string_view::npos) {
            return std::nullopt;
        }
        start = newline + 1;
    }
    const std::size_t end = std::min(source.find('\n', start), source.size());
    return end - start;
}

inline std::string positioned_error_problem(std::string_view source, const ProgramError& error) {
    const std::string prefix = "line " + std::to_string(error.line()) + ", column " +
                               std::to_string(error.column()) + ": ";
    if (std::string_view(error.what()).substr(0, prefix.size()) != prefix) {
        return "the message does not start with its position: " + std::string(error.what());
    }
    const std::optional<std::size_t> length = line_length(source, error.line());
    if (error.line() == 0 || error.column() == 0 || !length || error.column() > *length + 1) {
        return "the position lies outside the source: " + std::string(error.what());
    }
    return "";
}

inline std::string readings_problem(const Readings& readings) {
    const std::string summary = std::to_string(readings.recorded) + " nodes recorded, " +
                                std::to_string(readings.scheduled) + " scheduled, " +
                                std::to_string(readings.readable) + " readable\n";
    if (readings.summary != summary) {
        return "the summary reads `" + readings.summary + "`";
    }
    if (std::string error = json_error(render_json(readings)); !error.empty()) {
        return "the JSON does not parse: " + error;
    }
    if (!render_text(readings).ends_with(readings.summary)) {
        return "the text does not end with the summary";
    }
    return "";
}

// Options naming a random statement (or none, or one that does not exist).
inline ReadingOptions random_options(Random& random, const Program& program, bool svg) {
    ReadingOptions options;
    options.svg = svg;
    options.numerics = random.chance(50) ? Numerics::Exact : Numerics::Fast;
    const auto statements = program.statements();
    if (random.chance(20)) {
        options.target = statements[random.below(statements.size())].name;
    }
    if (random.chance(30)) {
        options.observed =
            random.chance(5) ? "nowhere" : statements[random.below(statements.size())].name;
    }
    return options;
}

// Runs one input; empty when every promise held, else what broke.
inline std::string fuzz_one(const std::string& source, Random& random, bool svg, FuzzTally& tally) {
    ++tally.inputs;
    try {
        const Program program = compile(source);
        const Readings readings = read(program, random_options(random, program, svg));
        ++tally.read;
        return readings_problem(readings);
    } catch (const ProgramError& error) {
        ++tally.program_errors;
        return positioned_error_problem(source, error);
    } catch (const OptionError&) {
        ++tally.option_errors;
    } catch (const Error& error) {
        ++tally.other_errors;
        tally.last_other_error = error.what();
    } catch (const std::exception& error) {
        return std::string("a non-topos exception (") + typeid(error).name() + "): " + error.what();
    } catch (...) {
        return "a non-standard exception";
    }
    return "";
}

}  // namespace topos::lang::test
