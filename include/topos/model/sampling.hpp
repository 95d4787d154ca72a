// How a language model's next token is picked from its logits, as Hugging
// Face's generate() does it: greedy (the most likely token) at temperature 0;
// otherwise the logits divided by the temperature, cut to the k most likely
// (top-k), then to the smallest set whose probability reaches p (top-p,
// nucleus), and one token drawn from what is left. The draws come from a
// seeded std::mt19937_64, whose sequence the C++ standard fixes, so the same
// seed picks the same tokens on every machine.
#pragma once

#include <topos/core/bf16.hpp>
#include <topos/core/tensor.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <span>

namespace topos {

// The choices of a TokenSampler.
struct Sampling {
    double temperature = 0.0;  // 0: greedy; otherwise > 0, and finite
    std::size_t top_k = 0;     // keep the k most likely tokens; 0 keeps all
    double top_p =
        1.0;  // keep the fewest most likely tokens whose probability reaches p, in (0, 1]
    std::uint64_t seed = 0;  // the generator's seed
};

// TokenSampler: picks tokens as its Sampling says, drawing from its own seeded generator.
class TokenSampler {
public:
    // Throws ShapeError for a negative or non-finite temperature and a top_p
    // outside (0, 1].
    explicit TokenSampler(const Sampling& sampling);

    // The next token of `logits` (one per vocabulary entry). Ties in greedy
    // picking go to the lowest id. Throws ShapeError for empty logits or a
    // NaN among them.
    std::int64_t pick(std::span<const float> logits);
    std::int64_t pick(std::span<const double> logits);
    std::int64_t pick(std::span<const bf16> logits);

    // The choices it was made with.
    const Sampling& sampling() const { return sampling_; }

private:
    template <class Logit>
    std::int64_t pick_any(std::span<const Logit> logits);
    std::int64_t draw(std::span<const double> logits);

    Sampling sampling_;
    std::mt19937_64 generator_;
};

}  // namespace topos
