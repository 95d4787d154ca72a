// Losses recorded over values, as torch.nn.functional writes them. Each checks
// its operands' shapes (and that labels hold indices) before it records, so a
// mistake is reported in the loss's own terms, and reduces its per-element or
// per-row losses as `reduction` says: their mean (the default), their sum, or
// none (the losses themselves).
#pragma once

#include <topos/graph/value.hpp>

#include <cstdint>

namespace topos {

// What a loss returns: the mean of its per-element or per-row losses, their sum, or them.
enum class Reduction : std::uint8_t {
    Mean,
    Sum,
    None,
};

// The options of nll, binary_cross_entropy_with_logits and mse.
struct LossOptions {
    Reduction reduction = Reduction::Mean;
};

// The options of cross_entropy.
struct CrossEntropyOptions {
    // s in [0, 1]: each row's target puts 1 - s + s / classes on its label and
    // s / classes on every other class (PyTorch's label_smoothing).
    double label_smoothing = 0;
    Reduction reduction = Reduction::Mean;
};

// The options of huber.
struct HuberOptions {
    double delta = 1.0;  // where the quadratic turns linear; positive
    Reduction reduction = Reduction::Mean;
};

// -log softmax(logits)[label] per row, logits [batch, classes] and labels
// [batch] of indices (tape.indices), the target smoothed by `options`.
template <Element T>
Value<T> cross_entropy(const Value<T>& logits, const Value<T>& labels);
template <Element T>
Value<T> cross_entropy(const Value<T>& logits,
                       const Value<T>& labels,
                       const CrossEntropyOptions& options);

// -log_probabilities[label] per row: the negative log-likelihood of labels
// [batch] under log-probabilities [batch, classes] (a log_softmax, say).
template <Element T>
Value<T> nll(const Value<T>& log_probabilities,
             const Value<T>& labels,
             const LossOptions& options = {});

// softplus(x) - x y per element: the binary cross-entropy of sigmoid(logits)
// against targets in [0, 1] of the logits' shape, without forming the sigmoid,
// so that large logits neither overflow nor lose the loss. Its derivative is
// sigmoid(x) - y.
template <Element T>
Value<T> binary_cross_entropy_with_logits(const Value<T>& logits,
                                          const Value<T>& targets,
                                          const LossOptions& options = {});

// (a - b)^2 per element, a and b of one shape.
template <Element T>
Value<T> mse(const Value<T>& a, const Value<T>& b);
template <Element T>
Value<T> mse(const Value<T>& a, const Value<T>& b, const LossOptions& options);

// Per element, with d = a - b: d^2 / 2 where |d| <= delta, delta (|d| - delta / 2)
// beyond (torch.nn.functional.huber_loss).
template <Element T>
Value<T> huber(const Value<T>& a, const Value<T>& b, const HuberOptions& options = {});

}  // namespace topos
