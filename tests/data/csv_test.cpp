// data::read_csv against tables written by the test, its refusals (each a
// CsvError naming the file, line and column), what it refuses to open, its
// byte limit, read_csv_text over the same text, and the digits data set the
// examples read.
#include "data/csv_text.hpp"
#include <topos/core/error.hpp>
#include <topos/data/csv.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <sys/stat.h>
#include <unistd.h>

namespace topos::data {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::ThrowsMessage;

std::filesystem::path written(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::path(::testing::TempDir()) /
                      ("topos_csv_" + std::to_string(getpid()) + '_' + name + ".csv");
    std::ofstream(path, std::ios::binary) << text;
    return path;
}

// The message read_csv<T> throws for `text` in a file, or "" when it reads it.
template <Element T>
std::string refusal_of(const std::string& text, CsvOptions options = {}) {
    const auto path = written("refused", text);
    std::string message;
    try {
        (void)read_csv<T>(path, options);
    } catch (const CsvError& error) {
        message = error.what();
    }
    std::filesystem::remove(path);
    return message;
}

TEST(ReadCsv, ReadsRowsOfNumbersIntoARankTwoTensor) {
    const auto path = written("table", "1,2.5,-3\n\n4, 5e-1 ,6\r\n");
    const Tensor<double> table = read_csv<double>(path);
    EXPECT_EQ(table, (Tensor<double>(Shape{2, 3}, {1, 2.5, -3, 4, 0.5, 6})));
    EXPECT_EQ(read_csv<float>(path).shape(), (Shape{2, 3}));
    std::filesystem::remove(path);
}

TEST(ReadCsv, SkipsAHeaderAndTakesAnotherDelimiter) {
    const auto path = written("header", "a;b\n1;2\n3;4\n");
    EXPECT_EQ(read_csv<double>(path, {.delimiter = ';', .header = true}),
              (Tensor<double>(Shape{2, 2}, {1, 2, 3, 4})));
    std::filesystem::remove(path);
}

TEST(ReadCsv, NamesTheLineAndColumnOfAFieldThatIsNotANumber) {
    const auto path = written("word", "1,2\n3,x\n");
    EXPECT_THAT([&] { (void)read_csv<double>(path); },
                ThrowsMessage<CsvError>(AllOf(HasSubstr(path.string() + ":2: column 2: \"x\" is "
                                                                        "not a number"),
                                              Not(HasSubstr("header")))));
    std::filesystem::remove(path);
    EXPECT_THAT(refusal_of<double>("1,,3\n"),
                HasSubstr(":1: column 2: an empty field, where a number belongs"));
}

TEST(ReadCsv, RefusesARowOfAnotherLengthAndAMissingFile) {
    EXPECT_THAT(refusal_of<double>("\n1,2,3\n4,5\n"),
                HasSubstr(":3: column 3: a row of 2 values, where the first row (line 2) has 3"));
    EXPECT_THAT(refusal_of<double>("1,2\n4,5,6,7\n"),
                HasSubstr(":2: column 3: a row of 4 values, where the first row (line 1) has 2"));
    EXPECT_THAT([] { (void)read_csv<double>("/nonexistent/topos.csv"); },
                ThrowsMessage<CsvError>(
                    HasSubstr("cannot read /nonexistent/topos.csv: No such file or directory")));
}

TEST(ReadCsv, RefusesADirectoryNamingWhatItIs) {
    const std::string folder = ::testing::TempDir();
    EXPECT_THAT([&] { (void)read_csv<double>(folder); },
                ThrowsMessage<CsvError>(HasSubstr("cannot read " + folder +
                                                  ": it is a directory, not a regular file")));
}

TEST(ReadCsv, RefusesADeviceWithoutReadingIt) {
    EXPECT_THAT([] { (void)read_csv<float>("/dev/zero"); },
                ThrowsMessage<CsvError>(
                    HasSubstr("cannot read /dev/zero: it is a character device, not a regular")));
}

TEST(ReadCsv, RefusesAFifoWithoutBlocking) {
    const auto path = std::filesystem::path(::testing::TempDir()) /
                      ("topos_csv_" + std::to_string(getpid()) + "_fifo");
    std::filesystem::remove(path);
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    EXPECT_THAT(
        [&] { (void)read_csv<double>(path); },
        ThrowsMessage<CsvError>(HasSubstr("it is a FIFO (named pipe), not a regular file")));
    std::filesystem::remove(path);
}

TEST(ReadCsv, RefusesAFileLargerThanItsByteLimitBeforeReading) {
    const auto path = written("large", "1,2\n3,4\n5,6\n");
    EXPECT_THAT([&] { (void)read_csv<double>(path, {.max_bytes = 11}); },
                ThrowsMessage<CsvError>(HasSubstr(
                    ": it is 12 bytes, more than the 11 that CsvOptions::max_bytes allows")));
    EXPECT_EQ(read_csv<double>(path, {.max_bytes = 12}).shape(), (Shape{3, 2}));
    std::filesystem::remove(path);
    EXPECT_EQ(CsvOptions{}.max_bytes, std::uint64_t{1} << 30);
}

// /proc/self/status is a regular file whose size reads as 0 but which holds
// far more bytes, as a file growing under the reader would.
TEST(ReadCsv, StopsAFileThatHoldsMoreThanItsByteLimitWhileReadingIt) {
    struct stat status {};

    if (::stat("/proc/self/status", &status) != 0 || status.st_size != 0) {
        GTEST_SKIP() << "no /proc/self/status of size 0 here";
    }
    EXPECT_THAT([] { (void)read_csv<double>("/proc/self/status", {.max_bytes = 64}); },
                ThrowsMessage<CsvError>(HasSubstr(
                    "/proc/self/status:1: more than 64 bytes, the limit CsvOptions::max_bytes")));
}

// Reading /proc/self/mem from its first byte fails with EIO.
TEST(ReadCsv, ReportsAReadErrorRatherThanAnEmptyTable) {
    if (!std::filesystem::is_regular_file("/proc/self/mem")) {
        GTEST_SKIP() << "no /proc/self/mem here";
    }
    EXPECT_THAT([] { (void)read_csv<double>("/proc/self/mem"); },
                ThrowsMessage<CsvError>(HasSubstr(
                    "/proc/self/mem:1: could not read the file after its first 0 bytes: ")));
}

TEST(ReadCsv, RefusesAFileWithoutARowOfNumbers) {
    EXPECT_THAT(refusal_of<double>(""), HasSubstr(": the file is empty: a CSV table needs"));
    EXPECT_THAT(refusal_of<double>("a,b\n", {.header = true}),
                HasSubstr(": the file holds only its header line: a CSV table needs"));
    EXPECT_THAT(refusal_of<double>("a,b\n\n \n", {.header = true}),
                HasSubstr(": the file holds only its header line and blank lines"));
    EXPECT_THAT(refusal_of<double>("\n\r\n\t\n"), HasSubstr(": the file holds only blank lines"));
}

TEST(ReadCsv, HintsAtTheHeaderOptionWhenTheFirstLineIsNotNumbers) {
    EXPECT_THAT(refusal_of<double>("width,height\n1,2\n"),
                HasSubstr(":1: column 1: \"width\" is not a number; if line 1 holds column "
                          "names, pass CsvOptions{.header = true} to skip it"));
    EXPECT_THAT(refusal_of<double>("\xEF\xBB\xBF"
                                   "1,x\n"),
                HasSubstr(":1: column 2: \"x\" is not a number; if line 1 holds column names"));
    EXPECT_THAT(refusal_of<double>("\nwidth\n"),
                AllOf(HasSubstr(":2: column 1: \"width\" is not"), Not(HasSubstr("header"))));
    EXPECT_THAT(refusal_of<double>("a\nb\n", {.header = true}), Not(HasSubstr("header")));
}

TEST(ReadCsv, RefusesANumberOutOfRangeForTheElementType) {
    EXPECT_THAT(refusal_of<float>("1,1e39\n"),
                HasSubstr(":1: column 2: \"1e39\" is out of range for float (largest magnitude "
                          "3.4028235e+38)"));
    EXPECT_THAT(refusal_of<float>("-3.4028236e38\n"), HasSubstr("out of range for float"));
    EXPECT_THAT(refusal_of<double>("1\n1e400\n"),
                HasSubstr(":2: column 1: \"1e400\" is out of range for double (largest magnitude "
                          "1.7976931348623157e+308)"));
    EXPECT_THAT(refusal_of<double>("-0.001e312\n"), HasSubstr("out of range for double"));
    const auto path = written("range", "1e39,-0.001e311,inf,-1e-400,1000e-327\n");
    const Tensor<double> wide = read_csv<double>(path, {.max_bytes = 100});
    EXPECT_EQ(wide.at({0, 0}), 1e39);
    EXPECT_EQ(wide.at({0, 3}), 0.0);
    EXPECT_TRUE(std::signbit(wide.at({0, 3})));
    EXPECT_EQ(wide.at({0, 4}), 0.0);
    std::filesystem::remove(path);
    const auto narrow_path = written("narrow", "3.4028235e38,inf,-1e-400,1e-50\n");
    const Tensor<float> narrow = read_csv<float>(narrow_path);
    EXPECT_EQ(narrow.at({0, 0}), std::numeric_limits<float>::max());
    EXPECT_EQ(narrow.at({0, 1}), std::numeric_limits<float>::infinity());
    EXPECT_EQ(narrow.at({0, 3}), 0.0f);
    std::filesystem::remove(narrow_path);
}

TEST(ReadCsv, SkipsAByteOrderMarkAndReadsALeadingPlus) {
    const auto path = written("plus",
                              "\xEF\xBB\xBF"
                              "+1,2\n3, +.5\n");
    EXPECT_EQ(read_csv<double>(path), (Tensor<double>(Shape{2, 2}, {1, 2, 3, 0.5})));
    std::filesystem::remove(path);
    EXPECT_THAT(refusal_of<double>("1\n+-1\n"), HasSubstr(":2: column 1: \"+-1\" is not a number"));
    EXPECT_THAT(refusal_of<double>("1\n++1\n"), HasSubstr(":2: column 1: \"++1\" is not a number"));
    EXPECT_THAT(refusal_of<double>("1\n+\n"), HasSubstr(":2: column 1: \"+\" is not a number"));
    EXPECT_THAT(refusal_of<double>("1\n2\xEF\xBB\xBF\n"), HasSubstr(":2: column 1:"));
}

TEST(ReadCsv, QuotesOnlyAShortPrefixOfALongField) {
    const std::string message = refusal_of<double>("1,2\n3," + std::string(10'000'000, 'x') + "\n");
    EXPECT_THAT(message,
                HasSubstr(":2: column 2: \"" + std::string(40, 'x') +
                          "...\" (10000000 bytes) is not a number"));
    EXPECT_LT(message.size(), 300u);
    // The cut at 40 bytes would split the two bytes of "é": it is left out whole.
    EXPECT_THAT(refusal_of<double>("1\n\x01\x7f" + std::string(37, 'y') + "\xC3\xA9zz\n"),
                HasSubstr("\"\\x01\\x7F" + std::string(37, 'y') + "...\" (43 bytes)"));
}

TEST(ReadCsv, RefusesADelimiterThatCanBePartOfANumber) {
    EXPECT_THAT(refusal_of<double>("1.5\n", {.delimiter = '.'}),
                HasSubstr(": the delimiter '.' can be part of a number; choose another "
                          "CsvOptions::delimiter"));
    EXPECT_THAT(refusal_of<double>("1\n", {.delimiter = '\n'}),
                HasSubstr(": the delimiter '\\x0A' ends lines"));
    EXPECT_EQ(refusal_of<double>("1\t2\n", {.delimiter = '\t'}), "");
}

TEST(ReadCsv, ReadsAFileLongerThanOneChunkLineByLine) {
    std::string text;
    std::vector<double> values;
    for (int row = 0; row < 30'000; ++row) {
        text += std::to_string(row) + ",-" + std::to_string(row) + ".25\n";
        values.push_back(row);
        values.push_back(-row - 0.25);
    }
    const auto path = written("long", text);
    const Tensor<double> table = read_csv<double>(path);
    EXPECT_EQ(table, (Tensor<double>(Shape{30'000, 2}, values)));
    EXPECT_EQ(read_csv_text<double>(text, {}, "the text"), table);
    std::filesystem::remove(path);
}

TEST(ReadCsvText, ReadsAndRefusesAsTheFileReaderDoesNamingTheOrigin) {
    EXPECT_EQ(read_csv_text<float>("1,2\n3,4", {}, "the text"),
              (Tensor<float>(Shape{2, 2}, {1, 2, 3, 4})));
    EXPECT_THAT([] { (void)read_csv_text<float>("1,2\n3", {}, "the text"); },
                ThrowsMessage<CsvError>(HasSubstr("the text:2: column 2: a row of 1 values")));
    EXPECT_THAT([] { (void)read_csv_text<float>("1,2\n", {.max_bytes = 3}, "the text"); },
                ThrowsMessage<CsvError>(HasSubstr("the text:1: more than 3 bytes")));
}

TEST(ReadCsv, ReadsTheDigits) {
    const Tensor<float> digits =
        read_csv<float>(std::string(TOPOS_SOURCE_DIR) + "/data/digits.csv");
    EXPECT_EQ(digits.shape(), (Shape{1797, 65}));
    EXPECT_EQ(digits.at({0, 64}), 0.0f);
}

}  // namespace
}  // namespace topos::data
