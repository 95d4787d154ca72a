// The digits CNN of the gallery: two 3x3 convolutions (padding 1) of 32 and
// 64 filters, each followed by BatchNorm, ReLU and 2x2 max pooling, then a
// Linear layer to 10 logits, PyTorch's default initialisation drawn from
// `seed`. The layers live here, beside the tape they were made on, because
// training reads the BatchNorm layers after recording.
#pragma once

#include "support/classifier.hpp"
#include <topos/topos.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <ostream>

namespace gallery {

class DigitsCnn {
public:
    static constexpr std::size_t first_channels = 32;
    static constexpr std::size_t second_channels = 64;
    static constexpr std::size_t features = second_channels * 2 * 2;  // after two poolings of 8 x 8

    explicit DigitsCnn(std::uint64_t seed)
        : conv1_(tape_,
                 {.in_channels = 1, .out_channels = first_channels, .kernel = 3, .padding = 1},
                 torch_default(seed + 1, 9)),
          norm1_(tape_, first_channels),
          conv2_(tape_,
                 {.in_channels = first_channels,
                  .out_channels = second_channels,
                  .kernel = 3,
                  .padding = 1},
                 torch_default(seed + 2, first_channels * 9)),
          norm2_(tape_, second_channels),
          pool_(2),
          classify_(tape_, features, 10, torch_default(seed + 3, features)) {}

    // The training and evaluation graphs (record_classifier), sealing the tape.
    // With `products`, the convolutions and the Linear layer are recorded
    // under an Autocast to that type (mixed precision); the rest is float.
    Classifier record(const Recipe& recipe,
                      const Digits& test,
                      std::optional<topos::ElementType> products = std::nullopt) {
        const auto model = [&](const topos::Value<float>& images, auto& normalise) {
            std::optional<topos::Autocast> autocast;
            if (products) {
                autocast.emplace(*products);
            }
            const auto first = pool_.express(normalise(norm1_, conv1_.express(images)).relu());
            const auto second = pool_.express(normalise(norm2_, conv2_.express(first)).relu());
            return classify_.express(second.reshape(topos::Shape{second.shape()[0], features}));
        };
        const auto trained = topos::parameters_of(conv1_, norm1_, conv2_, norm2_, classify_);
        return record_classifier(tape_, model, trained, recipe, test);
    }

    // One line per layer, in order.
    void describe(std::ostream& out) const {
        out << conv1_.describe() << '\n'
            << norm1_.describe() << '\n'
            << pool_.describe() << '\n'
            << conv2_.describe() << '\n'
            << norm2_.describe() << '\n'
            << pool_.describe() << '\n'
            << classify_.describe() << "\n\n";
    }

private:
    topos::Tape<float> tape_;
    topos::Conv2d<float> conv1_;
    topos::BatchNorm<float> norm1_;
    topos::Conv2d<float> conv2_;
    topos::BatchNorm<float> norm2_;
    topos::MaxPool2d<float> pool_;
    topos::Linear<float> classify_;
};

// The recipe both digits CNN programs train with: batches of 50 images,
// randomly rotated, scaled and shifted a little.
inline Recipe digits_cnn_recipe() {
    return {.batch = 50,
            .as_images = true,
            .jitter = Jitter{.largest_sine = 0.14, .largest_scale = 0.08, .largest_shift = 0.5}};
}

// AdamW on a cosine schedule over 30 epochs, the batch order drawn from `seed`.
inline Schedule digits_cnn_schedule(std::uint64_t seed) {
    return {.epochs = 30, .learning_rate = 0.003, .shuffle_seed = seed};
}

}  // namespace gallery
