// compile: a program's lines parsed and recorded one at a time, so the first
// mistake in line order is the one reported, after its length is checked; and
// read_source, which reads no more of a file than compile would accept.
#include "core/regular_file.hpp"
#include "recorder.hpp"
#include "syntax.hpp"
#include <topos/lang/program.hpp>

#include <algorithm>
#include <cerrno>
#include <istream>
#include <system_error>
#include <unistd.h>

namespace topos::lang {

namespace {

// Refuses a source longer than the bound at its first byte past it, having
// read only the bytes before it.
void check_length(std::string_view source, std::size_t max_source_bytes) {
    if (source.size() <= max_source_bytes) {
        return;
    }
    const std::string_view head = source.substr(0, max_source_bytes);
    const auto newlines = static_cast<std::size_t>(std::count(head.begin(), head.end(), '\n'));
    const std::size_t last_newline = head.rfind('\n');
    const std::size_t column =
        last_newline == std::string_view::npos ? head.size() + 1 : head.size() - last_newline;
    detail::fail({newlines + 1, column},
                 "the program is longer than " + std::to_string(max_source_bytes) +
                     " bytes, the most the playground reads; this is its first byte past them");
}

std::string reason(int error) {
    return std::generic_category().message(error);
}

// The bound plus one byte, so that a longer source is seen to be longer.
std::size_t bytes_to_read(const Limits& limits) {
    return limits.max_source_bytes == static_cast<std::size_t>(-1) ? limits.max_source_bytes
                                                                   : limits.max_source_bytes + 1;
}

}  // namespace

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
    check_length(source, limits.max_source_bytes);
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

std::string read_source(const std::string& file, const Limits& limits) {
    const topos::detail::RegularFile opened = topos::detail::open_regular_file(file);
    if (opened.descriptor < 0 && opened.error != 0) {
        throw SourceError("cannot read `" + file + "`: " + reason(opened.error));
    }
    if (opened.descriptor < 0) {
        throw SourceError("cannot read `" + file + "`: it is " +
                          topos::detail::file_kind(opened.mode) +
                          "; a program is read from a regular file (or - for standard input)");
    }
    const topos::detail::OwnedDescriptor descriptor(opened.descriptor);
    const std::size_t wanted = bytes_to_read(limits);
    std::string source(std::min<std::size_t>(wanted, static_cast<std::size_t>(opened.bytes)), '\0');
    std::size_t filled = 0;
    while (filled < wanted) {
        if (filled == source.size()) {
            source.resize(std::min(wanted, std::max<std::size_t>(2 * source.size(), 4096)));
        }
        const ssize_t count =
            ::read(descriptor.get(), source.data() + filled, source.size() - filled);
        if (count < 0 && errno == EINTR) {
            continue;
        }
        if (count < 0) {
            throw SourceError("cannot read `" + file + "`: " + reason(errno));
        }
        if (count == 0) {
            break;
        }
        filled += static_cast<std::size_t>(count);
    }
    source.resize(filled);
    return source;
}

std::string read_source(std::istream& stream, const Limits& limits) {
    const std::size_t wanted = bytes_to_read(limits);
    std::string source;
    while (source.size() < wanted && stream) {
        const std::size_t filled = source.size();
        source.resize(std::min(wanted, std::max<std::size_t>(2 * filled, 4096)));
        stream.read(source.data() + filled, static_cast<std::streamsize>(source.size() - filled));
        source.resize(filled + static_cast<std::size_t>(stream.gcount()));
    }
    return source;
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
