// One-token decoding of a stack of TransformerBlocks with a key/value cache,
// recorded on the same tape as the full-context model and reading the same
// Parameter nodes: a second export of one spec. For each block the cache
// holds the keys and values of the positions seen so far, [heads, context,
// head width] each, zeros beyond them; a decode step writes the new token's
// key and value at `position` and attends to positions 0..position only.
//
// The arithmetic is the full-context graph's, row by row: a cached row is
// copied exactly (x * 1 + y * 0), a position after the token gets the lowest
// finite score (softmax weight exactly 0), so the logits agree with the
// full-context ones to rounding.
#pragma once

#include <topos/topos.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace gallery {

struct KeyValue {
    topos::Value<float> keys;    // [heads, context, head width]
    topos::Value<float> values;  // likewise
};

// Where the token sits: the one-hot write row [1, context, 1] and the visible
// positions [context] (1 up to the token's position, else 0).
struct Position {
    topos::Value<float> write;
    topos::Value<float> visible;
};

// The one-hot row of the position times the matrix whose row j is 1 up to j:
// 1 at every position up to the token's, exactly.
inline Position position_masks(topos::Tape<float>& tape,
                               const topos::Value<float>& position,
                               std::size_t context) {
    const auto up_to = tape.leaf(
        topos::Tensor<float>::generate(topos::Shape{context, context}, [&](std::span<float> out) {
            for (std::size_t j = 0; j < context; ++j) {
                for (std::size_t i = 0; i < context; ++i) {
                    out[j * context + i] = i <= j ? 1.0f : 0.0f;
                }
            }
        }));
    const auto row = position.one_hot(context);  // [1, context]
    return {row.reshape(topos::Shape{1, context, 1}),
            row.matmul(up_to).reshape(topos::Shape{context})};
}

// [1, width] -> [heads, 1, head width]
inline topos::Value<float> split_token(const topos::Value<float>& row, std::size_t heads) {
    const std::size_t width = row.shape()[1];
    return row.reshape(topos::Shape{heads, 1, width / heads});
}

// cache with `fresh` written at the position's row.
inline topos::Value<float> written(const topos::Value<float>& cache,
                                   const topos::Value<float>& fresh,
                                   const Position& at) {
    return cache * (1.0f - at.write) + fresh * at.write;
}

// The attention of one token h [1, width]; `cache` is read and `updated` set
// to the cache with this token's key and value written.
inline topos::Value<float> attend_one(const topos::CausalSelfAttention<float>& attention,
                                      const topos::Value<float>& h,
                                      const KeyValue& cache,
                                      const Position& at,
                                      KeyValue& updated) {
    const std::size_t heads = attention.heads();
    const std::size_t width = h.shape()[1];
    const auto q = split_token(attention.query().express(h), heads);
    updated.keys = written(cache.keys, split_token(attention.key().express(h), heads), at);
    updated.values = written(cache.values, split_token(attention.value().express(h), heads), at);
    const auto scale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(width / heads)));
    const auto scores = q.matmul(updated.keys.transpose()) * scale;  // [heads, 1, context]
    topos::Tape<float> tape = h.tape();
    const auto hidden = tape.leaf(std::numeric_limits<float>::lowest());
    const auto weights = topos::where(at.visible, scores, hidden).softmax(2);
    return attention.output().express(
        weights.matmul(updated.values).reshape(topos::Shape{1, width}));
}

// A TransformerBlock applied to one token, as TransformerBlock::express does.
inline topos::Value<float> block_one(const topos::TransformerBlock<float>& block,
                                     const topos::Value<float>& x,
                                     const KeyValue& cache,
                                     const Position& at,
                                     KeyValue& updated) {
    const auto attended =
        x + attend_one(block.attention(), block.norm1().express(x), cache, at, updated);
    return attended + block.mlp().express(block.norm2().express(attended));
}

}  // namespace gallery
