// The vector folds of a row of window taps, and of a plane's rows, give the
// scalar fold's bits: along W each position adds its taps over kw descending
// from +0, then each image row adds its tap rows' sums. Rows up to a whole
// vector, kernels of 1 to 5 columns, padding, rows in padding, float and
// double, signed zeros; and the kernel is offered only where a row fits in a
// vector. The bf16 plans' float kernels round each line of sums along W as
// bf16_rows.hpp does, NaNs, subnormals, ties and overflow included.
#include "kernels/fold_row.hpp"

#include "kernels/bf16_rows.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace topos {
namespace {

using detail::FoldRowShape;

// The scalar fold; `rounds_line`: each line of sums along W rounded to bf16
// (kept in float) before it is added onto its row.
template <Element T>
void scalar_fold(const FoldRowShape& s,
                 const T* taps,
                 std::size_t stride,
                 T* const* rows,
                 bool rounds_line = false) {
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
        if constexpr (std::is_same_v<T, float>) {
            if (rounds_line) {
                detail::round_in_float(line.data(), line.size());
            }
        }
        if (rows[kh] != nullptr) {
            for (std::size_t x = 0; x < s.width; ++x) {
                rows[kh][x] += line[s.pad_left + x];
            }
        }
    }
}

std::size_t pick(std::mt19937& generator, std::size_t low, std::size_t high) {
    return std::uniform_int_distribution<std::size_t>(low, high)(generator);
}

// A random row of windows for vectors of `lanes` elements: kernels of 1 to 5
// columns and up to 4 rows, padding on the left.
FoldRowShape random_row(std::mt19937& generator, std::size_t lanes) {
    FoldRowShape r{};
    r.kernel_columns = pick(generator, 1, 5);
    r.windows = pick(generator, 1, lanes + 1 - r.kernel_columns);
    r.kernel_rows = pick(generator, 1, 4);
    const std::size_t folded = r.windows + r.kernel_columns - 1;
    r.pad_left = pick(generator, 0, std::min<std::size_t>(2, folded - 1));
    r.width = pick(generator, 1, folded - r.pad_left);
    return r;
}

// A random plane of up to `most_rows` rows of such windows, padding on top.
detail::FoldPlaneShape random_plane(std::mt19937& generator,
                                    std::size_t lanes,
                                    std::size_t most_rows) {
    const auto pick = [&](std::size_t low, std::size_t high) {
        return topos::pick(generator, low, high);
    };
    detail::FoldPlaneShape s{};
    s.row = random_row(generator, lanes);
    const FoldRowShape& r = s.row;
    s.rows = pick(1, most_rows);
    const std::size_t folded_rows = s.rows + r.kernel_rows - 1;
    s.pad_top = pick(0, std::min<std::size_t>(2, folded_rows - 1));
    s.image_rows = pick(1, std::min<std::size_t>(32, folded_rows - s.pad_top));
    return s;
}

// The image rows that window row oh's tap rows add onto, null in padding.
template <Element T>
std::array<T*, 4> rows_under(const detail::FoldPlaneShape& s, std::size_t oh, T* image) {
    std::array<T*, 4> rows{};
    for (std::size_t kh = 0; kh < s.row.kernel_rows; ++kh) {
        const std::size_t y = oh + kh;
        const bool inside = y >= s.pad_top && y - s.pad_top < s.image_rows;
        rows[kh] = inside ? image + (y - s.pad_top) * s.row.width : nullptr;
    }
    return rows;
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
        const FoldRowShape s = random_row(generator, lanes);
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
        const detail::FoldPlaneShape s = random_plane(generator, lanes, 9);
        const FoldRowShape& r = s.row;
        const std::size_t stride = s.rows * r.windows + pick(0, 3);
        std::vector<T> taps(r.kernel_rows * r.kernel_columns * stride);
        for (T& tap : taps) {
            tap = generator() % 5 == 0 ? -T{0} : normal(generator);
        }
        std::vector<T> expected(s.image_rows * r.width, T{0});
        for (std::size_t oh = 0; oh < s.rows; ++oh) {
            scalar_fold(
                r, taps.data() + oh * r.windows, stride, rows_under(s, oh, expected.data()).data());
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

// Taps whose sums round every way: ties to even, subnormals (which
// vcvtneps2bf16 would flush), NaNs with payloads, and sums past bf16's
// largest finite value.
float awkward_tap(std::mt19937& generator) {
    static constexpr std::array<std::uint32_t, 8> special{
        0x3f808000U,  // 1 + 2^-8: halfway between two bf16 values
        0x3f818000U,  // halfway, rounding up to even
        0x00012345U,  // a subnormal
        0x80000001U,  // the smallest negative subnormal
        0x7fa00001U,  // a signalling NaN with a payload
        0xffc12345U,  // a negative quiet NaN with a payload
        0x7f7f0000U,  // bf16's largest finite value: two of them overflow
        0x80000000U,  // -0
    };
    if (generator() % 3 == 0) {
        return std::bit_cast<float>(special[generator() % special.size()]);
    }
    return std::normal_distribution<float>(0, 1)(generator);
}

// Which NaN an add of two NaNs gives is the compiler's to choose (it may
// swap the operands of the scalar loop's adds), so a NaN need only be NaN.
bool same_bits_or_both_nan(float actual, float expected) {
    if (std::isnan(expected)) {
        return std::isnan(actual);
    }
    return std::bit_cast<std::uint32_t>(actual) == std::bit_cast<std::uint32_t>(expected);
}

TEST(FoldRowRoundingToBf16, RowsAndPlanesGiveTheScalarFoldsBitsWithEachLineRounded) {
    std::mt19937 generator(7);
    std::size_t folds = 0;
    for (int trial = 0; trial < 300; ++trial) {
        const detail::FoldPlaneShape s = random_plane(generator, 16, 6);
        const FoldRowShape& r = s.row;
        const std::size_t stride = s.rows * r.windows;
        std::vector<float> taps(r.kernel_rows * r.kernel_columns * stride);
        for (float& tap : taps) {
            tap = awkward_tap(generator);
        }
        std::vector<float> expected(s.image_rows * r.width, 0.0F);
        for (std::size_t oh = 0; oh < s.rows; ++oh) {
            scalar_fold(r,
                        taps.data() + oh * r.windows,
                        stride,
                        rows_under(s, oh, expected.data()).data(),
                        true);
        }
        for (const Isa isa : supported_isas()) {
            const auto plane =
                detail::fold_plane_kernel<float, detail::Interior::RoundedToBf16>(isa, s);
            const auto row =
                detail::fold_row_kernel<float, detail::Interior::RoundedToBf16>(isa, r);
            EXPECT_EQ(row != nullptr, detail::fold_row_kernel<float>(isa, r) != nullptr);
            if (plane == nullptr || row == nullptr) {
                continue;
            }
            SCOPED_TRACE(std::string(name_of(isa)) + ": " + std::to_string(s.rows) + " rows of " +
                         std::to_string(r.windows) + " windows, kernel " +
                         std::to_string(r.kernel_rows) + " x " + std::to_string(r.kernel_columns));
            std::vector<float> by_plane(expected.size(), std::numeric_limits<float>::quiet_NaN());
            plane(s, taps.data(), stride, by_plane.data());
            std::vector<float> by_rows(expected.size(), 0.0F);
            for (std::size_t oh = 0; oh < s.rows; ++oh) {
                row(r,
                    taps.data() + oh * r.windows,
                    stride,
                    rows_under(s, oh, by_rows.data()).data());
            }
            ++folds;
            for (std::size_t i = 0; i < expected.size(); ++i) {
                ASSERT_TRUE(same_bits_or_both_nan(by_plane[i], expected[i]))
                    << "plane kernel, element " << i;
                ASSERT_TRUE(same_bits_or_both_nan(by_rows[i], expected[i]))
                    << "row kernel, element " << i;
            }
        }
    }
    if (folds == 0) {
        GTEST_SKIP() << "no vector fold on this processor";
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
