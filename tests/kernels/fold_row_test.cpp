// The vector folds of a row of window taps, and of a plane's rows, give the
// scalar fold's bits: along W each position adds its taps over kw descending
// from +0, then each image row adds its tap rows' sums. Rows up to a whole
// vector, kernels of 1 to 5 columns, padding, rows in padding, float and
// double, signed zeros; and the kernel is offered only where a row fits in a
// vector.
#include "kernels/fold_row.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace topos {
namespace {

using detail::FoldRowShape;

template <Element T>
void scalar_fold(const FoldRowShape& s, const T* taps, std::size_t stride, T* const* rows) {
    const std::size_t folded = s.windows + s.kernel_columns - 1;
    std::vector<T> line(folded);
    for (std::size_t kh = 0; kh < s.kernel_rows; ++kh) {
        std::fill(line.begin(), line.end(), T{0});
        for (std::size_t kw = s.kernel_columns; kw-- > 0;) {
            const T* column = taps + (kh * s.kernel_columns + kw) * stride;
            for (std::size_t ow = 0; ow < s.windows; ++ow) {
                line[ow + kw] += column[ow];
            }
        }
        if (rows[kh] != nullptr) {
            for (std::size_t x = 0; x < s.width; ++x) {
                rows[kh][x] += line[s.pad_left + x];
            }
        }
    }
}

template <class T>
class FoldRow : public ::testing::Test {};

using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(FoldRow, Elements);

TYPED_TEST(FoldRow, RandomRowsGiveTheScalarFoldsBits) {
    using T = TypeParam;
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    constexpr std::size_t lanes = 64 / sizeof(T);
    std::mt19937 generator(3);
    std::normal_distribution<T> normal(0, 1);
    const auto pick = [&](std::size_t low, std::size_t high) {
        return std::uniform_int_distribution<std::size_t>(low, high)(generator);
    };
    std::size_t folded_rows = 0;
    for (int trial = 0; trial < 400; ++trial) {
        FoldRowShape s{};
        s.kernel_columns = pick(1, 5);
        s.windows = pick(1, lanes + 1 - s.kernel_columns);
        s.kernel_rows = pick(1, 4);
        const std::size_t folded = s.windows + s.kernel_columns - 1;
        s.pad_left = pick(0, std::min<std::size_t>(2, folded - 1));
        s.width = pick(1, folded - s.pad_left);
        const std::size_t stride = s.windows + pick(0, 3);
        std::vector<T> taps(s.kernel_rows * s.kernel_columns * stride);
        for (T& tap : taps) {
            tap = generator() % 5 == 0 ? -T{0} : normal(generator);
        }
        std::vector<std::vector<T>> image(s.kernel_rows, std::vector<T>(s.width));
        std::vector<std::vector<T>> expected = image;
        std::array<T*, 4> rows{};
        std::array<T*, 4> expected_rows{};
        for (std::size_t kh = 0; kh < s.kernel_rows; ++kh) {
            for (std::size_t x = 0; x < s.width; ++x) {
                image[kh][x] = expected[kh][x] = generator() % 4 == 0 ? -T{0} : normal(generator);
            }
            const bool inside = generator() % 4 != 0;
            rows[kh] = inside ? image[kh].data() : nullptr;
            expected_rows[kh] = inside ? expected[kh].data() : nullptr;
        }
        scalar_fold(s, taps.data(), stride, expected_rows.data());
        for (const Isa isa : supported_isas()) {
            const detail::FoldRow<T> fold = detail::fold_row_kernel<T>(isa, s);
            if (fold == nullptr) {
                continue;
            }
            SCOPED_TRACE(std::string(name_of(isa)) + ": windows " + std::to_string(s.windows) +
                         ", kernel " + std::to_string(s.kernel_rows) + " x " +
                         std::to_string(s.kernel_columns) + ", pad " + std::to_string(s.pad_left) +
                         ", width " + std::to_string(s.width));
            std::vector<std::vector<T>> actual = image;
            std::array<T*, 4> actual_rows{};
            for (std::size_t kh = 0; kh < s.kernel_rows; ++kh) {
                actual_rows[kh] = rows[kh] != nullptr ? actual[kh].data() : nullptr;
            }
            fold(s, taps.data(), stride, actual_rows.data());
            ++folded_rows;
            for (std::size_t kh = 0; kh < s.kernel_rows; ++kh) {
                for (std::size_t x = 0; x < s.width; ++x) {
                    ASSERT_EQ(std::bit_cast<Bits>(actual[kh][x]),
                              std::bit_cast<Bits>(expected[kh][x]))
                        << "row " << kh << ", column " << x;
                }
            }
        }
    }
    if (folded_rows == 0) {
        GTEST_SKIP() << "no vector fold on this processor";
    }
}

// A plane folded row after row onto zeros by the scalar fold, and by the
// plane kernel.
TYPED_TEST(FoldRow, RandomPlanesGiveTheScalarFoldsBits) {
    using T = TypeParam;
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    constexpr std::size_t lanes = 64 / sizeof(T);
    std::mt19937 generator(5);
    std::normal_distribution<T> normal(0, 1);
    const auto pick = [&](std::size_t low, std::size_t high) {
        return std::uniform_int_distribution<std::size_t>(low, high)(generator);
    };
    for (int trial = 0; trial < 200; ++trial) {
        detail::FoldPlaneShape s{};
        FoldRowShape& r = s.row;
        r.kernel_columns = pick(1, 5);
        r.windows = pick(1, lanes + 1 - r.kernel_columns);
        r.kernel_rows = pick(1, 4);
        const std::size_t folded = r.windows + r.kernel_columns - 1;
        r.pad_left = pick(0, std::min<std::size_t>(2, folded - 1));
        r.width = pick(1, folded - r.pad_left);
        s.rows = pick(1, 9);
        const std::size_t folded_rows = s.rows + r.kernel_rows - 1;
        s.pad_top = pick(0, std::min<std::size_t>(2, folded_rows - 1));
        s.image_rows = pick(1, std::min<std::size_t>(32, folded_rows - s.pad_top));
        const std::size_t stride = s.rows * r.windows + pick(0, 3);
        std::vector<T> taps(r.kernel_rows * r.kernel_columns * stride);
        for (T& tap : taps) {
            tap = generator() % 5 == 0 ? -T{0} : normal(generator);
        }
        std::vector<T> expected(s.image_rows * r.width, T{0});
        for (std::size_t oh = 0; oh < s.rows; ++oh) {
            std::array<T*, 4> rows{};
            for (std::size_t kh = 0; kh < r.kernel_rows; ++kh) {
                const std::size_t y = oh + kh;
                const bool inside = y >= s.pad_top && y - s.pad_top < s.image_rows;
                rows[kh] = inside ? expected.data() + (y - s.pad_top) * r.width : nullptr;
            }
            scalar_fold(r, taps.data() + oh * r.windows, stride, rows.data());
        }
        for (const Isa isa : supported_isas()) {
            const detail::FoldPlane<T> fold = detail::fold_plane_kernel<T>(isa, s);
            if (fold == nullptr) {
                continue;
            }
            SCOPED_TRACE(std::string(name_of(isa)) + ": " + std::to_string(s.rows) + " rows of " +
                         std::to_string(r.windows) + " windows, kernel " +
                         std::to_string(r.kernel_rows) + " x " + std::to_string(r.kernel_columns) +
                         ", image " + std::to_string(s.image_rows) + " x " +
                         std::to_string(r.width));
            std::vector<T> actual(expected.size(), std::numeric_limits<T>::quiet_NaN());
            fold(s, taps.data(), stride, actual.data());
            for (std::size_t i = 0; i < actual.size(); ++i) {
                ASSERT_EQ(std::bit_cast<Bits>(actual[i]), std::bit_cast<Bits>(expected[i]))
                    << "element " << i;
            }
        }
    }
}

TEST(FoldRowKernel, IsOfferedOnlyWhereARowFitsInOneVector) {
    EXPECT_EQ(detail::fold_row_kernel<float>(Isa::Portable, {14, 3, 3, 1, 14}), nullptr);
    EXPECT_EQ(detail::fold_row_kernel<float>(Isa::Avx2, {14, 3, 3, 1, 14}), nullptr);
    EXPECT_EQ(detail::fold_row_kernel<float>(Isa::Avx512, {15, 3, 3, 1, 15}), nullptr);
    EXPECT_EQ(detail::fold_row_kernel<float>(Isa::Avx512, {14, 3, 3, 3, 14}), nullptr);
    EXPECT_EQ(detail::fold_row_kernel<double>(Isa::Avx512, {7, 3, 3, 1, 7}), nullptr);
    if (supported_isas().back() == Isa::Avx512) {
        EXPECT_NE(detail::fold_row_kernel<float>(Isa::Avx512, {14, 3, 3, 1, 14}), nullptr);
        EXPECT_NE(detail::fold_row_kernel<double>(Isa::Avx512, {6, 3, 3, 1, 6}), nullptr);
    }
}

}  // namespace
}  // namespace topos
