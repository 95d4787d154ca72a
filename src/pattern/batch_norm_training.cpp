// BatchNormTraining: batch normalisation by the batch's own statistics, as
// batch_norm_training records it: mean = channel_sums(x) / count, variance =
// channel_sums(centred^2) / count', both named results the kernel writes back
// when they are read. The catalog tries this row before the inference row.
#include "pattern/batch_norm.hpp"

namespace topos::detail {
namespace {

// The batch's own statistics: the mean and the variance as channel sums of
// the input and of the centred value squared, over counts.
std::optional<Match> match_training(const SpecView& spec, std::uint32_t root) {
    std::optional<batch_norm::Normalisation> n = batch_norm::normalisation_at(spec, root);
    if (!n) {
        return std::nullopt;
    }
    const Shape& like = spec[root].shape();
    const std::optional<batch_norm::Statistic> mean =
        batch_norm::statistic_of(spec, n->mean, n->input, like);
    if (!mean) {
        return std::nullopt;
    }
    const std::optional<ChannelSums> sums =
        spec.as(n->variance, Opcode::Div)
            ? channel_sums_of(spec, spec[n->variance].operands()[0], like)
            : std::nullopt;
    const Node* square = sums ? spec.as(sums->source, Opcode::Square) : nullptr;
    if (square == nullptr || square->operands()[0] != n->centred) {
        return std::nullopt;
    }
    std::optional<batch_norm::Statistic> variance =
        batch_norm::statistic_of(spec, n->variance, sums->source, like);
    if (!variance) {
        return std::nullopt;
    }
    variance->nodes.push_back(sums->source);
    std::vector<std::uint32_t> nodes = n->nodes;
    batch_norm::append(nodes, mean->nodes);
    batch_norm::append(nodes, variance->nodes);
    nodes.push_back(n->centred);
    return batch_norm::match(
        root,
        std::move(nodes),
        {root, mean->value, variance->value},
        {n->input, n->gamma, n->beta, n->epsilon, mean->count, variance->count},
        like,
        true);
}

}  // namespace

PatternRow batch_norm_training_row() {
    return batch_norm::row(PatternKind::BatchNormTraining, match_training);
}

}  // namespace topos::detail
