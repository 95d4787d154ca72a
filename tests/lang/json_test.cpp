// The readings as JSON: strings escaped per RFC 8259, every golden program's
// readings well-formed (by the checker here, whose refusals are tested too,
// and by Python's json module where python3 is installed), the counts numbers,
// the SVG present exactly when asked for and possible.
#include "json_check.hpp"
#include "program_files.hpp"
#include <topos/lang/readings.hpp>
#include <topos/show/picture.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace topos::lang {
namespace {

using test::json_error;
using ::testing::HasSubstr;

TEST(ReadingsJson, QuotingEscapesQuotesBackslashesAndControlCharacters) {
    EXPECT_EQ(json_quoted("plain"), "\"plain\"");
    EXPECT_EQ(json_quoted("say \"hi\"\\"), "\"say \\\"hi\\\"\\\\\"");
    EXPECT_EQ(json_quoted("a\nb\tc\rd"), "\"a\\nb\\tc\\rd\"");
    EXPECT_EQ(json_quoted(std::string("\x01\x1f\x00", 3)), "\"\\u0001\\u001f\\u0000\"");
    EXPECT_EQ(json_quoted("caf\xc3\xa9 \x7f"), "\"caf\xc3\xa9 \x7f\"");
}

TEST(ReadingsJson, TheCheckerRefusesMalformedJson) {
    EXPECT_EQ(json_error("{\"a\": [1, -2.5e3, true, null, \"\\u00e9\"]}"), "");
    for (const std::string bad : {"",
                                  "{",
                                  "{\"a\" 1}",
                                  "{\"a\": 1,}",
                                  "[1 2]",
                                  "\"open",
                                  "\"raw\ncontrol\"",
                                  "\"bad \\x escape\"",
                                  "01",
                                  "1.",
                                  "{} {}",
                                  "\"\xff\"",
                                  "nul"}) {
        EXPECT_NE(json_error(bad), "") << bad;
    }
}

TEST(ReadingsJson, EveryGoldenProgramsReadingsAreWellFormed) {
    for (const char* name : {"walkthrough",
                             "mlp",
                             "scalar",
                             "broadcasting",
                             "transcendental",
                             "reductions",
                             "attention",
                             "no_parameters",
                             "unused_parameter",
                             "zero_extent",
                             "precedence"}) {
        const Readings readings = read(compile(test::program_text(name)));
        const std::string json = render_json(readings);
        EXPECT_EQ(json_error(json), "") << name << ":\n" << json;
        EXPECT_THAT(json, HasSubstr("\"recorded\": " + std::to_string(readings.recorded)));
        EXPECT_THAT(json, HasSubstr("\"plan\": " + json_quoted(readings.plan)));
    }
}

TEST(ReadingsJson, TheSvgIsNullUnlessAskedForAndPossible) {
    const Program program = compile(test::program_text("walkthrough"));
    EXPECT_THAT(render_json(read(program)), HasSubstr("\"svg\": null"));
    const Readings laid_out = read(program, {.svg = true});
    const std::string json = render_json(laid_out);
    EXPECT_EQ(json_error(json), "");
    if (show::Picture::can_lay_out()) {
        EXPECT_THAT(laid_out.svg, HasSubstr("<svg"));
        EXPECT_THAT(json, HasSubstr("\"svg\": \""));
    } else {
        EXPECT_EQ(laid_out.svg, "");
    }
    EXPECT_EQ(laid_out.boxes, 22U);
    EXPECT_EQ(read(program, {.svg = true, .max_svg_boxes = 21}).svg, "");
}

TEST(ReadingsJson, PythonsJsonModuleParsesTheReadings) {
    if (!std::filesystem::exists("/usr/bin/python3")) {
        GTEST_SKIP() << "no /usr/bin/python3";
    }
    const std::filesystem::path path =
        std::filesystem::path(::testing::TempDir()) / "topos_lang_readings.json";
    const Readings readings =
        read(compile(test::program_text("walkthrough")), {.observed = "hidden", .svg = true});
    std::ofstream(path, std::ios::binary) << render_json(readings);
    const std::string command =
        "/usr/bin/python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); "
        "assert d[\"recorded\"] == 22 and d[\"readable\"] == 3, d; "
        "assert d[\"summary\"] == \"22 nodes recorded, 20 scheduled, 3 readable\\n\"' " +
        path.string();
    EXPECT_EQ(std::system(command.c_str()), 0) << command;
}

}  // namespace
}  // namespace topos::lang
