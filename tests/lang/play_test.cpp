// topos-play's command line, run in process: every reading under a heading by
// default, one alone with --reading, the options reaching the readings, a
// program error on standard error with status 1, usage errors with status 2;
// only regular files read, and no file or standard input read past the limit.
#include "json_check.hpp"
#include "program_files.hpp"
#include <topos/lang/play.hpp>
#include <topos/lang/program.hpp>
#include <topos/lang/readings.hpp>
#include <topos/show/picture.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <streambuf>
#include <string>
#include <sys/stat.h>
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

// What topos-play says on standard error for `arguments`, having checked
// that it stopped with status 1 and wrote nothing on standard output.
std::string refusal_of(const std::vector<std::string>& arguments) {
    const Played result = played(arguments);
    EXPECT_EQ(result.status, 1) << ::testing::PrintToString(arguments);
    EXPECT_EQ(result.out, "") << ::testing::PrintToString(arguments);
    return result.err;
}

TEST(PlayCommand, AProgramErrorGoesToStandardErrorWithStatusOne) {
    const std::string file = written("broken.tp", "a = 1\nb = a +\n");
    EXPECT_EQ(refusal_of({file}),
              "topos-play: " + file +
                  ": line 2, column 8: expected an expression, found the end of the "
                  "line\n");
}

TEST(PlayCommand, AnOptionNamingNoStatementHasStatusOne) {
    EXPECT_THAT(refusal_of({"--target", "nothing", walkthrough_path()}),
                HasSubstr("the target `nothing` names no statement"));
}

TEST(PlayCommand, AMissingFileHasStatusOne) {
    EXPECT_THAT(refusal_of({"/nonexistent/program.tp"}),
                HasSubstr("cannot read `/nonexistent/program.tp`"));
}

TEST(PlayCommand, ADirectoryIsRefusedNamingWhatItIs) {
    const std::string folder = ::testing::TempDir();
    EXPECT_EQ(refusal_of({folder}),
              "topos-play: cannot read `" + folder +
                  "`: it is a directory; a program is read from a regular file (or - for "
                  "standard input)\n");
}

TEST(PlayCommand, DevicesAndFifosAreRefusedWithoutBeingRead) {
    EXPECT_THAT(refusal_of({"/dev/null"}), HasSubstr("`/dev/null`: it is a character device"));
    EXPECT_THAT(refusal_of({"/dev/zero"}), HasSubstr("`/dev/zero`: it is a character device"));
    const std::filesystem::path fifo = std::filesystem::path(::testing::TempDir()) / "program.fifo";
    std::filesystem::remove(fifo);
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // With no writer: opening it must not wait.
    EXPECT_THAT(refusal_of({fifo.string()}),
                HasSubstr("`: it is a FIFO (named pipe); a program is read from a regular file"));
    std::filesystem::remove(fifo);
}

TEST(PlayCommand, AFileBeyondTheByteLimitIsRefusedNamingFileLineAndColumn) {
    const std::string file = written(
        "huge.tp", "a = parameter [2]\n# " + std::string(3 * default_max_source_bytes, 'x'));
    EXPECT_EQ(refusal_of({file}),
              "topos-play: " + file +
                  ": line 2, column 1048559: the program is longer than 1048576 bytes, the most "
                  "the playground reads; this is its first byte past them\n");
}

// An endless standard input ('#' then 'x' for ever, as far as `most` bytes),
// counting the bytes it hands out.
class EndlessInput : public std::streambuf {
public:
    explicit EndlessInput(std::size_t most) : most_(most) {}

    std::size_t served() const { return served_; }

protected:
    int_type underflow() override {
        if (served_ >= most_) {
            return traits_type::eof();
        }
        chunk_.assign(4096, 'x');
        if (served_ == 0) {
            chunk_[0] = '#';
        }
        served_ += chunk_.size();
        setg(chunk_.data(), chunk_.data(), chunk_.data() + chunk_.size());
        return traits_type::to_int_type(chunk_[0]);
    }

private:
    std::size_t most_;
    std::size_t served_ = 0;
    std::string chunk_;
};

TEST(PlayCommand, StandardInputIsReadNoFurtherThanTheByteLimit) {
    EndlessInput endless(std::size_t{64} << 20);
    std::streambuf* const saved = std::cin.rdbuf(&endless);
    const Played result = played({"-"});
    std::cin.rdbuf(saved);
    EXPECT_EQ(result.status, 1);
    EXPECT_THAT(result.err,
                HasSubstr("topos-play: -: line 1, column 1048577: the program is longer"));
    EXPECT_LE(endless.served(), default_max_source_bytes + 8192);
}

TEST(ReadSource, ReadsOneByteBeyondTheLimitAndNoMore) {
    const std::string file = written("hundred.tp", std::string(100, '#'));
    EXPECT_EQ(read_source(file, {.max_source_bytes = 10}), std::string(11, '#'));
    EXPECT_EQ(read_source(file, {.max_source_bytes = 100}), std::string(100, '#'));
    std::istringstream stream(std::string(100, '#'));
    EXPECT_EQ(read_source(stream, {.max_source_bytes = 10}), std::string(11, '#'));
    EXPECT_THROW((void)read_source("/nonexistent/program.tp"), SourceError);
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
