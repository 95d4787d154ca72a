// What the two batch-normalisation rows (batch_norm_training.cpp and
// batch_norm_inference.cpp) share: the normalisation tail both formulas end in,
//   centred = x - spread(mean)
//   root    = centred * spread(rsqrt(variance + epsilon) * gamma) + spread(beta)
// a statistic channel_sums(source) / count, the match they build, and one row
// of their kind with the fused kernel and the raise to StableHLO's
// batch_norm_training / batch_norm_inference.
#pragma once

#include "pattern/catalog.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace topos::detail::batch_norm {

// channel_sums(source) / count, the Div node `value`, and the nodes it covers.
struct Statistic {
    std::uint32_t value;  // the Div node
    std::uint32_t count;
    std::vector<std::uint32_t> nodes;
};

// The statistic at `index` over `source`, for a root of shape `like`.
std::optional<Statistic> statistic_of(const SpecView& spec,
                                      std::uint32_t index,
                                      std::uint32_t source,
                                      const Shape& like);

// The nodes of the normalisation tail rooted at `root`, and what it reads.
struct Normalisation {
    std::uint32_t input, gamma, beta, epsilon, mean, variance, centred;
    std::vector<std::uint32_t> nodes;
};

// The normalisation tail at `root`, if it is there.
std::optional<Normalisation> normalisation_at(const SpecView& spec, std::uint32_t root);

// Appends `more` to `nodes`.
void append(std::vector<std::uint32_t>& nodes, const std::vector<std::uint32_t>& more);

// The match of a training (or inference) normalisation: `nodes` sorted and
// made unique; inputs are the input, gamma, beta, epsilon, then the two counts
// (training) or the mean and the variance (inference).
Match match(std::uint32_t root,
            std::vector<std::uint32_t> nodes,
            std::vector<std::uint32_t> results,
            std::vector<std::uint32_t> inputs,
            const Shape& shape,
            bool training);

// The row of `kind` that matches with `matcher`, with the shared kernel and raise.
PatternRow row(PatternKind kind,
               std::optional<Match> (*matcher)(const SpecView& spec, std::uint32_t root));

}  // namespace topos::detail::batch_norm
