// Generated programs, valid and not, are read or refused with a topos::Error,
// never anything else, and every answer keeps the language's promises; the
// generator is deterministic and reaches every kind of input it claims to.
#include "fuzz_harness.hpp"
#include "random_programs.hpp"
#include <topos/lang/program.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

namespace topos::lang {
namespace {

using test::FuzzTally;
using test::ProgramGenerator;
using test::Random;

TEST(LanguageFuzz, TwentyThousandGeneratedProgramsAreReadOrRefusedWithATopsError) {
    ProgramGenerator generator(20240601);
    Random random(17);
    FuzzTally tally;
    for (std::size_t i = 0; i < 20000; ++i) {
        const std::string program = generator.next();
        const std::string problem = test::fuzz_one(program, random, i % 2000 == 0, tally);
        ASSERT_EQ(problem, "") << "input " << i << ":\n" << program;
    }
    EXPECT_EQ(tally.other_errors, 0U) << tally.last_other_error;
    EXPECT_GT(tally.read, tally.inputs / 5) << "too few generated programs are valid";
    EXPECT_GT(tally.program_errors, tally.inputs / 5) << "too few generated programs are invalid";
    EXPECT_GT(tally.option_errors, 0U);
}

TEST(LanguageFuzz, TheGeneratorGivesTheSameProgramsForASeed) {
    ProgramGenerator first(5);
    ProgramGenerator second(5);
    ProgramGenerator other(6);
    std::size_t differing = 0;
    for (int i = 0; i < 200; ++i) {
        const std::string program = first.next();
        EXPECT_EQ(program, second.next());
        differing += program != other.next() ? 1 : 0;
    }
    EXPECT_GT(differing, 150U);
}

TEST(LanguageFuzz, TheGeneratorReachesEveryKindOfInput) {
    ProgramGenerator generator(11);
    bool deep_beyond_bound = false;
    bool product = false;
    bool zero_extent = false;
    bool large_extent = false;
    bool non_ascii = false;
    for (int i = 0; i < 3000; ++i) {
        const std::string program = generator.next();
        deep_beyond_bound |= program.find(std::string(1000, '(')) != std::string::npos;
        product |= program.find(" @ ") != std::string::npos;
        zero_extent |= program.find("[0") != std::string::npos;
        large_extent |= program.find("1099511627776") != std::string::npos;
        non_ascii |= program.find('\xff') != std::string::npos;
    }
    EXPECT_TRUE(deep_beyond_bound);
    EXPECT_TRUE(product);
    EXPECT_TRUE(zero_extent);
    EXPECT_TRUE(large_extent);
    EXPECT_TRUE(non_ascii);
}

TEST(LanguageFuzz, ErrorPositionsAreCheckedAgainstTheSource) {
    EXPECT_EQ(test::line_length("ab\ncde\n", 2), 3U);
    EXPECT_EQ(test::line_length("ab\ncde\n", 3), 0U);
    EXPECT_FALSE(test::line_length("ab\ncde\n", 4).has_value());
    EXPECT_NE(test::positioned_error_problem("a = 1", ProgramError(1, 7, "past the end")), "");
    EXPECT_NE(test::positioned_error_problem("a = 1", ProgramError(2, 1, "past the last line")),
              "");
    EXPECT_EQ(test::positioned_error_problem("a = 1", ProgramError(1, 6, "at the end")), "");
}

}  // namespace
}  // namespace topos::lang
