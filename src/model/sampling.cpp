// TokenSampler: greedy picking, and temperature, top-k and top-p sampling
// computed in double from the logits, with draws from std::mt19937_64 turned
// into [0, 1) by their top 53 bits (std::uniform_real_distribution's
// algorithm differs between standard libraries; this does not).
#include <topos/core/error.hpp>
#include <topos/model/sampling.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

namespace topos {
namespace {

const Sampling& checked(const Sampling& sampling) {
    if (!(sampling.temperature >= 0) || !std::isfinite(sampling.temperature)) {
        throw ShapeError("sampling needs a finite temperature >= 0 (0 picks greedily); got " +
                         std::to_string(sampling.temperature));
    }
    if (!(sampling.top_p > 0 && sampling.top_p <= 1)) {
        throw ShapeError("top-p sampling keeps a probability in (0, 1]; got " +
                         std::to_string(sampling.top_p));
    }
    return sampling;
}

std::int64_t most_likely(std::span<const double> logits) {
    return std::max_element(logits.begin(), logits.end()) - logits.begin();
}

}  // namespace

TokenSampler::TokenSampler(const Sampling& sampling)
    : sampling_(checked(sampling)), generator_(sampling.seed) {}

std::int64_t TokenSampler::pick(std::span<const float> logits) {
    return pick_any(logits);
}

std::int64_t TokenSampler::pick(std::span<const double> logits) {
    return pick_any(logits);
}

std::int64_t TokenSampler::pick(std::span<const bf16> logits) {
    return pick_any(logits);
}

template <class Logit>
std::int64_t TokenSampler::pick_any(std::span<const Logit> logits) {
    if (logits.empty()) {
        throw ShapeError("a token is picked from at least one logit; got none");
    }
    std::vector<double> widened(logits.size());
    for (std::size_t i = 0; i < logits.size(); ++i) {
        widened[i] = static_cast<double>(logits[i]);
        if (std::isnan(widened[i])) {
            throw ShapeError("a token cannot be picked from logits holding NaN (at id " +
                             std::to_string(i) + ")");
        }
    }
    if (sampling_.temperature == 0) {
        return most_likely(widened);
    }
    return draw(widened);
}

std::int64_t TokenSampler::draw(std::span<const double> logits) {
    // The candidates, most likely first (ties by id, so the order is total).
    std::vector<std::int64_t> order(logits.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::int64_t a, std::int64_t b) {
        return logits[static_cast<std::size_t>(a)] > logits[static_cast<std::size_t>(b)];
    });
    std::size_t kept = order.size();
    if (sampling_.top_k > 0) {
        kept = std::min(kept, sampling_.top_k);
    }
    const double top = logits[static_cast<std::size_t>(order.front())];
    std::vector<double> weights(kept);
    for (std::size_t i = 0; i < kept; ++i) {
        weights[i] =
            std::exp((logits[static_cast<std::size_t>(order[i])] - top) / sampling_.temperature);
    }
    const double total = std::accumulate(weights.begin(), weights.end(), 0.0);
    if (sampling_.top_p < 1) {
        double reached = 0;
        for (std::size_t i = 0; i < kept; ++i) {
            reached += weights[i] / total;
            if (reached >= sampling_.top_p) {
                kept = i + 1;
                break;
            }
        }
        weights.resize(kept);
    }
    const double mass = std::accumulate(weights.begin(), weights.end(), 0.0);
    const double uniform = static_cast<double>(generator_() >> 11U) * 0x1.0p-53;
    double below = 0;
    for (std::size_t i = 0; i < kept; ++i) {
        below += weights[i];
        if (uniform * mass < below) {
            return order[i];
        }
    }
    return order[kept - 1];
}

}  // namespace topos
