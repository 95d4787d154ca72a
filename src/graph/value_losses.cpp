// The losses recorded over values (include/topos/graph/losses.hpp). Every
// check runs before the first node is recorded, and names the loss, its
// operands and the fix.
#include "core/arithmetic.hpp"
#include "graph/one_tape.hpp"
#include "graph/record.hpp"
#include "graph/value_helpers.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/losses.hpp>
#include <topos/graph/value.hpp>

#include <cmath>
#include <string>

namespace topos {
namespace {

template <Element T>
std::string node_text(const Value<T>& value) {
    return "node " + std::to_string(value.index()) + ' ' + value.shape().str();
}

template <Element T>
bool holds_indices(const Value<T>& value) {
    const auto& state = *detail::GraphAccess::state(value);
    return state.spec.nodes[value.index()].dtype() == DType::Index;
}

// Scores [batch, classes] and labels [batch] of indices.
template <Element T>
void check_rows_and_labels(const char* loss,
                           const char* scores_name,
                           const Value<T>& scores,
                           const Value<T>& labels) {
    const std::string call = std::string(loss) + " of " + node_text(scores) + " (the " +
                             scores_name + "), " + node_text(labels) + " (the labels): ";
    const Shape rows = scores.shape();
    if (rows.rank() != 2) {
        throw ShapeError(call + "the " + scores_name + " must be [batch, classes]");
    }
    if (!(labels.shape() == Shape{rows[0]})) {
        throw ShapeError(call + "the labels must be [" + std::to_string(rows[0]) +
                         "], one per row of the " + scores_name);
    }
    if (!holds_indices(labels)) {
        throw ShapeError(call +
                         "the labels must hold indices: record them with "
                         "tape.indices(...), not tape.input(...)");
    }
}

template <Element T>
void check_same_shape(const char* loss, const Value<T>& a, const Value<T>& b) {
    if (!(a.shape() == b.shape())) {
        throw ShapeError(std::string(loss) + " of " + node_text(a) + ", " + node_text(b) +
                         ": both operands must have one shape (broadcast one explicitly with "
                         "broadcast_to if that is meant)");
    }
}

template <Element T>
Value<T> reduced(const Value<T>& losses, Reduction reduction) {
    switch (reduction) {
        case Reduction::Sum:
            return losses.sum();
        case Reduction::None:
            return losses;
        case Reduction::Mean:
            break;
    }
    return losses.mean();
}

// -sum_c target[c] * log_probabilities[c] per row, reduced; the negation comes
// last so that the mean of cross_entropy is recorded as it always was.
template <Element T>
Value<T> negative_rows(const Value<T>& picked, Reduction reduction) {
    return -reduced(picked.sum(1), reduction);
}

}  // namespace

template <Element T>
Value<T> cross_entropy(const Value<T>& logits, const Value<T>& labels) {
    return cross_entropy(logits, labels, CrossEntropyOptions{});
}

template <Element T>
Value<T> cross_entropy(const Value<T>& given_logits,
                       const Value<T>& given_labels,
                       const CrossEntropyOptions& options) {
    const double smoothing = options.label_smoothing;
    if (!(smoothing >= 0 && smoothing <= 1)) {
        throw Error("cross_entropy's label smoothing is a probability in [0, 1]; got " +
                    std::to_string(smoothing));
    }
    const auto [logits, labels] = detail::on_one_tape("cross_entropy", given_logits, given_labels);
    check_rows_and_labels("cross_entropy", "logits", logits, labels);
    const detail::RecordScope scope(logits);
    const std::size_t classes = logits.shape()[1];
    const Value<T> log_probabilities = logits.log_softmax(1);
    if (smoothing == 0) {
        return negative_rows(log_probabilities * labels.one_hot(classes), options.reduction);
    }
    const Value<T> target = labels.one_hot(classes) * static_cast<T>(1 - smoothing) +
                            static_cast<T>(smoothing / static_cast<double>(classes));
    return negative_rows(log_probabilities * target, options.reduction);
}

template <Element T>
Value<T> nll(const Value<T>& given_log_probabilities,
             const Value<T>& given_labels,
             const LossOptions& options) {
    const auto [log_probabilities, labels] =
        detail::on_one_tape("nll", given_log_probabilities, given_labels);
    check_rows_and_labels("nll", "log-probabilities", log_probabilities, labels);
    const detail::RecordScope scope(log_probabilities);
    return negative_rows(log_probabilities * labels.one_hot(log_probabilities.shape()[1]),
                         options.reduction);
}

template <Element T>
Value<T> binary_cross_entropy_with_logits(const Value<T>& given_logits,
                                          const Value<T>& given_targets,
                                          const LossOptions& options) {
    const auto [logits, targets] =
        detail::on_one_tape("binary_cross_entropy_with_logits", given_logits, given_targets);
    check_same_shape("binary_cross_entropy_with_logits", logits, targets);
    const detail::RecordScope scope(logits);
    return reduced(logits.softplus() - logits * targets, options.reduction);
}

template <Element T>
Value<T> mse(const Value<T>& a, const Value<T>& b) {
    return mse(a, b, LossOptions{});
}

template <Element T>
Value<T> mse(const Value<T>& given_a, const Value<T>& given_b, const LossOptions& options) {
    const auto [a, b] = detail::on_one_tape("mse", given_a, given_b);
    check_same_shape("mse", a, b);
    const detail::RecordScope scope(a);
    return reduced((a - b).square(), options.reduction);
}

template <Element T>
Value<T> huber(const Value<T>& given_a, const Value<T>& given_b, const HuberOptions& options) {
    if (!(options.delta > 0) || !std::isfinite(options.delta)) {
        throw Error("huber's delta must be positive and finite; got " +
                    std::to_string(options.delta));
    }
    const auto [a, b] = detail::on_one_tape("huber", given_a, given_b);
    check_same_shape("huber", a, b);
    const detail::RecordScope scope(a);
    using Wide = detail::Arithmetic<T>;
    const T delta = static_cast<T>(options.delta);
    const T half_delta = static_cast<T>(detail::widen(delta) * Wide{0.5});
    const Value<T> difference = a - b;
    const Value<T> size = difference.abs();
    const Value<T> quadratic = difference.square() * T{0.5};
    const Value<T> linear = (size - half_delta) * delta;
    return reduced(
        where(size.less_equal(detail::constant(size, Tensor<T>(delta))), quadratic, linear),
        options.reduction);
}

#define TOPOS_INSTANTIATE(T)                                                                       \
    template Value<T> cross_entropy(const Value<T>&, const Value<T>&);                             \
    template Value<T> cross_entropy(const Value<T>&, const Value<T>&, const CrossEntropyOptions&); \
    template Value<T> nll(const Value<T>&, const Value<T>&, const LossOptions&);                   \
    template Value<T> binary_cross_entropy_with_logits(                                            \
        const Value<T>&, const Value<T>&, const LossOptions&);                                     \
    template Value<T> mse(const Value<T>&, const Value<T>&);                                       \
    template Value<T> mse(const Value<T>&, const Value<T>&, const LossOptions&);                   \
    template Value<T> huber(const Value<T>&, const Value<T>&, const HuberOptions&);

TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
TOPOS_INSTANTIATE(bf16)

#undef TOPOS_INSTANTIATE

}  // namespace topos
