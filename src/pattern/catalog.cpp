// Assembles the pattern catalog from its rows, once, in the order of the
// pattern list, and checks that every row is complete.
#include "pattern/catalog.hpp"

#include <topos/core/error.hpp>

#include <array>
#include <string>
#include <string_view>

namespace topos::detail {
namespace {

// The name of the function that builds a row, for errors.
constexpr std::array<std::string_view, pattern_kind_count> row_functions = {
#define TOPOS_PATTERN(enumerator, row) #row "_row()",
#include <topos/pattern/patterns.def>
};

std::array<PatternRow, pattern_kind_count> assemble() {
    std::array<PatternRow, pattern_kind_count> rows = {
#define TOPOS_PATTERN(enumerator, row) row##_row(),
#include <topos/pattern/patterns.def>
    };
    for (std::size_t position = 0; position < rows.size(); ++position) {
        check_pattern_row(rows[position], static_cast<PatternKind>(position));
    }
    return rows;
}

const std::array<PatternRow, pattern_kind_count>& table() {
    static const std::array<PatternRow, pattern_kind_count> rows = assemble();
    return rows;
}

}  // namespace

void check_pattern_row(const PatternRow& row, PatternKind expected) {
    const std::string where =
        "the pattern catalog's row of " + std::string(name_of(expected)) + " (built by " +
        std::string(row_functions[static_cast<std::size_t>(expected)]) + " in src/pattern/) ";
    const auto require = [&](bool holds, const std::string& problem) {
        if (!holds) {
            throw Error(where + problem);
        }
    };
    require(row.kind == expected,
            "is for " + std::string(name_of(row.kind)) + "; the list puts it elsewhere");
    require(row.kernel_f32 != nullptr && row.kernel_f64 != nullptr,
            "has no fused kernel for float and double");
    require((row.raises == nullptr) == (row.raise == nullptr),
            "must have both a raise rule and its condition, or neither");
}

const PatternRow& pattern_row(PatternKind kind) {
    return table()[static_cast<std::size_t>(kind)];
}

std::vector<Match> find_matches(const std::vector<Node>& nodes,
                                const std::vector<bool>& scheduled) {
    const SpecView spec{nodes};
    std::vector<Match> matches;
    for (std::uint32_t index = 0; index < nodes.size(); ++index) {
        if (!scheduled[index]) {
            continue;
        }
        for (const PatternRow& row : table()) {
            if (row.match == nullptr) {
                continue;
            }
            if (std::optional<Match> match = row.match(spec, index)) {
                matches.push_back(std::move(*match));
                break;
            }
        }
    }
    return matches;
}

template <Element T>
void run_match(const Match& match, std::span<const T* const> inputs, std::span<T* const> results) {
    pattern_row(match.kind).template kernel<T>()(match, inputs, results);
}

bool raises(const Match& match, const RaiseContext& context) {
    const PatternRow& row = pattern_row(match.kind);
    return row.raises != nullptr && row.raises(match, context);
}

std::vector<std::uint32_t> raised_operands(const Match& match) {
    const PatternRow& row = pattern_row(match.kind);
    return row.raised_operands != nullptr ? row.raised_operands(match) : match.inputs;
}

std::vector<HloValue> raise(HloBuilder& build, const Match& match, const RaiseContext& context) {
    const PatternRow& row = pattern_row(match.kind);
    if (row.raise == nullptr) {
        build.fail(std::string("a ") + std::string(name_of(match.kind)) +
                   " election has no named StableHLO operation");
    }
    return row.raise(build, match, context);
}

template void run_match(const Match&, std::span<const float* const>, std::span<float* const>);
template void run_match(const Match&, std::span<const double* const>, std::span<double* const>);
template void run_match(const Match&, std::span<const bf16* const>, std::span<bf16* const>);

}  // namespace topos::detail
