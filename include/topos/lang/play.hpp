// topos-play, the command line of the playground language, as a function: the
// program topos-play is a main() around it, and tests call it in process.
//
//   topos-play [--reading NAME] [--target NAME] [--observe NAME]
//              [--numerics exact|fast] FILE
//
// prints every reading under a heading, then the summary line; `--reading`
// prints one (spec, derivative, plan, stablehlo, values, picture, svg,
// summary, json). FILE is a regular file, or `-` for standard input, read no
// further than the source bound (read_source in <topos/lang/program.hpp>).
#pragma once

#include <topos/lang/readings.hpp>

#include <iosfwd>
#include <span>
#include <string>
#include <string_view>

namespace topos::lang {

// Runs topos-play on `arguments` (the program's name left out), printing to
// `out`; answers the exit status: 0 when the readings were printed, 1 for a
// program or file error, 2 for a usage error, the message of either on `err`.
int play(std::span<const std::string> arguments, std::ostream& out, std::ostream& err);

// The usage text, as printed for --help and after a usage error.
std::string play_usage();

// What the playground page asks for: `program` compiled and read under
// `options`, as one JSON object. Either {"readings": R}, R being render_json's
// object, or {"error": {"message": M, "line": L, "column": C}} for a program's
// or an option's mistake (line and column null where the mistake has no place
// in the program, as for an option naming no statement). Never throws.
std::string answer_json(std::string_view program, const ReadingOptions& options);

}  // namespace topos::lang
