// GroupedQueryAttention: bias-free projections split into heads, queries and
// keys turned by the rotary embedding, each group's query heads stacked
// against their shared keys, every key a query may not see replaced by the
// lowest finite number before the softmax (so its weight and its derivative
// are exactly 0), and the heads merged through the output projection.
#include "core/tensor_access.hpp"
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/grouped_query_attention.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <sstream>

namespace topos {

template <Element T>
AttentionPositions<T> causal_positions(Tape<T>& tape,
                                       const RotaryEmbedding& rotary,
                                       std::size_t count) {
    RotaryTables<T> tables = rotary.tables<T>(0, count);
    const Tensor<T> allowed = Tensor<T>::generate(Shape{count, count}, [count](std::span<T> out) {
        for (std::size_t query = 0; query < count; ++query) {
            for (std::size_t key = 0; key < count; ++key) {
                out[query * count + key] = key <= query ? T{1} : T{0};
            }
        }
    });
    return {tape.leaf(std::move(tables.cos)), tape.leaf(std::move(tables.sin)), tape.leaf(allowed)};
}

template <Element T>
const AttentionHeads& GroupedQueryAttention<T>::checked(const AttentionHeads& sizes) {
    const bool heads_divide_width =
        sizes.heads != 0 && sizes.width % sizes.heads == 0 && (sizes.width / sizes.heads) % 2 == 0;
    const bool groups_divide_heads =
        sizes.key_value_heads != 0 && sizes.heads % sizes.key_value_heads == 0;
    if (!heads_divide_width || !groups_divide_heads) {
        throw ShapeError(
            "grouped-query attention splits the width into heads of an even width and the query "
            "heads into equal groups: width " +
            std::to_string(sizes.width) + ", " + std::to_string(sizes.heads) + " heads and " +
            std::to_string(sizes.key_value_heads) +
            " key/value heads do not (heads must divide the width into an even head width, and "
            "key/value heads must divide heads)");
    }
    return sizes;
}

// [batch, sequence, heads * d] -> [batch, heads, sequence, d]
template <Element T>
Value<T> GroupedQueryAttention<T>::split_heads(const Value<T>& projected, std::size_t heads) const {
    const Shape shape = projected.shape();
    return projected.reshape(Shape{shape[0], shape[1], heads, rotary_.head_width()})
        .permute(Axes{0, 2, 1, 3});
}

// x's queries, keys and values split into heads, queries and keys turned.
template <Element T>
typename GroupedQueryAttention<T>::Projected GroupedQueryAttention<T>::project(
    const Value<T>& x, const Value<T>& cos, const Value<T>& sin) const {
    const std::size_t groups = sizes_.key_value_heads;
    return {rotary_.apply(split_heads(query_.express(x), sizes_.heads), cos, sin),
            rotary_.apply(split_heads(key_.express(x), groups), cos, sin),
            split_heads(value_.express(x), groups)};
}

template <Element T>
void GroupedQueryAttention<T>::check_input(const Value<T>& x,
                                           const Value<T>& allowed,
                                           std::size_t keys) const {
    const Shape shape = x.shape();
    if (shape.rank() != 3 || shape[2] != sizes_.width) {
        throw ShapeError("grouped-query attention of width " + std::to_string(sizes_.width) +
                         " reads [batch, sequence, " + std::to_string(sizes_.width) + "]; node " +
                         std::to_string(x.index()) + " has shape " + shape.str() +
                         " (reshape a single sequence to [1, sequence, width])");
    }
    if (allowed.shape() != Shape{shape[1], keys}) {
        throw ShapeError("grouped-query attention of " + std::to_string(shape[1]) +
                         " tokens over " + std::to_string(keys) +
                         " keys needs allowed keys of shape [" + std::to_string(shape[1]) + ", " +
                         std::to_string(keys) + "]; got " + allowed.shape().str());
    }
}

template <Element T>
Value<T> GroupedQueryAttention<T>::attend(const Value<T>& q,
                                          const Value<T>& keys,
                                          const Value<T>& values,
                                          const Value<T>& allowed) const {
    const std::size_t batch = q.shape()[0];
    const std::size_t tokens = q.shape()[2];
    const std::size_t seen = keys.shape()[2];
    const std::size_t head_width = rotary_.head_width();
    const std::size_t groups = sizes_.key_value_heads;
    const std::size_t group = sizes_.heads / groups;
    // Query head h = g * group + r is row r * tokens + t of its group's stack.
    const Value<T> stacked = q.reshape(Shape{batch, groups, group * tokens, head_width});
    const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(head_width)));
    const Value<T> scores = (stacked.matmul(keys.transpose()) * scale)
                                .reshape(Shape{batch, groups, group, tokens, seen});
    Tape<T> tape = q.tape();
    const Value<T> hidden = tape.leaf(std::numeric_limits<T>::lowest());
    const Value<T> weights = where(allowed, scores, hidden)
                                 .softmax(4)
                                 .reshape(Shape{batch, groups, group * tokens, seen});
    const Value<T> merged = weights.matmul(values)
                                .reshape(Shape{batch, sizes_.heads, tokens, head_width})
                                .permute(Axes{0, 2, 1, 3})
                                .reshape(Shape{batch, tokens, sizes_.width});
    return output_.express(merged);
}

template <Element T>
Value<T> GroupedQueryAttention<T>::express(const Value<T>& x,
                                           const AttentionPositions<T>& positions) const {
    const detail::RecordScope scope(x);
    const NameScope named("GroupedQueryAttention");
    check_input(x, positions.allowed, x.shape().rank() == 3 ? x.shape()[1] : 0);
    const Projected p = project(x, positions.cos, positions.sin);
    return attend(p.queries, p.keys, p.values, positions.allowed);
}

template <Element T>
Value<T> GroupedQueryAttention<T>::express(const Value<T>& x,
                                           const CachedPositions<T>& positions,
                                           const KeyValueCache<T>& cache,
                                           KeyValueCache<T>& updated) const {
    const detail::RecordScope scope(x);
    const NameScope named("GroupedQueryAttention");
    const Shape& keys = cache.keys.shape();
    const std::size_t context = keys.rank() == 4 ? keys[2] : 0;
    check_input(x, positions.allowed, context);
    const std::size_t batch = x.shape()[0];
    const std::size_t groups = sizes_.key_value_heads;
    const Shape cache_shape{batch, groups, context, rotary_.head_width()};
    if (keys != cache_shape || cache.values.shape() != cache_shape) {
        throw ShapeError("grouped-query attention's cache holds keys and values of " +
                         cache_shape.str() + " for this batch; got keys " + keys.str() +
                         " and values " + cache.values.shape().str());
    }
    const Projected p = project(x, positions.cos, positions.sin);
    const Value<T> placement =
        positions.placement.broadcast_to(Shape{batch, groups, context, x.shape()[1]});
    updated.keys = cache.keys * positions.kept + placement.matmul(p.keys);
    updated.values = cache.values * positions.kept + placement.matmul(p.values);
    return attend(p.queries, updated.keys, updated.values, positions.allowed);
}

template <Element T>
Value<T> GroupedQueryAttention<T>::express(const Value<T>& x) const {
    const std::size_t sequence = x.shape().rank() == 3 ? x.shape()[1] : 0;
    Tape<T> tape = x.tape();
    return express(x, causal_positions(tape, rotary_, sequence));
}

template <Element T>
std::vector<Value<T>> GroupedQueryAttention<T>::parameters() const {
    return {query_.weight(), key_.weight(), value_.weight(), output_.weight()};
}

template <Element T>
std::vector<NamedParameter> GroupedQueryAttention<T>::named_parameters() const {
    return topos::named_parameters(
        {{"q_proj", query_}, {"k_proj", key_}, {"v_proj", value_}, {"o_proj", output_}});
}

template <Element T>
std::string GroupedQueryAttention<T>::describe() const {
    std::ostringstream out;
    out << "GroupedQueryAttention(width " << sizes_.width << ", " << sizes_.heads << " heads of "
        << rotary_.head_width() << ", " << sizes_.key_value_heads << " key/value heads, theta "
        << sizes_.rope_theta << ")\n"
        << "  q_proj " << query_.describe() << '\n'
        << "  k_proj " << key_.describe() << '\n'
        << "  v_proj " << value_.describe() << '\n'
        << "  o_proj " << output_.describe();
    return out.str();
}

template AttentionPositions<float> causal_positions(Tape<float>&,
                                                    const RotaryEmbedding&,
                                                    std::size_t);
template AttentionPositions<double> causal_positions(Tape<double>&,
                                                     const RotaryEmbedding&,
                                                     std::size_t);
template AttentionPositions<bf16> causal_positions(Tape<bf16>&,
                                                   const RotaryEmbedding&,
                                                   std::size_t);

namespace {

void check_cached_span(std::size_t first, std::size_t count, std::size_t context) {
    if (count == 0 || first + count > context) {
        throw ShapeError("a cache of " + std::to_string(context) +
                         " positions holds no tokens at " + std::to_string(first) + " .. " +
                         std::to_string(first + count) +
                         " (past the context: start a longer cache)");
    }
}

// Writes 1 where `one(row, column)` holds and 0 elsewhere.
template <Element T, class One>
void write_indicator(Tensor<T>& tensor, One&& one) {
    const std::span<T> out = detail::TensorAccess::writable(tensor);
    const std::size_t rows = tensor.shape()[0];
    const std::size_t columns = tensor.shape()[1];
    for (std::size_t r = 0; r < rows; ++r) {
        for (std::size_t c = 0; c < columns; ++c) {
            out[r * columns + c] = one(r, c) ? T{1} : T{0};
        }
    }
}

template <Element T>
void copy_rows(Tensor<T>& into, const Tensor<T>& table, std::size_t first) {
    const std::span<T> out = detail::TensorAccess::writable(into);
    const std::size_t offset = first * into.shape()[1];
    std::copy_n(
        table.data().begin() + static_cast<std::ptrdiff_t>(offset), out.size(), out.begin());
}

}  // namespace

template <Element T>
void rewrite_cached_positions(CachedPositionTensors<T>& tensors,
                              const RotaryTables<T>& context_tables,
                              std::size_t first,
                              std::size_t count,
                              std::size_t context) {
    check_cached_span(first, count, context);
    const std::size_t width =
        context_tables.cos.shape().rank() == 2 ? context_tables.cos.shape()[1] : 0;
    const Shape rows{count, width};
    const bool fits = context_tables.cos.shape() == Shape{context, width} &&
                      context_tables.sin.shape() == context_tables.cos.shape() &&
                      tensors.cos.shape() == rows && tensors.sin.shape() == rows &&
                      tensors.allowed.shape() == Shape{count, context} &&
                      tensors.placement.shape() == Shape{context, count} &&
                      tensors.kept.shape() == Shape{context, 1};
    if (!fits) {
        throw ShapeError("rewrite_cached_positions: the tensors are not those of " +
                         std::to_string(count) + " tokens in a cache of " +
                         std::to_string(context) + " positions, or the tables [" +
                         context_tables.cos.shape().str() + "] not those of its positions");
    }
    copy_rows(tensors.cos, context_tables.cos, first);
    copy_rows(tensors.sin, context_tables.sin, first);
    write_indicator(tensors.allowed, [&](auto t, auto key) { return key <= first + t; });
    write_indicator(tensors.placement, [&](auto row, auto t) { return row == first + t; });
    write_indicator(tensors.kept,
                    [&](auto row, auto) { return row < first || row >= first + count; });
}

template <Element T>
CachedPositionTensors<T> cached_position_tensors(const RotaryEmbedding& rotary,
                                                 std::size_t first,
                                                 std::size_t count,
                                                 std::size_t context) {
    check_cached_span(first, count, context);
    const RotaryTables<T> tables = rotary.tables<T>(0, context);
    const Shape rows{count, rotary.head_width()};
    CachedPositionTensors<T> tensors{Tensor<T>::filled(rows, T{0}),
                                     Tensor<T>::filled(rows, T{0}),
                                     Tensor<T>::filled(Shape{count, context}, T{0}),
                                     Tensor<T>::filled(Shape{context, count}, T{0}),
                                     Tensor<T>::filled(Shape{context, 1}, T{0})};
    rewrite_cached_positions(tensors, tables, first, count, context);
    return tensors;
}

template CachedPositionTensors<float> cached_position_tensors(const RotaryEmbedding&,
                                                              std::size_t,
                                                              std::size_t,
                                                              std::size_t);
template void rewrite_cached_positions(CachedPositionTensors<float>&,
                                       const RotaryTables<float>&,
                                       std::size_t,
                                       std::size_t,
                                       std::size_t);
template CachedPositionTensors<double> cached_position_tensors(const RotaryEmbedding&,
                                                               std::size_t,
                                                               std::size_t,
                                                               std::size_t);
template void rewrite_cached_positions(CachedPositionTensors<double>&,
                                       const RotaryTables<double>&,
                                       std::size_t,
                                       std::size_t,
                                       std::size_t);
template CachedPositionTensors<bf16> cached_position_tensors(const RotaryEmbedding&,
                                                             std::size_t,
                                                             std::size_t,
                                                             std::size_t);
template void rewrite_cached_positions(
    CachedPositionTensors<bf16>&, const RotaryTables<bf16>&, std::size_t, std::size_t, std::size_t);
template class GroupedQueryAttention<float>;
template class GroupedQueryAttention<double>;
template class GroupedQueryAttention<bf16>;

}  // namespace topos
