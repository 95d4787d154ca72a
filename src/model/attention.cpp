// CausalSelfAttention: query, key and value projections split into heads,
// scores scaled by 1 / sqrt(head width), every key after its query replaced
// by the lowest finite number before the softmax (so its weight and its
// derivative are exactly 0), and the heads merged through the output
// projection.
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/attention.hpp>

#include <cmath>
#include <limits>
#include <span>
#include <sstream>

namespace topos {

template <Element T>
std::size_t CausalSelfAttention<T>::checked_width(std::size_t width, std::size_t heads) {
    if (heads == 0 || width % heads != 0) {
        throw ShapeError("causal self-attention splits the width into equal heads: " +
                         std::to_string(heads) + " heads do not divide a width of " +
                         std::to_string(width) + " (choose a divisor of the width)");
    }
    return width;
}

// [batch, sequence, width] -> [batch, heads, sequence, head width]
template <Element T>
Value<T> CausalSelfAttention<T>::split_heads(const Value<T>& projected) const {
    const Shape shape = projected.shape();
    return projected.reshape(Shape{shape[0], shape[1], heads_, width_ / heads_})
        .permute(Axes{0, 2, 1, 3});
}

// [batch, heads, sequence, head width] -> [batch, sequence, width]
template <Element T>
Value<T> CausalSelfAttention<T>::merge_heads(const Value<T>& per_head) const {
    const Shape shape = per_head.shape();
    return per_head.permute(Axes{0, 2, 1, 3}).reshape(Shape{shape[0], shape[2], width_});
}

// Softmax over keys, every key after its query replaced by the lowest finite
// number first: its weight is exactly 0, and so is its derivative.
template <Element T>
Value<T> CausalSelfAttention<T>::causal_weights(const Value<T>& scores) const {
    const std::size_t sequence = scores.shape()[3];
    Tape<T> tape = scores.tape();  // the scores' own tape, to record the mask's leaves
    const Value<T> allowed =
        tape.leaf(Tensor<T>::generate(Shape{sequence, sequence}, [&](std::span<T> out) {
            for (std::size_t query = 0; query < sequence; ++query) {
                for (std::size_t key = 0; key < sequence; ++key) {
                    out[query * sequence + key] = key <= query ? T{1} : T{0};
                }
            }
        }));
    const Value<T> hidden = tape.leaf(std::numeric_limits<T>::lowest());
    return where(allowed, scores, hidden).softmax(3);
}

template <Element T>
Value<T> CausalSelfAttention<T>::express(const Value<T>& x) const {
    const detail::RecordScope scope(x);
    const NameScope named("CausalSelfAttention");
    const Shape shape = x.shape();
    if (shape.rank() != 3 || shape[2] != width_) {
        throw ShapeError("causal self-attention of width " + std::to_string(width_) +
                         " reads [batch, sequence, " + std::to_string(width_) + "]; node " +
                         std::to_string(x.index()) + " has shape " + shape.str() +
                         " (reshape a single sequence to [1, sequence, width])");
    }
    const Value<T> q = split_heads(query_.express(x));
    const Value<T> k = split_heads(key_.express(x));
    const Value<T> v = split_heads(value_.express(x));
    const std::size_t head_width = width_ / heads_;
    const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(head_width)));
    const Value<T> scores = q.matmul(k.transpose()) * scale;
    return output_.express(merge_heads(causal_weights(scores).matmul(v)));
}

template <Element T>
std::vector<Value<T>> CausalSelfAttention<T>::parameters() const {
    std::vector<Value<T>> all;
    for (const Linear<T>* projection : {&query_, &key_, &value_, &output_}) {
        for (const Value<T>& parameter : projection->parameters()) {
            all.push_back(parameter);
        }
    }
    return all;
}

template <Element T>
std::vector<NamedParameter> CausalSelfAttention<T>::named_parameters() const {
    return topos::named_parameters(
        {{"query", query_}, {"key", key_}, {"value", value_}, {"output", output_}});
}

template <Element T>
std::string CausalSelfAttention<T>::describe() const {
    std::ostringstream out;
    out << "CausalSelfAttention(width " << width_ << ", " << heads_ << " heads of "
        << width_ / heads_ << ")\n"
        << "  query  " << query_.describe() << '\n'
        << "  key    " << key_.describe() << '\n'
        << "  value  " << value_.describe() << '\n'
        << "  output " << output_.describe();
    return out.str();
}

template class CausalSelfAttention<float>;
template class CausalSelfAttention<double>;
template class CausalSelfAttention<bf16>;

}  // namespace topos
