// Tensor<T>::describe(): the type and shape on the first line, then rows with
// right-aligned columns, torch's blank lines between blocks, and the middle of
// large tensors elided. Every expected text is written out by hand from those
// rules; << keeps its single-line format alongside.
#include <topos/core/tensor.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace topos {
namespace {

template <Element T>
Tensor<T> counting_from_zero(Shape shape) {
    return Tensor<T>::generate(shape, [](std::span<T> out) {
        for (std::size_t k = 0; k < out.size(); ++k) {
            out[k] = static_cast<T>(k);
        }
    });
}

TEST(TensorDescribe, NamesTheTypeAndShapeThenAlignsEachColumnToTheRight) {
    const Tensor<float> t({2, 3}, {1.0f, 2.5f, -3.0f, 40.0f, 5.0f, 6.0f});
    EXPECT_EQ(t.describe(),
              "Tensor<float> [2, 3]\n"
              "[[ 1, 2.5, -3],\n"
              " [40,   5,  6]]");
}

TEST(TensorDescribe, WritesARankZeroTensorAsItsNumber) {
    EXPECT_EQ(Tensor<double>(3.25).describe(), "Tensor<double> []\n3.25");
    EXPECT_EQ(Tensor<float>(-0.0f).describe(), "Tensor<float> []\n-0");
}

TEST(TensorDescribe, WritesARankOneTensorOnOneLine) {
    EXPECT_EQ((Tensor<double>({3}, {0.1, -2, 30})).describe(), "Tensor<double> [3]\n[0.1, -2, 30]");
}

TEST(TensorDescribe, UsesTheShortestRoundTripDecimalOfEachElement) {
    EXPECT_EQ((Tensor<double>({2}, {0.1 + 0.2, 0.75})).describe(),
              "Tensor<double> [2]\n[0.30000000000000004, 0.75]");
    EXPECT_EQ((Tensor<float>({2}, {0.1f, 0.75025934f})).describe(),
              "Tensor<float> [2]\n[0.1, 0.75025934]");
}

TEST(TensorDescribe, AlignsAColumnOverEveryBlockAndSeparatesBlocksByABlankLine) {
    const Tensor<float> t({2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 100});
    EXPECT_EQ(t.describe(),
              "Tensor<float> [2, 2, 2]\n"
              "[[[1,   2],\n"
              "  [3,   4]],\n"
              "\n"
              " [[5,   6],\n"
              "  [7, 100]]]");
}

TEST(TensorDescribe, SeparatesBlocksOfRankFourByTwoBlankLines) {
    const Tensor<double> t({2, 1, 2, 1}, {1, 2, 3, 4});
    EXPECT_EQ(t.describe(),
              "Tensor<double> [2, 1, 2, 1]\n"
              "[[[[1],\n"
              "   [2]]],\n"
              "\n"
              "\n"
              " [[[3],\n"
              "   [4]]]]");
}

TEST(TensorDescribe, WritesNaNAndInfinitiesAlignedLikeNumbers) {
    const double inf = std::numeric_limits<double>::infinity();
    const Tensor<double> t({2, 2}, {std::nan(""), 1, -inf, inf});
    EXPECT_EQ(t.describe(),
              "Tensor<double> [2, 2]\n"
              "[[ nan,   1],\n"
              " [-inf, inf]]");
    // The sign of a NaN means nothing to a reader: describe writes "nan" for all.
    EXPECT_EQ(Tensor<float>(-std::numeric_limits<float>::quiet_NaN()).describe(),
              "Tensor<float> []\nnan");
}

TEST(TensorDescribe, WritesEmptyBracketsForATensorWithAnEmptyAxis) {
    EXPECT_EQ(Tensor<float>::filled({0, 3}, 1).describe(), "Tensor<float> [0, 3]\n[]");
    EXPECT_EQ(Tensor<double>::filled({2, 0}, 1).describe(), "Tensor<double> [2, 0]\n[]");
    EXPECT_EQ(Tensor<float>::filled({0}, 1).describe(), "Tensor<float> [0]\n[]");
}

TEST(TensorDescribe, ElidesTheMiddleOfEveryLongAxisPastAThousandElements) {
    EXPECT_EQ(counting_from_zero<double>({50, 50}).describe(),
              "Tensor<double> [50, 50]\n"
              "[[   0,    1,    2, ...,   47,   48,   49],\n"
              " [  50,   51,   52, ...,   97,   98,   99],\n"
              " [ 100,  101,  102, ...,  147,  148,  149],\n"
              " ...,\n"
              " [2350, 2351, 2352, ..., 2397, 2398, 2399],\n"
              " [2400, 2401, 2402, ..., 2447, 2448, 2449],\n"
              " [2450, 2451, 2452, ..., 2497, 2498, 2499]]");
}

TEST(TensorDescribe, KeepsAxesOfAtMostTwiceTheEdgeItemsWhole) {
    EXPECT_EQ(counting_from_zero<float>({6, 200}).describe(),
              "Tensor<float> [6, 200]\n"
              "[[   0,    1,    2, ...,  197,  198,  199],\n"
              " [ 200,  201,  202, ...,  397,  398,  399],\n"
              " [ 400,  401,  402, ...,  597,  598,  599],\n"
              " [ 600,  601,  602, ...,  797,  798,  799],\n"
              " [ 800,  801,  802, ...,  997,  998,  999],\n"
              " [1000, 1001, 1002, ..., 1197, 1198, 1199]]");
}

TEST(TensorDescribe, ShowsEveryElementUpToTheThreshold) {
    const std::string text = Tensor<float>::filled({1000}, 0.0f).describe();
    EXPECT_EQ(text.find("..."), std::string::npos);
    EXPECT_EQ(std::count(text.begin(), text.end(), ','), 999);
    EXPECT_EQ(Tensor<float>::filled({1001}, 0.0f).describe(),
              "Tensor<float> [1001]\n[0, 0, 0, ..., 0, 0, 0]");
}

TEST(TensorDescribe, ShowsEverythingWhenFullIsAsked) {
    const std::string text = Tensor<float>::filled({1001}, 0.0f).describe({.full = true});
    EXPECT_EQ(text.find("..."), std::string::npos);
    EXPECT_EQ(std::count(text.begin(), text.end(), ','), 1000);
}

TEST(TensorDescribe, TakesItsThresholdAndEdgeItemsFromTheOptions) {
    const Tensor<double> t = counting_from_zero<double>({5});
    EXPECT_EQ(t.describe({.threshold = 4, .edge_items = 1}), "Tensor<double> [5]\n[0, ..., 4]");
    EXPECT_EQ(t.describe({.threshold = 5, .edge_items = 1}), "Tensor<double> [5]\n[0, 1, 2, 3, 4]");
    EXPECT_EQ(t.describe({.threshold = 0, .edge_items = 2}),
              "Tensor<double> [5]\n[0, 1, ..., 3, 4]");
}

TEST(TensorDescribe, ElidesWholeBlocksBetweenBlankLines) {
    const Tensor<float> t({3, 1, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    EXPECT_EQ(t.describe({.threshold = 5, .edge_items = 1}),
              "Tensor<float> [3, 1, 3]\n"
              "[[[1, ..., 3]],\n"
              "\n"
              " ...,\n"
              "\n"
              " [[7, ..., 9]]]");
}

// A 50 x 50 tensor of typical floats: << writes it on one line of about thirty
// thousand characters, which describe() turns into a few short lines.
TEST(TensorDescribe, TurnsALargeTensorIntoAFewShortLinesWhileShiftKeepsOneLine) {
    const Tensor<float> t = Tensor<float>::generate({50, 50}, [](std::span<float> out) {
        for (std::size_t k = 0; k < out.size(); ++k) {
            out[k] = std::sin(static_cast<float>(k) * 0.37f) * 1.7f;
        }
    });
    std::ostringstream shifted;
    shifted << t;
    EXPECT_GT(shifted.str().size(), 20000u);
    EXPECT_EQ(shifted.str().find('\n'), std::string::npos);
    EXPECT_EQ(shifted.str(), t.str());

    const std::string text = t.describe();
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        lines.push_back(line);
    }
    ASSERT_EQ(lines.size(), 8u);
    EXPECT_EQ(lines[0], "Tensor<float> [50, 50]");
    EXPECT_EQ(lines[4], " ...,");
    for (const std::string& line : lines) {
        EXPECT_LT(line.size(), 100u) << line;
    }
    // The rows shown line up: their commas stand in the same columns.
    for (std::size_t row : {2, 3, 6, 7}) {
        EXPECT_EQ(lines[row].find(','), lines[1].find(',')) << lines[row];
        EXPECT_EQ(lines[row].rfind(", "), lines[1].rfind(", ")) << lines[row];
    }
}

}  // namespace
}  // namespace topos
