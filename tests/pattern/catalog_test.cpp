// The pattern catalog, row by row: the rows sit in the order of the pattern
// list, each with a fused kernel for both types; a row that lacks a piece is
// refused with a message that names it; kinds print their list names, and the
// formula that serves a pattern is its kind.
#include "pattern/catalog.hpp"

#include <topos/core/error.hpp>
#include <topos/pattern/pattern.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

namespace topos {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

TEST(PatternCatalog, HoldsRowIAtKindI) {
    for (std::size_t i = 0; i < pattern_kind_count; ++i) {
        const auto kind = static_cast<PatternKind>(i);
        const detail::PatternRow& row = detail::pattern_row(kind);
        EXPECT_EQ(row.kind, kind);
        EXPECT_NE(row.kernel<float>(), nullptr) << kind;
        EXPECT_NE(row.kernel<double>(), nullptr) << kind;
    }
}

TEST(PatternCatalog, MatchesEveryKindButTheGrownMap) {
    for (std::size_t i = 0; i < pattern_kind_count; ++i) {
        const auto kind = static_cast<PatternKind>(i);
        EXPECT_EQ(detail::pattern_row(kind).match == nullptr, kind == PatternKind::Map) << kind;
    }
}

TEST(PatternCatalog, RefusesAnIncompleteRowNamingTheMissingPiece) {
    const detail::PatternRow complete = detail::pattern_row(PatternKind::ReduceWindow);
    EXPECT_NO_THROW(detail::check_pattern_row(complete, PatternKind::ReduceWindow));
    const auto refusal = [&](auto remove) {
        detail::PatternRow row = complete;
        remove(row);
        try {
            detail::check_pattern_row(row, PatternKind::ReduceWindow);
        } catch (const Error& error) {
            return std::string(error.what());
        }
        return std::string("accepted");
    };
    EXPECT_THAT(refusal([](auto& row) { row.kernel_f32 = nullptr; }),
                StartsWith("the pattern catalog's row of ReduceWindow (built by "
                           "reduce_window_row() in src/pattern/) has no fused kernel"));
    EXPECT_THAT(refusal([](auto& row) { row.raise = nullptr; }),
                HasSubstr("both a raise rule and its condition, or neither"));
    EXPECT_THAT(refusal([](auto& row) { row.kind = PatternKind::Map; }),
                HasSubstr("is for Map; the list puts it elsewhere"));
}

TEST(PatternCatalog, NamesEveryKindUniquelyAndServesItByItsOwnFormula) {
    std::set<std::string> names;
    for (std::size_t i = 0; i < pattern_kind_count; ++i) {
        const auto kind = static_cast<PatternKind>(i);
        std::ostringstream printed;
        printed << kind;
        EXPECT_EQ(printed.str(), name_of(kind));
        names.insert(printed.str());
        const Pattern pattern(kind, Symbol(), {}, {});
        EXPECT_EQ(pattern.formula(), kind);
    }
    EXPECT_EQ(names.size(), pattern_kind_count);
    EXPECT_EQ(name_of(PatternKind::BatchNormTraining), "BatchNormTraining");
}

}  // namespace
}  // namespace topos
