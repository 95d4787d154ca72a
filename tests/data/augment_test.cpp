// data::jitter_images and data::add_gaussian_noise against their definitions:
// draws taken in the documented order, an undistorted image left as it is,
// a shift matching bilinear interpolation written out here, the centre of an
// odd-sized image fixed under rotation and scaling, noise equal to the
// initialiser's tensor, and sizes that are not whole images refused.
#include <topos/core/shape.hpp>
#include <topos/data/augment.hpp>
#include <topos/model/init.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace topos::data {
namespace {

std::vector<float> counting(std::size_t count) {
    std::vector<float> values(count);
    std::iota(values.begin(), values.end(), 1.0f);
    return values;
}

TEST(JitterImages, LeavesImagesAsTheyAreWhenNothingMayMoveAndDrawsFourNumbersAnImage) {
    std::vector<float> images = counting(3 * 4 * 5);
    const std::vector<float> original = images;
    Generator generator(7);
    jitter_images<float>(images, 4, 5, AffineJitter{}, generator);
    EXPECT_EQ(images, original);
    EXPECT_EQ(generator.draws(), 3u * 4u);
}

TEST(JitterImages, AShiftResamplesBilinearlyWithZerosOutside) {
    const std::size_t height = 3;
    const std::size_t width = 4;
    std::vector<double> image = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
    Generator generator(11);
    Generator replay = generator;
    jitter_images<double>(image, height, width, AffineJitter{.largest_shift = 0.5}, generator);

    replay.unit();  // the sine, 0 here
    replay.unit();  // the scale, 1 here
    const double shift_x = (2 * replay.unit() - 1) * 0.5;
    const double shift_y = (2 * replay.unit() - 1) * 0.5;
    const auto original = [](long x, long y) {
        return x < 0 || y < 0 || x >= 4 || y >= 3 ? 0.0 : static_cast<double>(y * 4 + x + 1);
    };
    for (std::size_t y = 0; y < height; ++y) {
        for (std::size_t x = 0; x < width; ++x) {
            const double source_x = static_cast<double>(x) + shift_x;
            const double source_y = static_cast<double>(y) + shift_y;
            const auto left = static_cast<long>(std::floor(source_x));
            const auto top = static_cast<long>(std::floor(source_y));
            const double a = source_x - static_cast<double>(left);
            const double b = source_y - static_cast<double>(top);
            const double expected =
                (original(left, top) * (1 - a) + original(left + 1, top) * a) * (1 - b) +
                (original(left, top + 1) * (1 - a) + original(left + 1, top + 1) * a) * b;
            EXPECT_NEAR(image[y * width + x], expected, 1e-12) << "at " << x << ", " << y;
        }
    }
}

TEST(JitterImages, KeepsTheCentreOfAnOddSizedImageUnderRotationAndScaling) {
    std::vector<float> images = counting(2 * 5 * 7);
    const std::vector<float> original = images;
    Generator generator(3);
    jitter_images<float>(
        images, 5, 7, AffineJitter{.largest_sine = 0.3, .largest_scale = 0.2}, generator);
    const std::size_t centre = 2 * 7 + 3;
    EXPECT_EQ(images[centre], original[centre]);
    EXPECT_EQ(images[35 + centre], original[35 + centre]);
    EXPECT_NE(images, original);
}

TEST(JitterImages, RefusesValuesThatAreNotAWholeNumberOfImages) {
    std::vector<float> values(10);
    Generator generator(1);
    EXPECT_THROW(jitter_images<float>(values, 2, 3, AffineJitter{}, generator),
                 std::invalid_argument);
    EXPECT_THROW(jitter_images<float>(values, 0, 3, AffineJitter{}, generator),
                 std::invalid_argument);
    EXPECT_EQ(generator.draws(), 0u);
}

TEST(AddGaussianNoise, AddsTheNormalInitialisersTensorSeededByOneDraw) {
    std::vector<float> values = counting(12);
    const std::vector<float> original = values;
    Generator generator(5);
    Generator replay = generator;
    add_gaussian_noise<float>(values, 0.25, generator);
    EXPECT_EQ(generator.draws(), 1u);
    const Tensor<float> noise = init::normal(replay.bits(), 0.25).make<float>(Shape{12});
    for (std::size_t i = 0; i < values.size(); ++i) {
        EXPECT_EQ(values[i], original[i] + noise.data()[i]);
    }
}

}  // namespace
}  // namespace topos::data
