// The maximum a LogSumExp or LogSoftmax row starts from, taken in sixteen
// stripes: on rows of every length around the stripes, with NaNs of several
// payloads, infinities and zeros of both signs put anywhere, contiguous and
// strided, it is the one-at-a-time loop's value: its bits, the last NaN's
// where the row holds one, and the same zero up to its sign.
#include "core/bit_cast.hpp"
#include "ops/log_sum_exp.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace topos {
namespace {

float one_at_a_time(const std::vector<float>& x,
                    std::size_t first,
                    std::size_t stride,
                    std::size_t count) {
    float top = -std::numeric_limits<float>::infinity();
    for (std::size_t a = 0; a < count; ++a) {
        const float term = x[first + a * stride];
        top = (term > top || term != term) ? term : top;
    }
    return top;
}

// A NaN of one of three payloads, an infinity, a zero or a number, either sign.
float special_value(std::mt19937& random) {
    const float nans[] = {detail::bit_cast<float>(std::uint32_t{0x7fc00001}),
                          detail::bit_cast<float>(std::uint32_t{0xffc00abc}),
                          std::numeric_limits<float>::quiet_NaN()};
    const float sign = random() % 2 == 0 ? 1.0F : -1.0F;
    switch (random() % 4) {
        case 0:
            return nans[random() % 3];
        case 1:
            return sign * std::numeric_limits<float>::infinity();
        case 2:
            return sign * 0.0F;
        default:
            return std::uniform_real_distribution<float>(-5.0F, 5.0F)(random);
    }
}

TEST(RowMaximum, IsTheOneAtATimeMaximumOrTheLastNaNOnEveryRow) {
    std::mt19937 random(3);
    for (int trial = 0; trial < 4000; ++trial) {
        const std::size_t count = random() % 70;
        const std::size_t stride = random() % 2 == 0 ? 1 : 3;
        const std::size_t first = random() % 4;
        std::vector<float> x(first + count * stride + 1, std::nanf(""));
        const bool specials = random() % 2 == 0;
        for (std::size_t a = 0; a < count; ++a) {
            const float value = specials && random() % 8 == 0
                                    ? special_value(random)
                                    : std::uniform_real_distribution<float>(-3.0F, 3.0F)(random);
            x[first + a * stride] = random() % 16 == 0 ? 0.0F : value;
        }
        const float expected = one_at_a_time(x, first, stride, count);
        const float got = detail::row_maximum(
            x.data(), [&](std::size_t a) { return first + a * stride; }, count);
        SCOPED_TRACE("count " + std::to_string(count) + ", stride " + std::to_string(stride));
        if (expected == 0.0F) {
            EXPECT_EQ(got, 0.0F);
        } else {
            EXPECT_EQ(detail::bit_cast<std::uint32_t>(got),
                      detail::bit_cast<std::uint32_t>(expected));
        }
    }
}

}  // namespace
}  // namespace topos
