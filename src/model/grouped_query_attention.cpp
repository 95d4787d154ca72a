// GroupedQueryAttention: bias-free projections split into heads, queries and
// keys turned by the rotary embedding, each group's query heads stacked
// against their shared keys, every key a query may not see replaced by the
// lowest finite number before the softmax (so its weight and its derivative
// are exactly 0), and the heads merged through the output projection.
#include "graph/record.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/scope.hpp>
#include <topos/model/grouped_query_attention.hpp>

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

template <Element T>
void GroupedQueryAttention<T>::check_input(const Value<T>& x,
                                           const AttentionPositions<T>& positions) const {
    const Shape shape = x.shape();
    if (shape.rank() != 3 || shape[2] != sizes_.width) {
        throw ShapeError("grouped-query attention of width " + std::to_string(sizes_.width) +
                         " reads [batch, sequence, " + std::to_string(sizes_.width) + "]; node " +
                         std::to_string(x.index()) + " has shape " + shape.str() +
                         " (reshape a single sequence to [1, sequence, width])");
    }
    if (positions.allowed.shape() != Shape{shape[1], shape[1]}) {
        throw ShapeError("grouped-query attention over " + std::to_string(shape[1]) +
                         " positions needs allowed keys of shape [" + std::to_string(shape[1]) +
                         ", " + std::to_string(shape[1]) + "]; got " +
                         positions.allowed.shape().str());
    }
}

template <Element T>
Value<T> GroupedQueryAttention<T>::express(const Value<T>& x,
                                           const AttentionPositions<T>& positions) const {
    const detail::RecordScope scope(x);
    const NameScope named("GroupedQueryAttention");
    check_input(x, positions);
    const std::size_t batch = x.shape()[0];
    const std::size_t sequence = x.shape()[1];
    const std::size_t head_width = rotary_.head_width();
    const std::size_t groups = sizes_.key_value_heads;
    const std::size_t group = sizes_.heads / groups;
    const Value<T> q =
        rotary_.apply(split_heads(query_.express(x), sizes_.heads), positions.cos, positions.sin);
    const Value<T> k =
        rotary_.apply(split_heads(key_.express(x), groups), positions.cos, positions.sin);
    const Value<T> v = split_heads(value_.express(x), groups);
    // Query head h = g * group + r is row r * sequence + t of its group's stack.
    const Value<T> stacked = q.reshape(Shape{batch, groups, group * sequence, head_width});
    const T scale = static_cast<T>(1.0 / std::sqrt(static_cast<double>(head_width)));
    const Value<T> scores = (stacked.matmul(k.transpose()) * scale)
                                .reshape(Shape{batch, groups, group, sequence, sequence});
    Tape<T> tape = x.tape();
    const Value<T> hidden = tape.leaf(std::numeric_limits<T>::lowest());
    const Value<T> weights = where(positions.allowed, scores, hidden)
                                 .softmax(4)
                                 .reshape(Shape{batch, groups, group * sequence, sequence});
    const Value<T> merged = weights.matmul(v)
                                .reshape(Shape{batch, sizes_.heads, sequence, head_width})
                                .permute(Axes{0, 2, 1, 3})
                                .reshape(Shape{batch, sequence, sizes_.width});
    return output_.express(merged);
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
template class GroupedQueryAttention<float>;
template class GroupedQueryAttention<double>;
template class GroupedQueryAttention<bf16>;

}  // namespace topos
