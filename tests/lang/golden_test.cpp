// The readings of the walk-through and ten other programs, as text, match
// their golden files (TOPOS_UPDATE_GOLDEN=1 rewrites them, as for the
// examples); every program file has a case; topos-play prints the same text.
#include "program_files.hpp"
#include <topos/lang/play.hpp>
#include <topos/lang/readings.hpp>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace topos::lang {
namespace {

using test::contents_of;
using test::program_path;
using test::source_dir;

struct GoldenCase {
    std::string name;
    std::filesystem::path program;  // relative to the source tree
    ReadingOptions options;
    std::vector<std::string> flags;  // the same options as topos-play flags
};

std::vector<GoldenCase> golden_cases() {
    std::vector<GoldenCase> cases{
        {"walkthrough",
         "playground/walkthrough.tp",
         {.observed = "hidden"},
         {"--observe", "hidden"}},
        {"unused_parameter",
         program_path("unused_parameter"),
         {.target = "partial", .numerics = Numerics::Fast},
         {"--target", "partial", "--numerics", "fast"}},
    };
    for (const char* name : {"mlp",
                             "scalar",
                             "broadcasting",
                             "transcendental",
                             "reductions",
                             "attention",
                             "no_parameters",
                             "zero_extent",
                             "precedence"}) {
        cases.push_back({name, program_path(name), {}, {}});
    }
    return cases;
}

class GoldenReadings : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GoldenReadings, MatchTheGoldenFile) {
    const GoldenCase& golden = GetParam();
    const std::string text =
        render_text(read(compile(contents_of(source_dir / golden.program)), golden.options));
    const std::filesystem::path expected =
        source_dir / "tests/lang/golden" / (golden.name + ".txt");
    const char* update = std::getenv("TOPOS_UPDATE_GOLDEN");
    if (update != nullptr && std::string(update) == "1") {
        std::ofstream(expected, std::ios::binary) << text;
        GTEST_SKIP() << "rewrote " << expected;
    }
    EXPECT_EQ(text, contents_of(expected))
        << "the readings of " << golden.program << " differ from " << expected
        << " (rerun with TOPOS_UPDATE_GOLDEN=1 to accept them after reviewing the diff)";
}

TEST_P(GoldenReadings, ArePrintedAlikeByTopoPlay) {
    const GoldenCase& golden = GetParam();
    std::vector<std::string> arguments = golden.flags;
    arguments.push_back((source_dir / golden.program).string());
    std::ostringstream out;
    std::ostringstream err;
    ASSERT_EQ(play(arguments, out, err), 0) << err.str();
    EXPECT_EQ(out.str(),
              render_text(read(compile(contents_of(source_dir / golden.program)), golden.options)));
    EXPECT_EQ(err.str(), "");
}

INSTANTIATE_TEST_SUITE_P(Programs,
                         GoldenReadings,
                         ::testing::ValuesIn(golden_cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                             return info.param.name;
                         });

TEST(GoldenPrograms, EveryProgramFileHasAGoldenCase) {
    std::set<std::string> covered;
    for (const GoldenCase& golden : golden_cases()) {
        covered.insert(golden.program.stem().string());
    }
    std::size_t files = 0;
    for (const auto& entry :
         std::filesystem::directory_iterator(source_dir / "tests/lang/programs")) {
        ++files;
        EXPECT_TRUE(covered.contains(entry.path().stem().string()))
            << entry.path() << " has no golden case";
    }
    EXPECT_EQ(files, 10U);
}

TEST(GoldenPrograms, TheWalkthroughEndsWithItsSummary) {
    const Readings readings = read(compile(contents_of(source_dir / "playground/walkthrough.tp")),
                                   {.observed = "hidden"});
    EXPECT_EQ(readings.summary, "22 nodes recorded, 20 scheduled, 3 readable\n");
    EXPECT_EQ(readings.recorded, 22U);
    EXPECT_EQ(readings.scheduled, 20U);
    EXPECT_EQ(readings.readable, 3U);
}

}  // namespace
}  // namespace topos::lang
