// Every mistake a program can hold is a ProgramError at its line and column
// with a message that says what is wrong; options naming no statement are
// OptionErrors; nesting and size beyond the limits are refused, not crashed on.
#include <topos/lang/program.hpp>
#include <topos/lang/readings.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace topos::lang {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

struct Caught {
    std::size_t line = 0;
    std::size_t column = 0;
    std::string message;
};

// The ProgramError compiling and reading `source` throws.
Caught error_of(const std::string& source,
                const Limits& limits = {},
                const ReadingOptions& options = {}) {
    try {
        (void)read(compile(source, limits), options);
    } catch (const ProgramError& error) {
        const std::string position = "line " + std::to_string(error.line()) + ", column " +
                                     std::to_string(error.column()) + ": ";
        EXPECT_THAT(error.what(), StartsWith(position));
        EXPECT_EQ(std::string(error.what()), position + error.reason());
        return {error.line(), error.column(), error.what()};
    }
    ADD_FAILURE() << "no ProgramError for:\n" << source;
    return {};
}

#define EXPECT_ERROR_AT(caught, expected_line, expected_column, fragment) \
    do {                                                                  \
        const Caught c = (caught);                                        \
        EXPECT_EQ(c.line, std::size_t{expected_line}) << c.message;       \
        EXPECT_EQ(c.column, std::size_t{expected_column}) << c.message;   \
        EXPECT_THAT(c.message, HasSubstr(fragment));                      \
    } while (false)

TEST(ProgramErrors, AnEmptyProgramIsRefusedAtLineOneColumnOne) {
    EXPECT_ERROR_AT(error_of(""), 1, 1, "the program is empty");
    EXPECT_ERROR_AT(error_of("# only a comment\n\n   \n"), 1, 1, "the program is empty");
}

TEST(ProgramErrors, AnUnknownNameIsReportedWhereItIsRead) {
    EXPECT_ERROR_AT(error_of("a = 1\nb = a + c"), 2, 9, "`c` is not defined on an earlier line");
}

TEST(ProgramErrors, AMistypedNameSuggestsTheClosestDefinedName) {
    EXPECT_ERROR_AT(error_of("hidden = 1\nloss = hiden * 2"), 2, 8, "did you mean `hidden`?");
}

TEST(ProgramErrors, ANameIsOnlyReadAfterItsLine) {
    EXPECT_ERROR_AT(error_of("a = b\nb = 1"), 1, 5, "`b` is not defined on an earlier line");
    EXPECT_ERROR_AT(error_of("a = a + 1"), 1, 5, "the name this statement defines");
}

TEST(ProgramErrors, RedefiningANameIsRefusedNamingTheFirstLine) {
    EXPECT_ERROR_AT(error_of("x = 1\n\nx = 2"), 3, 1, "`x` is already defined on line 1");
}

TEST(ProgramErrors, AStrayCharacterIsShownEscapedWhenNotPrintable) {
    EXPECT_ERROR_AT(error_of("a = 1 $ 2"), 1, 7, "unexpected character `$`");
    EXPECT_ERROR_AT(error_of("a = \x01"), 1, 5, "unexpected character `\\x01`");
    EXPECT_ERROR_AT(error_of("a = \xff"), 1, 5, "unexpected character `\\xFF`");
}

TEST(ProgramErrors, ABadLiteralIsReportedWhole) {
    EXPECT_ERROR_AT(error_of("a = 1.2.3"), 1, 5, "bad number `1.2.3`");
    EXPECT_ERROR_AT(error_of("a = 2 * 1e"), 1, 9, "bad number `1e`");
    EXPECT_ERROR_AT(error_of("a = 0x10"), 1, 5, "bad number `0x10`");
    EXPECT_ERROR_AT(error_of("a = 3abc"), 1, 5, "bad number `3abc`");
    EXPECT_ERROR_AT(error_of("a = 1e39"), 1, 5, "beyond float's range");
    EXPECT_ERROR_AT(error_of("a = -1e400"), 1, 6, "beyond float's range");
}

TEST(ProgramErrors, AnUnterminatedParenthesisPointsAtTheParenthesis) {
    EXPECT_ERROR_AT(error_of("a = (1 + (2 * 3)"), 1, 5, "this `(` is never closed");
    EXPECT_ERROR_AT(error_of("a = tanh(1"), 1, 9, "this `(` is never closed");
}

TEST(ProgramErrors, AClosingParenthesisWithoutAnOpeningOneIsReported) {
    EXPECT_ERROR_AT(error_of("a = (1))"), 1, 8, "this `)` closes no `(`");
}

TEST(ProgramErrors, AnUnterminatedShapeIsReported) {
    EXPECT_ERROR_AT(error_of("w = parameter [2, 3"), 1, 15, "this `[` is never closed");
    EXPECT_ERROR_AT(error_of("w = parameter [2 3]"), 1, 18, "expected `,` or `]`");
}

TEST(ProgramErrors, AFunctionGivenTheWrongOperandsSaysWhatItTakes) {
    EXPECT_ERROR_AT(error_of("a = tanh(1, 2)"), 1, 11, "`tanh` takes one operand: tanh(a)");
    EXPECT_ERROR_AT(error_of("a = tanh()"), 1, 10, "`tanh` takes one operand");
    EXPECT_ERROR_AT(
        error_of("a = sum_along(1)"), 1, 16, "takes an operand and an axis: sum_along(a, axis)");
    EXPECT_ERROR_AT(error_of("a = sum_along(1, 0, 1)"), 1, 19, "takes an operand and an axis");
    EXPECT_ERROR_AT(error_of("a = broadcast(1, 2)"), 1, 18, "expected a shape such as [2, 3]");
    EXPECT_ERROR_AT(error_of("a = sum_along(1, 0.5)"), 1, 18, "an axis is a whole number");
}

TEST(ProgramErrors, AnAxisTooLongIsQuotedWithItsSign) {
    EXPECT_ERROR_AT(
        error_of("a = sum_along(1, -9223372036854775808)"), 1, 18, "found `-9223372036854775808`");
    EXPECT_ERROR_AT(
        error_of("a = sum_along(1, 12345678901)"), 1, 18, "at most 9 digits (negative counts");
}

TEST(ProgramErrors, AnUnknownFunctionListsTheFunctions) {
    EXPECT_ERROR_AT(error_of("a = 1\nb = square(a)"), 2, 5, "the functions are tanh, exp, ln");
}

TEST(ProgramErrors, AFunctionNameMustBeCalled) {
    EXPECT_ERROR_AT(error_of("a = tanh + 1"), 1, 5, "`tanh` is a function: call it as tanh(a)");
}

TEST(ProgramErrors, ASourceStandsAloneAndHasAShape) {
    EXPECT_ERROR_AT(error_of("a = tanh(parameter [2])"), 1, 10, "stands alone on its line");
    EXPECT_ERROR_AT(error_of("a = input"), 1, 10, "`input` needs a shape");
    EXPECT_ERROR_AT(error_of("a = leaf 2"), 1, 10, "`leaf` needs a shape");
}

TEST(ProgramErrors, AnExtentIsAWholeNumber) {
    EXPECT_ERROR_AT(error_of("a = parameter [2.5]"), 1, 16, "an extent is a whole number");
    EXPECT_ERROR_AT(error_of("a = parameter [-1]"), 1, 16, "an extent is a whole number");
    EXPECT_ERROR_AT(
        error_of("a = parameter [99999999999999999999]"), 1, 16, "larger than a shape allows");
}

TEST(ProgramErrors, AStatementIsANameAnEqualsSignAndAnExpression) {
    EXPECT_ERROR_AT(error_of("3 = 1"), 1, 1, "a statement starts with a name");
    EXPECT_ERROR_AT(error_of("a 3"), 1, 3, "expected `=` after `a`");
    EXPECT_ERROR_AT(error_of("a ="), 1, 4, "expected an expression after `=`");
    EXPECT_ERROR_AT(error_of("a = 1 2"), 1, 7, "unexpected `2` after the expression");
    EXPECT_ERROR_AT(error_of("a = 1 +"), 1, 8, "expected an expression, found the end of the line");
}

TEST(ProgramErrors, FunctionAndSourceWordsCannotNameStatements) {
    EXPECT_ERROR_AT(error_of("sum = 1"), 1, 1, "`sum` is a function's name");
    EXPECT_ERROR_AT(error_of("leaf = 1"), 1, 1, "`leaf` declares a source");
}

TEST(ProgramErrors, AShapeErrorNamesBothShapesAtTheOperator) {
    const std::string sources = "a = parameter [2, 3]\nb = parameter [4]\n";
    EXPECT_ERROR_AT(error_of(sources + "c = a + b"), 3, 7, "cannot add [2, 3] and [4]");
    EXPECT_ERROR_AT(error_of(sources + "c = a - b"), 3, 7, "cannot subtract [4] from [2, 3]");
    EXPECT_ERROR_AT(error_of(sources + "c = a * b"), 3, 7, "cannot multiply [2, 3] and [4]");
    EXPECT_ERROR_AT(error_of(sources + "c = a / b"), 3, 7, "cannot divide [2, 3] by [4]");
    const Caught product = error_of(sources + "c = 1 + a @ a");
    EXPECT_ERROR_AT(product, 3, 11, "cannot matrix-multiply [2, 3] @ [2, 3]");
    EXPECT_THAT(product.message, HasSubstr("inner extents differ"));  // the library's reason
}

TEST(ProgramErrors, ACallsShapeErrorIsReportedAtTheCall) {
    const std::string source = "a = parameter [3]\n";
    EXPECT_ERROR_AT(error_of(source + "b = transpose(a)"), 2, 5, "cannot apply transpose to [3]");
    EXPECT_ERROR_AT(error_of(source + "b = reshape(a, [2])"), 2, 5, "cannot reshape [3] to [2]");
    EXPECT_ERROR_AT(
        error_of(source + "b = broadcast(a, [2])"), 2, 5, "cannot broadcast [3] to [2]");
}

TEST(ProgramErrors, AnAxisOutOfRangeIsReportedWithTheRank) {
    const std::string source = "a = parameter [2, 3]\n";
    EXPECT_ERROR_AT(error_of(source + "b = sum_along(a, 2)"),
                    2,
                    5,
                    "cannot sum [2, 3] along axis 2: a rank-2 value has axes 0 to 1");
    EXPECT_ERROR_AT(error_of(source + "b = mean_along(a, -3)"), 2, 5, "cannot average [2, 3]");
    EXPECT_ERROR_AT(error_of("a = sum_along(1, 0)"), 1, 5, "a rank-0 value has no axes");
}

TEST(ProgramErrors, FunctionsAlongTheLastAxisRefuseRankZero) {
    EXPECT_ERROR_AT(error_of("a = 1\nb = softmax(a)"), 2, 5, "a rank-0 value has none");
    EXPECT_ERROR_AT(error_of("b = logsumexp(2)"), 1, 5, "cannot apply logsumexp to []");
}

TEST(ProgramErrors, AShapeBeyondTheRankLimitIsRefused) {
    EXPECT_ERROR_AT(
        error_of("a = parameter [1, 1, 1, 1, 1, 1, 1, 1, 1]"), 1, 15, "maximum rank of 8");
}

TEST(ProgramErrors, AValueBeyondTheElementLimitIsRefused) {
    EXPECT_ERROR_AT(error_of("a = parameter [300, 300]"),
                    1,
                    15,
                    "would hold 90000 elements; the playground allows at most 65536");
    EXPECT_ERROR_AT(
        error_of("a = 1\nb = broadcast(a, [1000, 1000])"), 2, 5, "would hold 1000000 elements");
    EXPECT_ERROR_AT(
        error_of("a = parameter [2]", {.max_elements = 1}), 1, 15, "at most 1 per value");
}

TEST(ProgramErrors, ZeroExtentsDoNotHideHugeOnes) {
    // 10^8 is within a shape's limit even where std::size_t has 32 bits.
    EXPECT_ERROR_AT(error_of("a = parameter [100000000, 0]"),
                    1,
                    15,
                    "multiply to more than 65536 when its zeros are left out");
}

TEST(ProgramErrors, ProgramsBeyondTheWorkLimitAreRefused) {
    const std::string source = "a = parameter [200, 200]\nb = a @ a @ a @ a @ a\n";
    EXPECT_ERROR_AT(error_of(source), 2, 15, "would read and write more than 16777216 elements");
}

TEST(ProgramErrors, ProgramsBeyondTheNodeLimitAreRefused) {
    EXPECT_ERROR_AT(
        error_of("a = 1 + 2 + 3", {.max_nodes = 4}), 1, 11, "records more than 4 nodes");
}

TEST(ProgramErrors, ASourceBeyondTheByteLimitIsRefusedAtItsFirstBytePastIt) {
    EXPECT_NO_THROW(compile("a = 1\nb = 2222", {.max_source_bytes = 14}));
    EXPECT_ERROR_AT(error_of("a = 1\nb = 22222", {.max_source_bytes = 14}),
                    2,
                    9,
                    "the program is longer than 14 bytes, the most the playground reads");
    EXPECT_ERROR_AT(error_of("a = 12345", {.max_source_bytes = 4}), 1, 5, "longer than 4 bytes");
    const std::string comment =
        "a = parameter [2]\n# " + std::string(default_max_source_bytes, 'x');
    EXPECT_ERROR_AT(error_of(comment),
                    2,
                    default_max_source_bytes - 18 + 1,
                    "the program is longer than 1048576 bytes");
}

TEST(ProgramErrors, ASourceBeyondTheByteLimitIsRefusedBeforeAnyLineIsRead) {
    // The first line's mistake would be reported first were the lines read.
    EXPECT_ERROR_AT(error_of("a = $\nb = 2\n", {.max_source_bytes = 8}), 2, 3, "longer than 8");
}

TEST(ProgramErrors, StatementsThatRecordNoNodeCountAgainstTheStatementLimit) {
    EXPECT_ERROR_AT(error_of("a = parameter [2]\nb = a\nc = b\nd = c\n", {.max_statements = 3}),
                    4,
                    1,
                    "the program holds more than 3 statements");
    std::string aliases = "a = parameter [2]\n";
    for (int i = 0; i < 20000; ++i) {
        aliases += "b" + std::to_string(i) + " = a\n";
    }
    EXPECT_ERROR_AT(error_of(aliases + "loss = sum(a)\n"),
                    default_max_statements + 1,
                    1,
                    "the program holds more than 16384 statements (`b = a` counted too)");
}

TEST(ProgramErrors, NestingBeyondTheDepthLimitIsRefused) {
    const Limits eight{.max_depth = 8};
    EXPECT_NO_THROW(compile("a = ((((((((1))))))))", eight));
    EXPECT_ERROR_AT(error_of("a = (((((((((1)))))))))", eight), 1, 13, "nests deeper than 8");
    EXPECT_NO_THROW(compile("a = tanh(tanh(tanh(tanh(tanh(tanh(tanh(tanh(1))))))))", eight));
    EXPECT_ERROR_AT(error_of("a = tanh(tanh(tanh(tanh(tanh(tanh(tanh(tanh(tanh(1)))))))))", eight),
                    1,
                    49,
                    "nests deeper than 8");
    EXPECT_ERROR_AT(error_of("a = - - - - - - - - - 1", eight), 1, 21, "nests deeper than 8");
    EXPECT_NO_THROW(compile("a = 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1", eight));
    EXPECT_ERROR_AT(error_of("a = 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1", eight),
                    1,
                    39,
                    "nests more than 8 operations deep");
}

TEST(ProgramErrors, FarDeeperNestingIsRefusedWithoutExhaustingTheStack) {
    const std::size_t depth = 200000;
    const std::string parentheses =
        "a = " + std::string(depth, '(') + "1" + std::string(depth, ')');
    EXPECT_ERROR_AT(error_of(parentheses), 1, 69, "nests deeper than 64");
    std::string chain = "a = 1";
    for (std::size_t i = 0; i < depth; ++i) {
        chain += "+1";
    }
    EXPECT_ERROR_AT(error_of(chain), 1, 6 + 2 * 64, "nests more than 64 operations deep");
}

TEST(ProgramErrors, ATargetThatIsNotRankZeroIsRefusedAtItsStatement) {
    const std::string source = "w = parameter [2]\nh = tanh(w)\nloss = sum(h)\n";
    EXPECT_ERROR_AT(
        error_of("w = parameter [2]\n  h = tanh(w)\n"), 2, 3, "the target `h` is [2], not rank 0");
    EXPECT_ERROR_AT(error_of(source, {}, {.target = "h"}), 2, 1, "such as `loss = sum(h)`");
}

TEST(ProgramErrors, AnOptionNamingNoStatementIsAnOptionError) {
    const Program program = compile("w = parameter []\nloss = w * w\n");
    EXPECT_THROW((void)read(program, {.target = "nothing"}), OptionError);
    try {
        (void)read(program, {.observed = "nothing"});
        ADD_FAILURE() << "no OptionError";
    } catch (const OptionError& error) {
        EXPECT_THAT(error.what(),
                    HasSubstr("the observed name `nothing` names no statement; "
                              "the program names w, loss"));
    }
}

TEST(ProgramErrors, LinesAreCountedWithCommentsBlankLinesAndCarriageReturns) {
    EXPECT_ERROR_AT(error_of("# comment\r\n\r\na = 1 # fine\r\nb = c\r\n"), 4, 5, "`c`");
    EXPECT_ERROR_AT(error_of("a = 1\n\tb = 2 +"), 2, 9, "expected an expression");
}

TEST(ProgramErrors, TheFirstMistakeInLineOrderIsTheOneReported) {
    EXPECT_ERROR_AT(error_of("a = undefined\nb = 1.2.3\n"), 1, 5, "`undefined`");
}

}  // namespace
}  // namespace topos::lang
