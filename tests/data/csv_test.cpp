// data::read_csv against tables written by the test, its refusals, and the
// digits data set the examples read.
#include <topos/core/error.hpp>
#include <topos/data/csv.hpp>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

namespace topos::data {
namespace {

using ::testing::HasSubstr;

std::filesystem::path written(const std::string& name, const std::string& text) {
    const auto path = std::filesystem::path(::testing::TempDir()) /
                      ("topos_csv_" + std::to_string(getpid()) + '_' + name + ".csv");
    std::ofstream(path) << text;
    return path;
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
                ::testing::ThrowsMessage<Error>(HasSubstr(":2: column 2: \"x\" is not a number")));
    std::filesystem::remove(path);
}

TEST(ReadCsv, RefusesARowOfAnotherLengthAndAMissingFile) {
    const auto path = written("ragged", "1,2,3\n4,5\n");
    EXPECT_THAT([&] { (void)read_csv<double>(path); },
                ::testing::ThrowsMessage<Error>(
                    HasSubstr(":2: a row of 2 values, where the first row has 3")));
    std::filesystem::remove(path);
    EXPECT_THAT([] { (void)read_csv<double>("/nonexistent/topos.csv"); },
                ::testing::ThrowsMessage<Error>(HasSubstr("No such file or directory")));
}

TEST(ReadCsv, ReadsTheDigits) {
    const Tensor<float> digits =
        read_csv<float>(std::string(TOPOS_SOURCE_DIR) + "/data/digits.csv");
    EXPECT_EQ(digits.shape(), (Shape{1797, 65}));
    EXPECT_EQ(digits.at({0, 64}), 0.0f);
}

}  // namespace
}  // namespace topos::data
