// topos-play's command line, run in process: every reading under a heading by
// default, one alone with --reading, the options reaching the readings, a
// program error on standard error with status 1, usage errors with status 2.
#include "json_check.hpp"
#include "program_files.hpp"
#include <topos/lang/play.hpp>
#include <topos/lang/readings.hpp>
#include <topos/show/picture.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace topos::lang {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Played {
    int status = 0;
    std::string out;
    std::string err;
};

Played played(const std::vector<std::string>& arguments) {
    std::ostringstream out;
    std::ostringstream err;
    const int status = play(arguments, out, err);
    return {status, out.str(), err.str()};
}

std::string walkthrough_path() {
    return (test::source_dir / "playground/walkthrough.tp").string();
}

std::string written(const std::string& name, const std::string& source) {
    const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / name;
    std::ofstream(path, std::ios::binary) << source;
    return path.string();
}

TEST(PlayCommand, WithoutOptionsItPrintsEveryReadingThenTheSummary) {
    const Played result = played({walkthrough_path()});
    EXPECT_EQ(result.status, 0);
    EXPECT_EQ(result.out, render_text(read(compile(test::program_text("walkthrough")))));
    EXPECT_THAT(result.out, StartsWith("== 1. spec"));
    EXPECT_THAT(result.out, HasSubstr("\n== 6. picture"));
    EXPECT_THAT(result.out, ::testing::EndsWith("\n22 nodes recorded, 20 scheduled, 2 readable\n"));
}

TEST(PlayCommand, ReadingPrintsOneReadingAlone) {
    const Readings readings = read(compile(test::program_text("walkthrough")));
    for (const char* name :
         {"spec", "derivative", "plan", "stablehlo", "values", "picture", "summary"}) {
        const Played result = played({"--reading", name, walkthrough_path()});
        EXPECT_EQ(result.status, 0) << name;
        EXPECT_EQ(result.out, text_of(readings, *reading_named(name))) << name;
    }
}

TEST(PlayCommand, JsonReadingIsWellFormed) {
    const Played result = played({"--reading=json", walkthrough_path()});
    EXPECT_EQ(result.status, 0);
    EXPECT_EQ(test::json_error(result.out), "");
}

TEST(PlayCommand, SvgReadingIsTheLaidOutPictureOrSaysWhyNot) {
    const Played result = played({"--reading", "svg", walkthrough_path()});
    if (show::Picture::can_lay_out()) {
        EXPECT_EQ(result.status, 0);
        EXPECT_THAT(result.out, HasSubstr("<svg"));
    } else {
        EXPECT_EQ(result.status, 1);
        EXPECT_THAT(result.err, HasSubstr("Graphviz"));
    }
}

TEST(PlayCommand, SvgReadingOfALargePictureSaysWhyItIsNotLaidOut) {
    std::string source = "w = parameter [2]\na0 = w\n";
    for (int i = 1; i < 100; ++i) {
        source += "a" + std::to_string(i) + " = tanh(a" + std::to_string(i - 1) + ") * w\n";
    }
    const Played result =
        played({"--reading", "svg", written("large.tp", source + "l = sum(a99)\n")});
    EXPECT_EQ(result.status, 1);
    EXPECT_EQ(result.out, "");
    if (show::Picture::can_lay_out()) {
        EXPECT_THAT(result.err, HasSubstr("boxes, more than the 600 laid out"));
    }
}

TEST(PlayCommand, TargetObserveAndNumericsReachTheReadings) {
    const std::string file =
        written("two_targets.tp", "w = parameter [2]\nfirst = sum(w)\nsecond = sum(w * w)\n");
    const Played result = played({"--target",
                                  "first",
                                  "--observe=second",
                                  "--numerics",
                                  "fast",
                                  "--reading",
                                  "values",
                                  file});
    EXPECT_EQ(result.status, 0) << result.err;
    EXPECT_THAT(result.out, HasSubstr("first = "));
    EXPECT_THAT(result.out, HasSubstr("second = "));
    EXPECT_THAT(result.out, HasSubstr("d first / d w = "));
}

TEST(PlayCommand, AProgramErrorGoesToStandardErrorWithStatusOne) {
    const std::string file = written("broken.tp", "a = 1\nb = a +\n");
    const Played result = played({file});
    EXPECT_EQ(result.status, 1);
    EXPECT_EQ(result.out, "");
    EXPECT_EQ(result.err,
              "topos-play: " + file +
                  ": line 2, column 8: expected an expression, found the end of the "
                  "line\n");
}

TEST(PlayCommand, AnOptionNamingNoStatementHasStatusOne) {
    const Played result = played({"--target", "nothing", walkthrough_path()});
    EXPECT_EQ(result.status, 1);
    EXPECT_THAT(result.err, HasSubstr("the target `nothing` names no statement"));
}

TEST(PlayCommand, AMissingFileHasStatusOne) {
    const Played result = played({"/nonexistent/program.tp"});
    EXPECT_EQ(result.status, 1);
    EXPECT_THAT(result.err, HasSubstr("cannot read `/nonexistent/program.tp`"));
}

TEST(PlayCommand, UsageErrorsHaveStatusTwoAndPrintTheUsage) {
    const std::vector<std::vector<std::string>> misuses{
        {},
        {"--frobnicate", "x.tp"},
        {"--reading", "everything", "x.tp"},
        {"--numerics", "approximate", "x.tp"},
        {"x.tp", "y.tp"},
        {"x.tp", "--target"},
    };
    for (const auto& arguments : misuses) {
        const Played result = played(arguments);
        EXPECT_EQ(result.status, 2) << ::testing::PrintToString(arguments);
        EXPECT_THAT(result.err, HasSubstr(play_usage()));
        EXPECT_EQ(result.out, "");
    }
}

TEST(PlayCommand, HelpPrintsTheUsage) {
    const Played result = played({"--help"});
    EXPECT_EQ(result.status, 0);
    EXPECT_EQ(result.out, play_usage());
}

}  // namespace
}  // namespace topos::lang
