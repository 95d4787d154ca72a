// answer_json, what the playground page calls: the readings of a program that
// reads, inside {"readings": ...}; the message, line and column of a program's
// mistake; no place for an option's mistake; never a throw, and always JSON,
// for any generated input.
#include "json_check.hpp"
#include "program_files.hpp"
#include "random_programs.hpp"
#include <topos/lang/play.hpp>
#include <topos/lang/readings.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <string>

namespace topos::lang {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// The ProgramError `program` raises, which the test requires it to raise.
ProgramError program_error_of(const std::string& program) {
    try {
        compile(program);
    } catch (const ProgramError& error) {
        return error;
    }
    ADD_FAILURE() << "the program compiled:\n" << program;
    return {0, 0, ""};
}

TEST(AnswerJson, AProgramThatReadsAnswersTheReadingsOfRenderJson) {
    const std::string program = test::program_text("mlp");
    ReadingOptions options;
    options.observed = "h";
    const std::string answer = answer_json(program, options);
    EXPECT_EQ(answer, "{\"readings\": " + render_json(read(compile(program), options)) + "}\n");
    EXPECT_EQ(test::json_error(answer), "");
}

TEST(AnswerJson, FastNumericsReachTheReadings) {
    const std::string program = test::program_text("walkthrough");
    ReadingOptions fast;
    fast.numerics = Numerics::Fast;
    EXPECT_EQ(answer_json(program, fast),
              "{\"readings\": " + render_json(read(compile(program), fast)) + "}\n");
}

TEST(AnswerJson, AShapeErrorAnswersItsMessageLineAndColumn) {
    const std::string program = "a = parameter [2, 3]\nb = parameter [4, 5]\nc = a @ b\n";
    const ProgramError error = program_error_of(program);
    ASSERT_EQ(error.line(), 3U);
    const std::string answer = answer_json(program, {});
    EXPECT_EQ(answer,
              "{\"error\": {\"message\": " + json_quoted(error.what()) +
                  ", \"line\": 3, \"column\": " + std::to_string(error.column()) + "}}\n");
    EXPECT_THAT(answer, HasSubstr("[2, 3]"));
    EXPECT_THAT(answer, HasSubstr("[4, 5]"));
    EXPECT_EQ(test::json_error(answer), "");
}

TEST(AnswerJson, ASyntaxErrorAnswersItsPlace) {
    const std::string answer = answer_json("x = leaf [2]\ny = x +\n", {});
    EXPECT_THAT(answer, StartsWith("{\"error\": {\"message\": \"line 2, column"));
    EXPECT_THAT(answer, HasSubstr("\"line\": 2, \"column\": "));
    EXPECT_EQ(test::json_error(answer), "");
}

TEST(AnswerJson, AProgramBeyondTheByteLimitAnswersTheSizeErrorAtItsPlace) {
    const std::string program = "a = parameter [2]\nloss = sum(a)\n# " +
                                std::string(2 * default_max_source_bytes, 'x') + "\n";
    const std::string answer = answer_json(program, {});
    EXPECT_THAT(answer,
                StartsWith("{\"error\": {\"message\": \"line 3, column 1048545: the program is "
                           "longer than 1048576 bytes"));
    EXPECT_THAT(answer, HasSubstr("\"line\": 3, \"column\": 1048545}}"));
    EXPECT_EQ(test::json_error(answer), "");
}

TEST(AnswerJson, AnOptionNamingNoStatementAnswersAnErrorWithNoPlace) {
    ReadingOptions options;
    options.target = "nowhere";
    const std::string answer = answer_json(test::program_text("walkthrough"), options);
    EXPECT_THAT(answer, StartsWith("{\"error\": {\"message\": "));
    EXPECT_THAT(answer, HasSubstr("nowhere"));
    EXPECT_THAT(answer, HasSubstr("\"line\": null, \"column\": null}}"));
    EXPECT_EQ(test::json_error(answer), "");
}

TEST(AnswerJson, GeneratedProgramsAlwaysAnswerJsonAndNeverThrow) {
    test::ProgramGenerator generator(20261202);
    std::size_t read = 0;
    std::size_t refused = 0;
    for (std::size_t i = 0; i < 2000; ++i) {
        const std::string program = generator.next();
        std::string answer;
        ASSERT_NO_THROW(answer = answer_json(program, {})) << program;
        ASSERT_EQ(test::json_error(answer), "") << program;
        (answer.starts_with("{\"readings\": ") ? read : refused) += 1;
    }
    EXPECT_GT(read, 200U);
    EXPECT_GT(refused, 200U);
}

}  // namespace
}  // namespace topos::lang
