// topos-play's command line: options, the file, the readings printed.
#include <topos/lang/play.hpp>
#include <topos/lang/readings.hpp>
#include <topos/show/picture.hpp>

#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

namespace topos::lang {

namespace {

struct UsageError {
    std::string message;
};

struct CommandLine {
    std::string reading;  // empty: all of them
    ReadingOptions options;
    std::string file;
    bool help = false;
};

bool known_reading(std::string_view name) {
    return reading_named(name).has_value() || name == "svg" || name == "json";
}

Numerics numerics_named(std::string_view name) {
    if (name == "exact") {
        return Numerics::Exact;
    }
    if (name == "fast") {
        return Numerics::Fast;
    }
    throw UsageError{"--numerics takes exact or fast, not `" + std::string(name) + "`"};
}

void apply_option(CommandLine& line, std::string_view flag, const std::string& value) {
    if (flag == "--reading") {
        if (!known_reading(value)) {
            throw UsageError{"there is no reading `" + value + "`"};
        }
        line.reading = value;
    } else if (flag == "--target") {
        line.options.target = value;
    } else if (flag == "--observe") {
        line.options.observed = value;
    } else if (flag == "--numerics") {
        line.options.numerics = numerics_named(value);
    } else {
        throw UsageError{"unknown option `" + std::string(flag) + "`"};
    }
}

CommandLine parse_arguments(std::span<const std::string> arguments) {
    CommandLine line;
    for (std::size_t i = 0; i < arguments.size(); ++i) {
        const std::string& argument = arguments[i];
        if (argument == "--help" || argument == "-h") {
            line.help = true;
        } else if (argument.starts_with("--")) {
            const std::size_t equals = argument.find('=');
            if (equals != std::string::npos) {
                apply_option(line, argument.substr(0, equals), argument.substr(equals + 1));
            } else if (i + 1 < arguments.size()) {
                apply_option(line, argument, arguments[++i]);
            } else {
                throw UsageError{"`" + argument + "` needs a value"};
            }
        } else if (line.file.empty()) {
            line.file = argument;
        } else {
            throw UsageError{"one program at a time: `" + line.file + "` and `" + argument + "`"};
        }
    }
    if (line.file.empty() && !line.help) {
        throw UsageError{"no program file given"};
    }
    return line;
}

std::string why_no_svg(const CommandLine& line, const Readings& readings) {
    if (!show::Picture::can_lay_out()) {
        return "this build of topos cannot lay out pictures (it was built without Graphviz's "
               "library)";
    }
    return "the picture has " + std::to_string(readings.boxes) + " boxes, more than the " +
           std::to_string(line.options.max_svg_boxes) + " laid out";
}

int print_readings(const CommandLine& line,
                   const Readings& readings,
                   std::ostream& out,
                   std::ostream& err) {
    if (line.reading.empty()) {
        out << render_text(readings);
    } else if (line.reading == "json") {
        out << render_json(readings);
    } else if (line.reading == "svg") {
        if (readings.svg.empty()) {
            err << "topos-play: " << why_no_svg(line, readings)
                << "; --reading picture prints the DOT text\n";
            return 1;
        }
        out << readings.svg;
    } else {
        out << text_of(readings, *reading_named(line.reading));
    }
    return 0;
}

}  // namespace

std::string play_usage() {
    return "usage: topos-play [--reading NAME] [--target NAME] [--observe NAME]\n"
           "                  [--numerics exact|fast] FILE\n"
           "Reads the program in FILE (- for standard input) and prints its readings:\n"
           "spec, derivative, plan, stablehlo, values and picture under headings, then\n"
           "the summary line. --reading prints one of them alone, or summary, svg\n"
           "(the picture laid out) or json (all of them as one JSON object).\n"
           "--target names the rank-0 statement to differentiate (default: the last),\n"
           "--observe a statement the plan keeps readable, --numerics the entry's\n"
           "numerics (default: exact). FILE is a regular file; a program holds at\n"
           "most " +
           std::to_string(default_max_source_bytes) + " bytes and " +
           std::to_string(default_max_statements) + " statements.\n";
}

int play(std::span<const std::string> arguments, std::ostream& out, std::ostream& err) {
    CommandLine line;
    try {
        line = parse_arguments(arguments);
    } catch (const UsageError& error) {
        err << "topos-play: " << error.message << '\n' << play_usage();
        return 2;
    }
    if (line.help) {
        out << play_usage();
        return 0;
    }
    std::string source;
    try {
        source = line.file == "-" ? read_source(std::cin) : read_source(line.file);
    } catch (const SourceError& error) {
        err << "topos-play: " << error.what() << '\n';
        return 1;
    }
    line.options.svg = line.reading == "svg" || line.reading == "json";
    try {
        const Readings readings = read(compile(source), line.options);
        return print_readings(line, readings, out, err);
    } catch (const std::exception& error) {  // a topos::Error, or a failure to allocate
        err << "topos-play: " << line.file << ": " << error.what() << '\n';
        return 1;
    }
}

namespace {

std::string error_json(const std::string& message, std::string_view line, std::string_view column) {
    std::string json = "{\"error\": {\"message\": ";
    json.append(json_quoted(message)).append(", \"line\": ").append(line);
    json.append(", \"column\": ").append(column).append("}}\n");
    return json;
}

}  // namespace

std::string answer_json(std::string_view program, const ReadingOptions& options) {
    try {
        const Readings readings = read(compile(program), options);
        std::string json = "{\"readings\": ";
        json.append(render_json(readings)).append("}\n");
        return json;
    } catch (const ProgramError& error) {
        return error_json(
            error.what(), std::to_string(error.line()), std::to_string(error.column()));
    } catch (const std::exception& error) {
        return error_json(error.what(), "null", "null");
    }
}

}  // namespace topos::lang
