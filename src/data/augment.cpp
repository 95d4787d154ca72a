// data::jitter_images and data::add_gaussian_noise. The distortion's
// arithmetic is in double whatever the element type, each output rounded once.
#include <topos/data/augment.hpp>
#include <topos/model/init.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

namespace topos::data {
namespace {

// One image: its values and extents.
template <class T>
struct Image {
    std::span<const T> values;
    std::size_t height;
    std::size_t width;

    // The value at column x, row y; 0 outside the image.
    double at(long x, long y) const {
        const auto column = static_cast<std::size_t>(x);
        const auto row = static_cast<std::size_t>(y);
        if (x < 0 || y < 0 || column >= width || row >= height) {
            return 0.0;
        }
        return static_cast<double>(values[row * width + column]);
    }

    // Bilinear interpolation at (x, y), in pixels.
    double bilinear(double x, double y) const {
        const double left = std::floor(x);
        const double top = std::floor(y);
        const double right_weight = x - left;
        const double bottom_weight = y - top;
        const auto column = static_cast<long>(left);
        const auto row = static_cast<long>(top);
        const double upper =
            at(column, row) * (1 - right_weight) + at(column + 1, row) * right_weight;
        const double lower =
            at(column, row + 1) * (1 - right_weight) + at(column + 1, row + 1) * right_weight;
        return upper * (1 - bottom_weight) + lower * bottom_weight;
    }
};

// Uniform in [-largest, largest).
double symmetric(double largest, Generator& generator) {
    return (2 * generator.unit() - 1) * largest;
}

template <class T>
void jitter_image(const Image<T>& image,
                  std::span<T> out,
                  const AffineJitter& jitter,
                  Generator& generator) {
    const double sine = symmetric(jitter.largest_sine, generator);
    const double cosine = std::sqrt(1 - sine * sine);
    const double shrink = 1 / (1 + symmetric(jitter.largest_scale, generator));
    const double shift_x = symmetric(jitter.largest_shift, generator);
    const double shift_y = symmetric(jitter.largest_shift, generator);
    const double centre_x = (static_cast<double>(image.width) - 1) / 2;
    const double centre_y = (static_cast<double>(image.height) - 1) / 2;
    for (std::size_t y = 0; y < image.height; ++y) {
        for (std::size_t x = 0; x < image.width; ++x) {
            const double u = static_cast<double>(x) - centre_x;
            const double v = static_cast<double>(y) - centre_y;
            const double source_x = (cosine * u - sine * v) * shrink + centre_x + shift_x;
            const double source_y = (sine * u + cosine * v) * shrink + centre_y + shift_y;
            out[y * image.width + x] = static_cast<T>(image.bilinear(source_x, source_y));
        }
    }
}

}  // namespace

template <class T>
void jitter_images(std::span<T> images,
                   std::size_t height,
                   std::size_t width,
                   const AffineJitter& jitter,
                   Generator& generator) {
    const std::size_t pixels = height * width;
    if (pixels == 0 || images.size() % pixels != 0) {
        throw std::invalid_argument("jitter_images: " + std::to_string(images.size()) +
                                    " values are not a whole number of " + std::to_string(height) +
                                    "x" + std::to_string(width) + " images");
    }
    std::vector<T> original(pixels);
    for (std::size_t first = 0; first < images.size(); first += pixels) {
        const std::span<T> image = images.subspan(first, pixels);
        std::copy(image.begin(), image.end(), original.begin());
        jitter_image(Image<T>{original, height, width}, image, jitter, generator);
    }
}

template <class T>
void add_gaussian_noise(std::span<T> values, double stddev, Generator& generator) {
    const Tensor<T> noise = init::normal(generator.bits(), stddev).make<T>(Shape{values.size()});
    std::transform(
        values.begin(), values.end(), noise.data().begin(), values.begin(), std::plus<>());
}

template void jitter_images<float>(
    std::span<float>, std::size_t, std::size_t, const AffineJitter&, Generator&);
template void jitter_images<double>(
    std::span<double>, std::size_t, std::size_t, const AffineJitter&, Generator&);
template void add_gaussian_noise<float>(std::span<float>, double, Generator&);
template void add_gaussian_noise<double>(std::span<double>, double, Generator&);

}  // namespace topos::data
