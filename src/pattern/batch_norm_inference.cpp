// BatchNormInference: batch normalisation by given statistics (running means
// and variances), as batch_norm_inference records it; any normalisation tail
// the training row does not take.
#include "pattern/batch_norm.hpp"

namespace topos::detail {
namespace {

// Given statistics: any mean and variance (the catalog tries the training
// row first, so this is what a normalisation without its own statistics is).
std::optional<Match> match_inference(const SpecView& spec, std::uint32_t root) {
    std::optional<batch_norm::Normalisation> n = batch_norm::normalisation_at(spec, root);
    if (!n) {
        return std::nullopt;
    }
    std::vector<std::uint32_t> nodes = n->nodes;
    nodes.push_back(n->centred);
    return batch_norm::match(root,
                             std::move(nodes),
                             {root},
                             {n->input, n->gamma, n->beta, n->epsilon, n->mean, n->variance},
                             spec[root].shape(),
                             false);
}

}  // namespace

PatternRow batch_norm_inference_row() {
    return batch_norm::row(PatternKind::BatchNormInference, match_inference);
}

}  // namespace topos::detail
