// The digits data set (data/digits.csv): 8x8 images of integers 0..16 and
// their labels 0..9. Pixels are scaled to [0, 1]; the split is fixed: the first
// 1,500 rows train, the last 297 test.
#pragma once

#include "support/data_path.hpp"
#include <topos/core/tensor.hpp>
#include <topos/data/csv.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace gallery {

inline constexpr std::size_t pixels_per_digit = 64;
inline constexpr std::size_t digit_classes = 10;

struct Digits {
    std::vector<float> pixels;  // count * 64, row-major
    std::vector<float> labels;  // count, as indices

    std::size_t count() const { return labels.size(); }
};

inline Digits read_digits(std::size_t first_row, std::size_t rows) {
    const topos::Tensor<float> table =
        topos::data::read_csv<float>(data_path("digits.csv")).narrow(0, first_row, rows);
    const topos::Tensor<float> pixels =
        table.narrow(1, 0, pixels_per_digit) / topos::Tensor<float>(16.0f);
    return {pixels.to_vector(), table.select(1, pixels_per_digit).to_vector()};
}

inline Digits training_digits() {
    return read_digits(0, 1500);
}

inline Digits test_digits() {
    return read_digits(1500, 297);
}

// The digits at `order[first .. first + size)`: images shaped `shape` (whose
// elements are size * 64, e.g. [size, 64] or [size, 1, 8, 8]) and labels [size].
struct Batch {
    topos::Tensor<float> images;
    topos::Tensor<float> labels;
};

inline Batch batch_of(const Digits& digits,
                      const std::vector<std::size_t>& order,
                      std::size_t first,
                      const topos::Shape& shape) {
    const std::size_t size = shape[0];
    std::vector<float> images;
    std::vector<float> labels;
    images.reserve(size * pixels_per_digit);
    for (std::size_t i = first; i < first + size; ++i) {
        const std::size_t row = order[i];
        const auto* pixels = digits.pixels.data() + row * pixels_per_digit;
        images.insert(images.end(), pixels, pixels + pixels_per_digit);
        labels.push_back(digits.labels[row]);
    }
    return {topos::Tensor<float>(shape, images), topos::Tensor<float>(topos::Shape{size}, labels)};
}

// The share of rows whose largest logit is at their label.
inline double accuracy(const topos::Tensor<float>& logits, const std::vector<float>& labels) {
    const std::size_t classes = logits.shape()[1];
    std::size_t correct = 0;
    for (std::size_t row = 0; row < labels.size(); ++row) {
        const auto scores = logits.data().subspan(row * classes, classes);
        std::size_t best = 0;
        for (std::size_t c = 1; c < classes; ++c) {
            best = scores[c] > scores[best] ? c : best;
        }
        correct += static_cast<float>(best) == labels[row] ? 1 : 0;
    }
    return static_cast<double>(correct) / static_cast<double>(labels.size());
}

}  // namespace gallery
