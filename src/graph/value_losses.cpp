// The losses recorded over values: cross_entropy of logits against integer
// labels (optionally label-smoothed) and mse.
#include "graph/one_tape.hpp"
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/value.hpp>

#include <string>

namespace topos {
namespace {

template <Element T>
void check_logits_are_a_batch_of_rows(const Value<T>& logits) {
    if (logits.shape().rank() != 2) {
        throw ShapeError("cross_entropy of node " + std::to_string(logits.index()) + ' ' +
                         logits.shape().str() + ": the logits must be [batch, classes]");
    }
}

}  // namespace

template <Element T>
Value<T> cross_entropy(const Value<T>& given_logits, const Value<T>& given_labels) {
    const auto [logits, labels] =
        detail::on_one_tape("cross_entropy", given_logits, given_labels);
    check_logits_are_a_batch_of_rows(logits);
    const detail::RecordScope scope(logits);
    const Value<T> log_probabilities = logits.log_softmax(1);
    const Value<T> chosen = labels.one_hot(logits.shape()[1]);
    return -(log_probabilities * chosen).sum(1).mean();
}

template <Element T>
Value<T> cross_entropy(const Value<T>& given_logits,
                       const Value<T>& given_labels,
                       const CrossEntropyOptions& options) {
    const auto [logits, labels] =
        detail::on_one_tape("cross_entropy", given_logits, given_labels);
    const double smoothing = options.label_smoothing;
    if (!(smoothing >= 0 && smoothing <= 1)) {
        throw Error("cross_entropy's label smoothing is a probability in [0, 1]; got " +
                    std::to_string(smoothing));
    }
    if (smoothing == 0) {
        return cross_entropy(logits, labels);
    }
    check_logits_are_a_batch_of_rows(logits);
    const detail::RecordScope scope(logits);
    const std::size_t classes = logits.shape()[1];
    const Value<T> log_probabilities = logits.log_softmax(1);
    const Value<T> target = labels.one_hot(classes) * static_cast<T>(1 - smoothing) +
                            static_cast<T>(smoothing / static_cast<double>(classes));
    return -(log_probabilities * target).sum(1).mean();
}

template <Element T>
Value<T> mse(const Value<T>& given_a, const Value<T>& given_b) {
    const auto [a, b] = detail::on_one_tape("mse", given_a, given_b);
    const detail::RecordScope scope(a);
    return (a - b).square().mean();
}

#define TOPOS_INSTANTIATE(T)                                                                       \
    template Value<T> cross_entropy(const Value<T>&, const Value<T>&);                             \
    template Value<T> cross_entropy(const Value<T>&, const Value<T>&, const CrossEntropyOptions&); \
    template Value<T> mse(const Value<T>&, const Value<T>&);
TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
#undef TOPOS_INSTANTIATE

}  // namespace topos
