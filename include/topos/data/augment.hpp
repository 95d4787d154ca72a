// Augmentation of training images: random small affine distortions (a
// rotation, a scaling and a sub-pixel shift about the image's centre,
// resampled bilinearly with zeros outside, as torch's affine_grid and
// grid_sample do) and Gaussian pixel noise. Every draw comes from a
// data::Generator, and the rotation is drawn as its sine with the cosine taken
// by sqrt, so an augmented batch is the same bits on every platform, from C++
// and from Python.
#pragma once

#include <topos/data/generator.hpp>

#include <cstddef>
#include <span>

namespace topos::data {

// How far a distortion may go; each is drawn uniform in [-largest, largest).
struct AffineJitter {
    double largest_sine = 0;   // of the rotation angle (0.14: about 8 degrees)
    double largest_scale = 0;  // relative: 0.08 scales by 1 / 1.08 .. 1 / 0.92
    double largest_shift = 0;  // in pixels, along each axis
};

// Distorts each image of `images` (images of height x width values one after
// another, row-major) in place, four draws from `generator` per image: the
// sine, the scale, the shift along x, the shift along y. Throws
// std::invalid_argument when the size is not a whole number of images.
template <class T>
void jitter_images(std::span<T> images,
                   std::size_t height,
                   std::size_t width,
                   const AffineJitter& jitter,
                   Generator& generator);

// Adds Gaussian noise of standard deviation `stddev` to every value: one draw
// from `generator` seeds an init::normal stream, whose tensor of
// values.size() elements is added in order.
template <class T>
void add_gaussian_noise(std::span<T> values, double stddev, Generator& generator);

}  // namespace topos::data
