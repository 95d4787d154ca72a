// Random small affine distortions of an 8x8 digit: a rotation, a scaling and
// a sub-pixel shift about the image's centre, resampled bilinearly with zeros
// outside (what torch's affine_grid and grid_sample do). The test rows are
// other people's handwriting, slanted, sized and placed differently; jittered
// copies of the training digits cover some of that variety.
//
// The rotation is drawn as its sine, the cosine taken with sqrt: both are
// exact IEEE operations, so the copies are the same bits on every platform.
#pragma once

#include "support/digits.hpp"
#include <topos/data/generator.hpp>

#include <cmath>
#include <cstddef>
#include <span>

namespace gallery {

struct Jitter {
    double largest_sine;   // of the rotation angle (0.14: about 8 degrees)
    double largest_scale;  // relative: 0.08 scales by 0.92 .. 1.08
    double largest_shift;  // in pixels, along each axis
};

// The pixel at (x, y) of an 8x8 image, 0 outside it.
inline float pixel_at(std::span<const float> image, long x, long y) {
    const bool inside = x >= 0 && x < 8 && y >= 0 && y < 8;
    return inside ? image[static_cast<std::size_t>(y * 8 + x)] : 0.0f;
}

inline float bilinear(std::span<const float> image, double x, double y) {
    const double left = std::floor(x);
    const double top = std::floor(y);
    const double right_weight = x - left;
    const double bottom_weight = y - top;
    const auto column = static_cast<long>(left);
    const auto row = static_cast<long>(top);
    const double upper = pixel_at(image, column, row) * (1 - right_weight) +
                         pixel_at(image, column + 1, row) * right_weight;
    const double lower = pixel_at(image, column, row + 1) * (1 - right_weight) +
                         pixel_at(image, column + 1, row + 1) * right_weight;
    return static_cast<float>(upper * (1 - bottom_weight) + lower * bottom_weight);
}

// Uniform in [-largest, largest).
inline double symmetric(double largest, topos::data::Generator& generator) {
    return (2 * generator.unit() - 1) * largest;
}

// Writes a jittered copy of `image` (64 pixels) to `out`.
inline void jitter_digit(std::span<const float> image,
                         std::span<float> out,
                         const Jitter& jitter,
                         topos::data::Generator& generator) {
    const double sine = symmetric(jitter.largest_sine, generator);
    const double cosine = std::sqrt(1 - sine * sine);
    const double shrink = 1 / (1 + symmetric(jitter.largest_scale, generator));
    const double shift_x = symmetric(jitter.largest_shift, generator);
    const double shift_y = symmetric(jitter.largest_shift, generator);
    constexpr double centre = 3.5;
    for (std::size_t y = 0; y < 8; ++y) {
        for (std::size_t x = 0; x < 8; ++x) {
            const double u = static_cast<double>(x) - centre;
            const double v = static_cast<double>(y) - centre;
            const double source_x = (cosine * u - sine * v) * shrink + centre + shift_x;
            const double source_y = (sine * u + cosine * v) * shrink + centre + shift_y;
            out[y * 8 + x] = bilinear(image, source_x, source_y);
        }
    }
}

// Jitters every digit of `images` (count * 64 pixels) in place.
inline void jitter_digits(std::span<float> images,
                          const Jitter& jitter,
                          topos::data::Generator& generator) {
    for (std::size_t first = 0; first < images.size(); first += pixels_per_digit) {
        const auto digit = images.subspan(first, pixels_per_digit);
        float original[pixels_per_digit];
        std::copy(digit.begin(), digit.end(), original);
        jitter_digit(original, digit, jitter, generator);
    }
}

}  // namespace gallery
