// GroupedQueryAttention<T>: Llama's self-attention. For x [batch, sequence,
// width], `heads` query heads of width d = width / heads share
// `key_value_heads` key and value heads in groups (query head h reads key and
// value head h / (heads / key_value_heads)):
//   q, k, v = x Wq, x Wk, x Wv                  (no biases; k and v key_value_heads * d wide)
//   q, k    = rotary(q), rotary(k)              (RotaryEmbedding, by the positions' tables)
//   scores  = q_h k_g^T / sqrt(d)               (each query over the keys it may see)
//   y       = concat_h(softmax(scores) v_g) Wo
// key_value_heads == heads is multi-head attention, key_value_heads == 1
// multi-query attention. The query heads of a group are stacked into one
// product with their shared keys, so keys and values are never repeated.
#pragma once

#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/linear.hpp>
#include <topos/model/named.hpp>
#include <topos/model/rotary.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace topos {

// Where the queries of a sequence sit: the rotary tables of their positions
// (cos and sin, [queries, head width]) and which keys each may attend
// (allowed, [queries, keys]: 1 where it may, 0 where it may not).
template <Element T>
struct AttentionPositions {
    Value<T> cos;
    Value<T> sin;
    Value<T> allowed;
};

// Positions 0 .. count - 1 attending causally (each to itself and the ones
// before), recorded as leaves of `tape`.
template <Element T>
AttentionPositions<T> causal_positions(Tape<T>& tape,
                                       const RotaryEmbedding& rotary,
                                       std::size_t count);

// The keys and values of every position a sequence has seen, up to a
// context: each [batch, key_value_heads, context, head width], zeros past the
// positions written.
template <Element T>
struct KeyValueCache {
    Value<T> keys;
    Value<T> values;
};

// Where a step's tokens sit in a cache of `context` positions: their rotary
// tables (cos and sin, [tokens, head width]), the keys each may attend
// (allowed, [tokens, context]: 1 up to its own position), where they are
// written (placement, [context, tokens]: 1 at row p + i, column i) and which
// rows keep what the cache held (kept, [context, 1]: 0 at the rows written).
template <Element T>
struct CachedPositions {
    Value<T> cos;
    Value<T> sin;
    Value<T> allowed;
    Value<T> placement;
    Value<T> kept;
};

// What a run feeds a CachedPositions, as tensors.
template <Element T>
struct CachedPositionTensors {
    Tensor<T> cos;
    Tensor<T> sin;
    Tensor<T> allowed;
    Tensor<T> placement;
    Tensor<T> kept;
};

// The tensors of a CachedPositions for tokens at positions first .. first +
// count - 1 of a cache of `context` positions (ShapeError past the context).
template <Element T>
CachedPositionTensors<T> cached_position_tensors(const RotaryEmbedding& rotary,
                                                 std::size_t first,
                                                 std::size_t count,
                                                 std::size_t context);

// Rewrites `tensors` (made for `count` tokens of a cache of `context`
// positions) for the tokens at first .. first + count - 1, reading their cos
// and sin rows from `context_tables` (the tables of positions 0 .. context -
// 1). A buffer no other tensor shares is overwritten in place, so a run that
// feeds the same tensors at every step allocates nothing. ShapeError past the
// context or for tensors or tables of other shapes.
template <Element T>
void rewrite_cached_positions(CachedPositionTensors<T>& tensors,
                              const RotaryTables<T>& context_tables,
                              std::size_t first,
                              std::size_t count,
                              std::size_t context);

// The sizes of a grouped-query attention.
struct AttentionHeads {
    std::size_t width = 0;            // of the input and the output
    std::size_t heads = 0;            // query heads, each width / heads wide
    std::size_t key_value_heads = 0;  // divides heads
    double rope_theta = 10000.0;      // RotaryEmbedding's base
};

template <Element T>
class GroupedQueryAttention {
public:
    // Query, key, value and output projections drawn in turn from
    // `weight_init`, without biases. Throws ShapeError unless heads divides
    // width into even head widths and key_value_heads divides heads.
    template <class Initialiser>
    GroupedQueryAttention(Tape<T>& tape, const AttentionHeads& sizes, Initialiser&& weight_init)
        : sizes_(checked(sizes)),
          rotary_(sizes.width / sizes.heads, sizes.rope_theta),
          query_(tape, sizes.width, sizes.width, weight_init, Bias::None),
          key_(tape, sizes.width, key_value_width(sizes), weight_init, Bias::None),
          value_(tape, sizes.width, key_value_width(sizes), weight_init, Bias::None),
          output_(tape, sizes.width, sizes.width, weight_init, Bias::None) {}

    // x [batch, sequence, width] at `positions` (cos and sin [sequence, head
    // width], allowed [sequence, sequence]). ShapeError for other shapes.
    Value<T> express(const Value<T>& x, const AttentionPositions<T>& positions) const;

    // x at positions 0 .. sequence - 1, causally.
    Value<T> express(const Value<T>& x) const;

    // x [batch, tokens, width] at `positions` of `cache`: the tokens' keys and
    // values are written into the cache (the result is set in `updated`) and
    // each token attends to the cache's keys up to its own position. A
    // prefill of tokens 0..n-1 then steps of one token give, position by
    // position, the bits of express(x) over the whole sequence: a written row
    // is 1 * key plus zeros and a kept row cache * 1 plus zeros, exactly, and a
    // key past a token's position has the lowest finite score, so its weight is 0.
    Value<T> express(const Value<T>& x,
                     const CachedPositions<T>& positions,
                     const KeyValueCache<T>& cache,
                     KeyValueCache<T>& updated) const;

    // The query, key, value and output weights.
    std::vector<Value<T>> parameters() const;

    // "q_proj.weight", "k_proj.weight", "v_proj.weight", "o_proj.weight", as
    // Hugging Face's LlamaAttention names them.
    std::vector<NamedParameter> named_parameters() const;

    // The sizes it was built with.
    const AttentionHeads& sizes() const { return sizes_; }

    // Its rotary embedding.
    const RotaryEmbedding& rotary() const { return rotary_; }

    // The query projection, [width, width].
    const Linear<T>& query() const { return query_; }

    // The key projection, [width, key_value_heads * head width].
    const Linear<T>& key() const { return key_; }

    // The value projection, [width, key_value_heads * head width].
    const Linear<T>& value() const { return value_; }

    // The output projection, [width, width].
    const Linear<T>& output() const { return output_; }

    // "GroupedQueryAttention(width w, h heads of d, g key/value heads, theta t)",
    // then a line per projection.
    std::string describe() const;

private:
    static const AttentionHeads& checked(const AttentionHeads& sizes);

    static std::size_t key_value_width(const AttentionHeads& sizes) {
        return sizes.width / sizes.heads * sizes.key_value_heads;
    }

    struct Projected {
        Value<T> queries;  // [batch, heads, tokens, d], turned
        Value<T> keys;     // [batch, key_value_heads, tokens, d], turned
        Value<T> values;   // [batch, key_value_heads, tokens, d]
    };

    Value<T> split_heads(const Value<T>& projected, std::size_t heads) const;
    Projected project(const Value<T>& x, const Value<T>& cos, const Value<T>& sin) const;
    Value<T> attend(const Value<T>& q,
                    const Value<T>& keys,
                    const Value<T>& values,
                    const Value<T>& allowed) const;
    void check_input(const Value<T>& x, const Value<T>& allowed, std::size_t keys) const;

    AttentionHeads sizes_;
    RotaryEmbedding rotary_;
    Linear<T> query_;
    Linear<T> key_;
    Linear<T> value_;
    Linear<T> output_;
};

extern template AttentionPositions<float> causal_positions(Tape<float>&,
                                                           const RotaryEmbedding&,
                                                           std::size_t);
extern template AttentionPositions<double> causal_positions(Tape<double>&,
                                                            const RotaryEmbedding&,
                                                            std::size_t);
extern template AttentionPositions<bf16> causal_positions(Tape<bf16>&,
                                                          const RotaryEmbedding&,
                                                          std::size_t);
extern template CachedPositionTensors<float> cached_position_tensors(const RotaryEmbedding&,
                                                                     std::size_t,
                                                                     std::size_t,
                                                                     std::size_t);
extern template void rewrite_cached_positions(CachedPositionTensors<float>&,
                                              const RotaryTables<float>&,
                                              std::size_t,
                                              std::size_t,
                                              std::size_t);
extern template CachedPositionTensors<double> cached_position_tensors(const RotaryEmbedding&,
                                                                      std::size_t,
                                                                      std::size_t,
                                                                      std::size_t);
extern template void rewrite_cached_positions(CachedPositionTensors<double>&,
                                              const RotaryTables<double>&,
                                              std::size_t,
                                              std::size_t,
                                              std::size_t);
extern template CachedPositionTensors<bf16> cached_position_tensors(const RotaryEmbedding&,
                                                                    std::size_t,
                                                                    std::size_t,
                                                                    std::size_t);
extern template void rewrite_cached_positions(
    CachedPositionTensors<bf16>&, const RotaryTables<bf16>&, std::size_t, std::size_t, std::size_t);
extern template class GroupedQueryAttention<float>;
extern template class GroupedQueryAttention<double>;
extern template class GroupedQueryAttention<bf16>;

}  // namespace topos
