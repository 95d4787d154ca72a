// The batch-normalisation rows' shared parts (batch_norm.hpp): the
// normalisation tail, the statistics, and the fused kernel, which computes the
// statistics in the reductions' documented order, then normalises in one
// pass, never holding the centred or squared values; and the raise to
// StableHLO's named operations.
#include "pattern/batch_norm.hpp"

#include "ops/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

namespace topos::detail::batch_norm {
namespace {

// Batch normalisation of [N, C, ...] over every axis but axis 1. Inputs: the
// input, gamma, beta, epsilon (a [C] leaf), then for training the two count
// leaves of the means, for inference the mean and the variance. Training
// results: the output, then the mean and the variance.
struct BatchNormGeometry {
    Shape shape;
    bool training = false;
};

// Operands of a binary node with `opcode`, when `index` is one.
std::optional<std::array<std::uint32_t, 2>> binary(const SpecView& spec,
                                                   std::uint32_t index,
                                                   Opcode opcode) {
    const Node* node = spec.as(index, opcode);
    if (node == nullptr) {
        return std::nullopt;
    }
    return std::array<std::uint32_t, 2>{node->operands()[0], node->operands()[1]};
}

bool is_channel_vector(const SpecView& spec, std::uint32_t index, const Shape& like) {
    return spec[index].shape() == Shape{like[1]};
}

// The layout of [N, C, rest...]: N, C and the product of the rest.
struct Layout {
    std::size_t batch, channels, rest;
};

Layout layout_of(const Shape& shape) {
    std::size_t rest = 1;
    for (std::size_t axis = 2; axis < shape.rank(); ++axis) {
        rest *= shape[axis];
    }
    return {shape[0], shape[1], rest};
}

// out[c] = the striped sum over n of the plane sums partial[n * C + c].
template <Element T>
void reduce_over_batch(const Layout& l, const std::vector<T>& partial, T* out) {
    for (std::size_t c = 0; c < l.channels; ++c) {
        out[c] =
            striped_sum<T>(l.batch, [&](std::size_t n) { return partial[n * l.channels + c]; });
    }
}

// channel_sums of term(plane, i) over element i of plane (n, c): the Sums
// along axes rank-1 ... 2, each striped along its axis, then the striped Sum
// along axis 0. Terms are computed as the first reduction reads them, so only
// the partial sums are held.
template <Element T, class Term>
void channel_sums(const Shape& shape, Term term, T* out) {
    const Layout l = layout_of(shape);
    const std::size_t planes = l.batch * l.channels;
    if (shape.rank() == 2) {
        for (std::size_t c = 0; c < l.channels; ++c) {
            out[c] = striped_sum<T>(l.batch, [&](std::size_t n) {
                return term(n * l.channels + c, n * l.channels + c);
            });
        }
        return;
    }
    thread_local std::vector<T> partial;
    if (l.rest == 0) {
        // Planes without elements: each plane's sum is the empty sum.
        partial.assign(planes, striped_sum<T>(0, [](std::size_t) { return T{0}; }));
        reduce_over_batch(l, partial, out);
        return;
    }
    const std::size_t last = shape[shape.rank() - 1];
    partial.resize(planes * l.rest / last);
    for (std::size_t row = 0; row < partial.size(); ++row) {
        const std::size_t first = row * last;
        const std::size_t plane = first / l.rest;
        partial[row] = striped_sum<T>(last, [&](std::size_t a) { return term(plane, first + a); });
    }
    for (std::size_t axis = shape.rank() - 2; axis >= 2; --axis) {
        const std::size_t extent = shape[axis];
        const std::size_t rows = partial.size() / extent;
        for (std::size_t row = 0; row < rows; ++row) {  // in place: row <= row * extent
            const T* terms = partial.data() + row * extent;
            partial[row] = striped_sum<T>(extent, [terms](std::size_t a) { return terms[a]; });
        }
        partial.resize(rows);
    }
    reduce_over_batch(l, partial, out);
}

template <Element T>
void batch_norm_kernel(const BatchNormGeometry& geometry,
                       std::span<const T* const> inputs,
                       std::span<T* const> results) {
    const Layout l = layout_of(geometry.shape);
    const T* x = inputs[0];
    const T* gamma = inputs[1];
    const T* beta = inputs[2];
    const T* epsilon = inputs[3];
    // Per-thread scratch: a run allocates nothing per step in steady state.
    thread_local std::vector<T> mean;
    thread_local std::vector<T> variance;
    thread_local std::vector<T> scale;
    mean.resize(l.channels);
    variance.resize(l.channels);
    scale.resize(l.channels);
    const auto channel_of = [&](std::size_t plane) { return plane % l.channels; };
    if (geometry.training) {
        channel_sums<T>(
            geometry.shape, [&](std::size_t, std::size_t i) { return x[i]; }, mean.data());
        for (std::size_t c = 0; c < l.channels; ++c) {
            mean[c] = mean[c] / inputs[4][c];
        }
        channel_sums<T>(
            geometry.shape,
            [&](std::size_t plane, std::size_t i) {
                const T centred = x[i] - mean[channel_of(plane)];
                return centred * centred;
            },
            variance.data());
        for (std::size_t c = 0; c < l.channels; ++c) {
            variance[c] = variance[c] / inputs[5][c];
        }
    } else {
        std::copy(inputs[4], inputs[4] + l.channels, mean.begin());
        std::copy(inputs[5], inputs[5] + l.channels, variance.begin());
    }
    for (std::size_t c = 0; c < l.channels; ++c) {
        scale[c] = (T{1} / std::sqrt(variance[c] + epsilon[c])) * gamma[c];
    }
    T* out = results[0];
    for (std::size_t plane = 0; plane < l.batch * l.channels; ++plane) {
        const std::size_t c = channel_of(plane);
        for (std::size_t r = 0; r < l.rest; ++r) {
            const std::size_t i = plane * l.rest + r;
            const T scaled = (x[i] - mean[c]) * scale[c];
            out[i] = scaled + beta[c];
        }
    }
    if (geometry.training && results.size() == 3) {
        if (results[1] != nullptr) {
            std::copy(mean.begin(), mean.end(), results[1]);
        }
        if (results[2] != nullptr) {
            std::copy(variance.begin(), variance.end(), results[2]);
        }
    }
}

template <Element T>
void fused_kernel(const Match& match,
                  std::span<const T* const> inputs,
                  std::span<T* const> results) {
    batch_norm_kernel(match.geometry_as<BatchNormGeometry>(), inputs, results);
}

// stablehlo.batch_norm_training / batch_norm_inference compute with one
// epsilon, and training divides by the true element count per channel: a
// match whose epsilon is not one constant, or whose counts are not that
// count, is not what the named operation computes, and does not raise.
bool raises_batch_norm(const Match& match, const RaiseContext& context) {
    const auto& b = match.geometry_as<BatchNormGeometry>();
    if (!context.uniform_leaf(match.inputs[3])) {
        return false;
    }
    if (!b.training) {
        return true;
    }
    const std::size_t count = b.shape.elements() / b.shape[1];  // exact: the channel's elements
    const double per_channel = context.rounded(static_cast<double>(count));
    const auto counts_elements = [&](std::uint32_t node) {
        return context.uniform_leaf(node) == std::optional<double>(per_channel);
    };
    return counts_elements(match.inputs[4]) && counts_elements(match.inputs[5]);
}

std::vector<HloValue> raise_batch_norm(HloBuilder& build,
                                       const Match& match,
                                       const RaiseContext& context) {
    const auto& b = match.geometry_as<BatchNormGeometry>();
    const auto input = [&](std::size_t i) { return build.value_of(match.inputs[i]); };
    const auto epsilon = static_cast<float>(*context.uniform_leaf(match.inputs[3]));
    if (b.training) {
        const BatchNormResults results =
            build.batch_norm_training(input(0), input(1), input(2), epsilon);
        return {results.output, results.mean, results.variance};
    }
    return {build.batch_norm_inference(input(0), input(1), input(2), input(4), input(5), epsilon)};
}

// Epsilon and the counts become an attribute or are implied.
std::vector<std::uint32_t> batch_norm_operands(const Match& match) {
    const std::vector<std::uint32_t>& in = match.inputs;
    if (match.geometry_as<BatchNormGeometry>().training) {
        return {in[0], in[1], in[2]};
    }
    return {in[0], in[1], in[2], in[4], in[5]};
}

}  // namespace

std::optional<Statistic> statistic_of(const SpecView& spec,
                                      std::uint32_t index,
                                      std::uint32_t source,
                                      const Shape& like) {
    const auto quotient = binary(spec, index, Opcode::Div);
    if (!quotient || !is_channel_vector(spec, (*quotient)[1], like)) {
        return std::nullopt;
    }
    std::optional<ChannelSums> sums = channel_sums_of(spec, (*quotient)[0], like);
    if (!sums || sums->source != source) {
        return std::nullopt;
    }
    sums->nodes.push_back(index);
    return Statistic{index, (*quotient)[1], std::move(sums->nodes)};
}

void append(std::vector<std::uint32_t>& nodes, const std::vector<std::uint32_t>& more) {
    nodes.insert(nodes.end(), more.begin(), more.end());
}

std::optional<Normalisation> normalisation_at(const SpecView& spec, std::uint32_t root) {
    const Shape& like = spec[root].shape();
    const auto shifted = binary(spec, root, Opcode::Add);
    if (like.rank() < 2 || !shifted) {
        return std::nullopt;
    }
    const auto scaled = binary(spec, (*shifted)[0], Opcode::Mul);
    const std::optional<Spread> beta = spread_of(spec, (*shifted)[1], like);
    if (!scaled || !beta) {
        return std::nullopt;
    }
    const std::optional<Spread> scale_spread = spread_of(spec, (*scaled)[1], like);
    const auto centred = binary(spec, (*scaled)[0], Opcode::Sub);
    if (!scale_spread || !centred) {
        return std::nullopt;
    }
    const auto scale = binary(spec, scale_spread->source, Opcode::Mul);
    const std::optional<Spread> mean = spread_of(spec, (*centred)[1], like);
    if (!scale || !mean || !is_channel_vector(spec, (*scale)[1], like)) {
        return std::nullopt;
    }
    const Node* root_of = spec.as((*scale)[0], Opcode::Rsqrt);
    const auto sum = root_of ? binary(spec, root_of->operands()[0], Opcode::Add) : std::nullopt;
    if (!sum || !is_channel_vector(spec, (*sum)[0], like) ||
        !is_channel_vector(spec, (*sum)[1], like) || spec[(*centred)[0]].shape() != like) {
        return std::nullopt;
    }
    Normalisation n{(*centred)[0],
                    (*scale)[1],
                    beta->source,
                    (*sum)[1],
                    mean->source,
                    (*sum)[0],
                    (*scaled)[0],
                    {root, (*shifted)[0], (*scaled)[0]}};
    n.nodes.insert(n.nodes.end(), {scale_spread->source, (*scale)[0], root_of->operands()[0]});
    append(n.nodes, beta->nodes);
    append(n.nodes, scale_spread->nodes);
    append(n.nodes, mean->nodes);
    return n;
}

Match match(std::uint32_t root,
            std::vector<std::uint32_t> nodes,
            std::vector<std::uint32_t> results,
            std::vector<std::uint32_t> inputs,
            const Shape& shape,
            bool training) {
    std::sort(nodes.begin(), nodes.end());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    return Match{training ? PatternKind::BatchNormTraining : PatternKind::BatchNormInference,
                 root,
                 std::move(nodes),
                 std::move(results),
                 std::move(inputs),
                 BatchNormGeometry{shape, training}};
}

PatternRow row(PatternKind kind,
               std::optional<Match> (*matcher)(const SpecView& spec, std::uint32_t root)) {
    return {.kind = kind,
            .match = matcher,
            .kernel_f32 = fused_kernel<float>,
            .kernel_f64 = fused_kernel<double>,
            .raises = raises_batch_norm,
            .raise = raise_batch_norm,
            .raised_operands = batch_norm_operands};
}

}  // namespace topos::detail::batch_norm
