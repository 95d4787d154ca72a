// CausalSelfAttention<T>: multi-head self-attention over a sequence in which
// position t attends only to positions 0..t. For x of shape
// [batch, sequence, width] and `heads` heads of size d = width / heads:
//   q, k, v = x Wq + bq, x Wk + bk, x Wv + bv           (each [batch, sequence, width])
//   scores  = q_h k_h^T / sqrt(d), per head              ([batch, heads, sequence, sequence])
//   weights = softmax over the last axis, with every score of a later position
//             replaced by the lowest finite number first (a Select node)
//   y       = concat_h(weights_h v_h) Wo + bo            ([batch, sequence, width])
// Recorded from MatMul, Reshape, Permute, Select and the softmax of the catalog.
#pragma once

#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/linear.hpp>
#include <topos/model/named.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

template <Element T>
class CausalSelfAttention {
public:
    // Four [width, width] projections drawn in turn from `weight_init` (query,
    // key, value, output), zero biases. Throws
    // ShapeError unless `heads` is at least 1 and divides `width`.
    template <class Initialiser>
    CausalSelfAttention(Tape<T>& tape,
                        std::size_t width,
                        std::size_t heads,
                        Initialiser&& weight_init)
        : width_(checked_width(width, heads)),
          heads_(heads),
          query_(tape, width, width, weight_init),
          key_(tape, width, width, weight_init),
          value_(tape, width, width, weight_init),
          output_(tape, width, width, weight_init) {}

    // x: [batch, sequence, width] (ShapeError otherwise).
    Value<T> express(const Value<T>& x) const;

    // Query, key, value and output projections, weight then bias each.
    std::vector<Value<T>> parameters() const;

    // "query.weight", "query.bias", then key, value and output likewise.
    std::vector<NamedParameter> named_parameters() const;

    // The number of heads.
    std::size_t heads() const { return heads_; }

    // The query projection, [width, width].
    const Linear<T>& query() const { return query_; }

    // The key projection, [width, width].
    const Linear<T>& key() const { return key_; }

    // The value projection, [width, width].
    const Linear<T>& value() const { return value_; }

    // The output projection, [width, width].
    const Linear<T>& output() const { return output_; }

    // "CausalSelfAttention(width w, h heads of d)", then a line per projection.
    std::string describe() const;

private:
    static std::size_t checked_width(std::size_t width, std::size_t heads);
    Value<T> split_heads(const Value<T>& projected) const;
    Value<T> merge_heads(const Value<T>& per_head) const;
    Value<T> causal_weights(const Value<T>& scores) const;

    std::size_t width_;
    std::size_t heads_;
    Linear<T> query_;
    Linear<T> key_;
    Linear<T> value_;
    Linear<T> output_;
};

extern template class CausalSelfAttention<float>;
extern template class CausalSelfAttention<double>;
extern template class CausalSelfAttention<bf16>;

}  // namespace topos
