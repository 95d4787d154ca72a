// Context<T>: the state of one recording of an ONNX graph on a tape. Every
// ONNX name holds a slot: a recorded value with the element type ONNX gives
// it (reals, or integers and booleans carried exactly in T), or a Constant
// known while recording. A constant becomes a value only where an operator
// reads it as data: a real initializer as a parameter under its ONNX name,
// anything else as a leaf. The operator rules (operators/*.cpp) read their
// inputs and define their outputs through it.
#pragma once

#include "onnx/constant.hpp"
#include "onnx/model_def.hpp"
#include <topos/core/tensor.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>
#include <topos/model/named.hpp>
#include <topos/onnx/model.hpp>

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace topos::onnx::detail {

// Thrown by a rule for what it cannot import; the importer adds the node.
struct NotHandled {
    std::string what;
    // The value that must be known while recording, where that is the reason.
    std::string value = {};
};

// Throws NotHandled{what}.
[[noreturn]] void not_handled(std::string what);

// Throws ModelError naming the node: what the file says contradicts the operator.
[[noreturn]] void contradiction(const NodeDef& node, const std::string& what);

// The attribute `name` of `node` or `otherwise`; ModelError when it has another kind.
std::int64_t integer_attribute(const NodeDef& node, std::string_view name, std::int64_t otherwise);
double real_attribute(const NodeDef& node, std::string_view name, double otherwise);
std::string text_attribute(const NodeDef& node,
                           std::string_view name,
                           const std::string& otherwise);
std::optional<std::vector<std::int64_t>> integers_attribute(const NodeDef& node,
                                                            std::string_view name);

// Whether output `index` of the node is asked for (present and not "").
inline bool has_output(const NodeDef& node, std::size_t index) {
    return index < node.outputs.size() && !node.outputs[index].empty();
}

// An axis in [-rank, rank) as a position in [0, rank); ModelError otherwise.
std::size_t axis_in(std::int64_t axis, std::size_t rank, const NodeDef& node);

template <Element T>
class Context {
public:
    Context(Tape<T>& tape,
            const ModelDef& model,
            const std::map<std::string, Symbol, std::less<>>* given_parameters);

    Tape<T>& tape() { return tape_; }

    std::int64_t opset() const { return model_.opset; }

    // Whether input `index` of the node is given (present and not "").
    static bool has_input(const NodeDef& node, std::size_t index) {
        return index < node.inputs.size() && !node.inputs[index].empty();
    }

    // Whether the name holds a constant (known while recording).
    bool is_constant(std::string_view name) const;

    // The element type ONNX gives the name.
    DataType type_of(std::string_view name) const;

    // The extents of what the name holds, value or constant.
    Shape shape_of(std::string_view name) const;

    // Input `index` of the node as a constant; NotHandled where it is computed
    // at run time (the operator then needs it known: a shape, axes, pads).
    const Constant& constant(const NodeDef& node, std::size_t index) const;

    // Input `index` of the node as a recorded value to compute on (a constant
    // recorded on first use). Integers computed at run time are carried as
    // indices, which only layout and indexing read: NotHandled for them here.
    Value<T> value(const NodeDef& node, std::size_t index);

    // Input `index` as whatever it holds, reals or indices: for operators that
    // only move elements (Reshape, Transpose, Concat, Slice, ...).
    Value<T> carried_value(const NodeDef& node, std::size_t index);

    // The same, refusing integer and boolean inputs (arithmetic needs reals).
    Value<T> real_value(const NodeDef& node, std::size_t index);

    // Input `index` as indices (for Gather, OneHot): an integer graph input, or
    // an integer constant recorded as tape.indices (negative positions are the
    // rule's to wrap first, on the constant). NotHandled for anything else.
    Value<T> index_value(const NodeDef& node, std::size_t index);

    // A constant recorded as a leaf of T.
    Value<T> leaf(const Constant& constant);
    Value<T> scalar(double value);

    // Defines output `index` of the node.
    void define(const NodeDef& node, std::size_t index, Value<T> value, DataType type);
    void define(const NodeDef& node, std::size_t index, Constant constant);

    // Defines a graph input as the constant the caller gave for it.
    void define_known(const PortDef& input, Constant constant);

    // Records a graph input (zeros until fed; integer inputs as indices, which
    // topos gathers and compares with but does not compute on).
    Value<T> define_input(const PortDef& input, const Shape& shape);

    // Binds a graph input to a value the caller recorded.
    void bind(const PortDef& input, Value<T> value);

    // The value a graph output names (recording a constant output as a leaf).
    Value<T> output(std::string_view name);

    // The parameters recorded so far, under their ONNX names, in recording order.
    const std::vector<NamedParameter>& parameters() const { return parameters_; }

private:
    struct Slot {
        std::optional<Value<T>> value;
        std::optional<Value<T>> indices;  // a constant recorded as indices
        std::shared_ptr<const Constant> constant;
        DataType type = DataType::Undefined;
        bool initializer = false;
    };

    const Slot& slot(std::string_view name) const;
    // The slot input `index` of the node names; ModelError where it names none.
    const Slot& input_slot(const NodeDef& node, std::size_t index) const;
    Slot& input_slot(const NodeDef& node, std::size_t index);
    Value<T> materialize(std::string_view name, Slot& slot);

    Tape<T>& tape_;
    const ModelDef& model_;
    const std::map<std::string, Symbol, std::less<>>* given_parameters_;
    std::map<std::string, Slot, std::less<>> slots_;
    std::vector<NamedParameter> parameters_;
};

// A constant's elements as a Tensor<T> (ShapeError beyond topos's rank 8).
template <Element T>
Tensor<T> tensor_of(const Constant& constant);

// The most elements a constant computed while recording may have (2^26): a
// small file may ask ConstantOfShape or Range for more than any memory holds.
inline constexpr std::size_t largest_folded_constant = std::size_t{1} << 26U;

// The elements of a constant of these extents, to be computed while recording:
// ModelError for a negative extent, NotHandled beyond largest_folded_constant.
std::size_t folded_elements(const std::vector<std::int64_t>& extents);

// Sizes as a Shape or as Axes.
Shape shape_of_sizes(const std::vector<std::size_t>& extents);
Axes axes_of(const std::vector<std::size_t>& axes);

// Extents as a Shape, and back.
Shape shape_of_extents(const std::vector<std::int64_t>& extents);
std::vector<std::int64_t> extents_of_shape(const Shape& shape);

extern template class Context<float>;
extern template class Context<double>;
extern template class Context<bf16>;

}  // namespace topos::onnx::detail
