// Value<T>: a handle to one node of a tape while it is being recorded. Every
// expression over values appends one node (or a few, when numpy-style
// broadcasting is spelled out as explicit BroadcastAlong and Reshape nodes), its
// shape checked first: a mismatch throws ShapeError and appends nothing.
#pragma once

#include <topos/core/shape.hpp>
#include <topos/core/tensor.hpp>
#include <topos/graph/symbol.hpp>
#include <topos/ops/opcode.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

namespace topos {

namespace detail {
template <Element T>
struct TapeState;
struct GraphAccess;
}  // namespace detail

template <Element T>
class Tape;

template <Element T>
class Value {
public:
    // The index of this value's node: its position on the tape and in the sealed network.
    std::uint32_t index() const { return index_; }

    // By value: recording more nodes may move the tape's storage.
    Shape shape() const;

    // The detached name of this node, readable against the sealed network. The
    // conversion lets a value stand wherever a symbol is expected.
    Symbol symbol() const;

    // symbol(), implicitly: a value stands wherever a symbol is expected.
    operator Symbol() const { return symbol(); }  // NOLINT(google-explicit-constructor)

    // Elementwise functions.
    Value abs() const;
    Value sign() const;
    Value exp() const;
    Value expm1() const;
    Value log() const;
    Value log1p() const;
    Value sqrt() const;
    Value rsqrt() const;
    Value square() const;
    Value sin() const;
    Value cos() const;
    Value tanh() const;
    Value sigmoid() const;
    Value erf() const;
    Value gelu() const;  // the exact (erf) form
    Value softplus() const;
    Value silu() const;      // x sigmoid(x), the sigmoid-weighted linear unit (swish)
    Value floor() const;     // the largest integer not above x; its derivative is 0
    Value hardtanh() const;  // x clamped to [-1, 1] (torch.nn.Hardtanh); derivative 1 inside
    Value relu() const;      // records Maximum against a zero Leaf
    Value maximum(const Value& other) const;
    Value minimum(const Value& other) const;
    Value pow(const Value& exponent) const;

    // Each element rounded once to the nearest U (float, double or bf16) and
    // kept in T (Convert): a float value computes in bf16 from here on, as
    // torch's x.to(torch.bfloat16). Its adjoint is rounded alike.
    template <class U>
    Value rounded_to() const {
        return rounded_to(element_type_of<U>);
    }

    // rounded_to<U>() with U named at run time: Convert to `type`.
    Value rounded_to(ElementType type) const;

    // Masks: 1 where the comparison holds, else 0 (numpy broadcasting).
    Value compare(const Value& other, Comparison direction) const;
    Value equal(const Value& other) const;
    Value not_equal(const Value& other) const;
    Value less(const Value& other) const;
    Value less_equal(const Value& other) const;
    Value greater(const Value& other) const;
    Value greater_equal(const Value& other) const;

    // Contraction. Rank 2 with rank 2 is a matrix product; higher ranks are
    // batched over the leading axes, which broadcast numpy-style (a rank-2
    // right operand is applied to every row of the left without copies).
    Value matmul(const Value& other) const;

    // Reductions. Over several axes they record single-axis reductions, last
    // axis first; `keep` leaves the reduced axes in place with extent 1.
    Value sum() const;                  // over all axes, to rank 0
    Value sum(std::size_t axis) const;  // along one axis, removing it
    Value sum(const Axes& axes, bool keep = false) const;
    Value mean() const;
    Value mean(std::size_t axis) const;
    Value mean(const Axes& axes, bool keep = false) const;
    Value max() const;  // over all axes
    Value max(std::size_t axis) const;
    Value max(const Axes& axes, bool keep = false) const;
    // log(sum(exp(x))) along `axis`, which is removed unless `keep`.
    Value logsumexp(std::size_t axis, bool keep = false) const;  // stable
    // x - logsumexp(x) along `axis`, which stays.
    Value log_softmax(std::size_t axis) const;  // stable
    // exp(log_softmax(axis)): each element's exponential over their sum along `axis`.
    Value softmax(std::size_t axis) const;

    // Layout.
    //
    // The same elements in the same row-major order under another shape of as many elements.
    Value reshape(Shape shape) const;
    // The axes from `start_axis` on merged into one: [N, C, H, W] with
    // start_axis 1 is [N, C * H * W] (torch.flatten). A rank-0 value is [1].
    Value flatten(std::size_t start_axis = 0) const;
    // Reorders the axes: axis i of the result is axis order[i] of this value.
    Value permute(Axes order) const;
    Value transpose() const;  // swaps the last two axes
    // Swaps axes `first` and `second` (a Permute).
    Value transpose(std::size_t first, std::size_t second) const;
    Value squeeze(std::size_t axis) const;    // removes an axis of extent 1
    Value unsqueeze(std::size_t axis) const;  // inserts an axis of extent 1
    // A new axis at `axis` along which this value repeats `extent` times.
    Value broadcast_along(std::size_t axis, std::size_t extent) const;
    Value broadcast_to(const Shape& shape) const;  // numpy rules, as explicit nodes
    // Windows of `size` along `axis`, `step` apart, their taps `dilation` apart (Unfold).
    Value unfold(std::size_t axis,
                 std::size_t size,
                 std::size_t step,
                 std::size_t dilation = 1) const;
    // The adjoint of unfold: sums the window axis back into `extent` positions of `axis`.
    Value fold(std::size_t axis,
               std::size_t size,
               std::size_t step,
               std::size_t dilation,
               std::size_t extent) const;
    // Positions start .. start + length - 1 of one axis.
    Value narrow(std::size_t axis, std::size_t start, std::size_t length) const;
    // Positions start, start + step, ... below stop, of one axis.
    Value slice(std::size_t axis, std::size_t start, std::size_t stop, std::size_t step = 1) const;
    // Zeros added: `before` and `after` the ends of one axis, `interior` between its elements.
    Value pad(std::size_t axis,
              std::size_t before,
              std::size_t after,
              std::size_t interior = 0) const;

    // Indexing (this value holds indices, see Tape::indices).
    Value one_hot(std::size_t depth) const;

    // Appends a node of any opcode with explicit operands and attributes: the
    // one funnel every method above goes through.
    Value apply(Opcode opcode,
                std::initializer_list<Value> operands,
                Attributes attributes = {}) const;

    // The tape this value was recorded on, to record more beside it (a leaf, an
    // input): another handle to the same recording, so sealing through either
    // seals both.
    Tape<T> tape() const;

private:
    friend struct detail::GraphAccess;

    Value(std::shared_ptr<detail::TapeState<T>> tape, std::uint32_t index)
        : tape_(std::move(tape)), index_(index) {}

    std::shared_ptr<detail::TapeState<T>> tape_;
    std::uint32_t index_;
};

// Elementwise arithmetic with numpy-style broadcasting; a plain number on one
// side is recorded as a rank-0 Leaf.
template <Element T>
Value<T> operator+(const Value<T>& a, const Value<T>& b);
template <Element T>
Value<T> operator-(const Value<T>& a, const Value<T>& b);
template <Element T>
Value<T> operator*(const Value<T>& a, const Value<T>& b);
template <Element T>
Value<T> operator/(const Value<T>& a, const Value<T>& b);
template <Element T>
Value<T> operator-(const Value<T>& a);

// The same with a plain number on one side, recorded as a rank-0 Leaf.
template <Element T>
Value<T> operator+(const Value<T>& a, std::type_identity_t<T> b);
template <Element T>
Value<T> operator-(const Value<T>& a, std::type_identity_t<T> b);
template <Element T>
Value<T> operator*(const Value<T>& a, std::type_identity_t<T> b);
template <Element T>
Value<T> operator/(const Value<T>& a, std::type_identity_t<T> b);
template <Element T>
Value<T> operator+(std::type_identity_t<T> a, const Value<T>& b);
template <Element T>
Value<T> operator-(std::type_identity_t<T> a, const Value<T>& b);
template <Element T>
Value<T> operator*(std::type_identity_t<T> a, const Value<T>& b);
template <Element T>
Value<T> operator/(std::type_identity_t<T> a, const Value<T>& b);

// Free spellings of the named operations.
template <Element T>
Value<T> matmul(const Value<T>& a, const Value<T>& b) {
    return a.matmul(b);
}

// a.maximum(b), as a free function.
template <Element T>
Value<T> maximum(const Value<T>& a, const Value<T>& b) {
    return a.maximum(b);
}

// a.exp(), as a free function.
template <Element T>
Value<T> exp(const Value<T>& a) {
    return a.exp();
}

// a.log(), as a free function.
template <Element T>
Value<T> log(const Value<T>& a) {
    return a.log();
}

// a.tanh(), as a free function.
template <Element T>
Value<T> tanh(const Value<T>& a) {
    return a.tanh();
}

// a.sigmoid(), as a free function.
template <Element T>
Value<T> sigmoid(const Value<T>& a) {
    return a.sigmoid();
}

// a.silu(), as a free function.
template <Element T>
Value<T> silu(const Value<T>& a) {
    return a.silu();
}

// a.relu(), as a free function.
template <Element T>
Value<T> relu(const Value<T>& a) {
    return a.relu();
}

// `mask != 0 ? a : b`, elementwise, numpy broadcasting.
template <Element T>
Value<T> where(const Value<T>& mask, const Value<T>& a, const Value<T>& b);

// Joins values along an existing axis, or stacks them along a new one.
template <Element T>
Value<T> concat(const std::vector<Value<T>>& values, std::size_t axis);
template <Element T>
Value<T> stack(const std::vector<Value<T>>& values, std::size_t axis);

// Rows of `table` picked by `indices`: [rows, rest...] and [picks...] give
// [picks..., rest...]. The derivative adds rows back in order (ScatterAdd).
template <Element T>
Value<T> gather(const Value<T>& table, const Value<T>& indices);

// indices.one_hot(depth), as a free function.
template <Element T>
Value<T> one_hot(const Value<T>& indices, std::size_t depth) {
    return indices.one_hot(depth);
}

// logits.softmax(axis), as a free function.
template <Element T>
Value<T> softmax(const Value<T>& logits, std::size_t axis) {
    return logits.softmax(axis);
}

// logits.log_softmax(axis), as a free function.
template <Element T>
Value<T> log_softmax(const Value<T>& logits, std::size_t axis) {
    return logits.log_softmax(axis);
}

// a.sum(), as a free function: over all axes, to rank 0.
template <Element T>
Value<T> sum(const Value<T>& a) {
    return a.sum();
}

// a.sum(axis), as a free function.
template <Element T>
Value<T> sum(const Value<T>& a, std::size_t axis) {
    return a.sum(axis);
}

// a.mean(), as a free function: over all axes, to rank 0.
template <Element T>
Value<T> mean(const Value<T>& a) {
    return a.mean();
}

// a.reshape(shape), as a free function.
template <Element T>
Value<T> reshape(const Value<T>& a, Shape shape) {
    return a.reshape(std::move(shape));
}

// a.flatten(start_axis), as a free function.
template <Element T>
Value<T> flatten(const Value<T>& a, std::size_t start_axis = 0) {
    return a.flatten(start_axis);
}

// a.permute(order), as a free function.
template <Element T>
Value<T> permute(const Value<T>& a, Axes order) {
    return a.permute(std::move(order));
}

// a.broadcast_along(axis, extent), as a free function.
template <Element T>
Value<T> broadcast_along(const Value<T>& a, std::size_t axis, std::size_t extent) {
    return a.broadcast_along(axis, extent);
}

// a.unfold(axis, size, step, dilation), as a free function.
template <Element T>
Value<T> unfold(const Value<T>& a,
                std::size_t axis,
                std::size_t size,
                std::size_t step,
                std::size_t dilation = 1) {
    return a.unfold(axis, size, step, dilation);
}

// a.narrow(axis, start, length), as a free function.
template <Element T>
Value<T> narrow(const Value<T>& a, std::size_t axis, std::size_t start, std::size_t length) {
    return a.narrow(axis, start, length);
}

extern template class Value<float>;
extern template class Value<double>;
extern template class Value<bf16>;

}  // namespace topos

// The losses, written over values (cross_entropy, mse, ...).
#include <topos/graph/losses.hpp>  // IWYU pragma: export
