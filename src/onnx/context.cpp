// Context<T>: slots by ONNX name, constants recorded on first use as data, and
// the attribute readers every rule shares.
#include "onnx/context.hpp"

#include <topos/core/error.hpp>
#include <topos/onnx/errors.hpp>

#include <cmath>
#include <utility>

namespace topos::onnx::detail {

void not_handled(std::string what) {
    throw NotHandled{std::move(what)};
}

void contradiction(const NodeDef& node, const std::string& what) {
    throw ModelError("node " + node.name + " (" + node.operator_type + "): " + what);
}

Shape shape_of_sizes(const std::vector<std::size_t>& extents) {
    return Shape(std::span<const std::size_t>(extents));
}

Axes axes_of(const std::vector<std::size_t>& axes) {
    return Axes(std::span<const std::size_t>(axes));
}

namespace {

const AttributeDef* attribute_of_kind(const NodeDef& node,
                                      std::string_view name,
                                      AttributeDef::Kind kind,
                                      const char* kind_name) {
    const AttributeDef* attribute = node.attribute(name);
    if (attribute != nullptr && attribute->kind != kind) {
        throw ModelError("node " + node.name + " (" + node.operator_type + "): attribute " +
                         std::string(name) + " must be " + kind_name);
    }
    return attribute;
}

}  // namespace

std::int64_t integer_attribute(const NodeDef& node, std::string_view name, std::int64_t otherwise) {
    const auto* attribute = attribute_of_kind(node, name, AttributeDef::Kind::Int, "an integer");
    return attribute != nullptr ? attribute->integer : otherwise;
}

double real_attribute(const NodeDef& node, std::string_view name, double otherwise) {
    const auto* attribute = attribute_of_kind(node, name, AttributeDef::Kind::Float, "a float");
    return attribute != nullptr ? attribute->real : otherwise;
}

std::string text_attribute(const NodeDef& node,
                           std::string_view name,
                           const std::string& otherwise) {
    const auto* attribute = attribute_of_kind(node, name, AttributeDef::Kind::String, "a string");
    return attribute != nullptr ? attribute->text : otherwise;
}

std::optional<std::vector<std::int64_t>> integers_attribute(const NodeDef& node,
                                                            std::string_view name) {
    const auto* attribute = attribute_of_kind(node, name, AttributeDef::Kind::Ints, "integers");
    if (attribute == nullptr) {
        return std::nullopt;
    }
    return attribute->integers;
}

std::size_t axis_in(std::int64_t axis, std::size_t rank, const NodeDef& node) {
    const auto signed_rank = static_cast<std::int64_t>(rank);
    if (axis < -signed_rank || axis >= signed_rank) {
        throw ModelError("node " + node.name + " (" + node.operator_type + "): axis " +
                         std::to_string(axis) + " is outside a rank-" + std::to_string(rank) +
                         " input");
    }
    return static_cast<std::size_t>(axis < 0 ? axis + signed_rank : axis);
}

const AttributeDef* NodeDef::attribute(std::string_view name) const {
    for (const auto& attribute : attributes) {
        if (attribute.name == name) {
            return &attribute;
        }
    }
    return nullptr;
}

std::size_t folded_elements(const std::vector<std::int64_t>& extents) {
    std::size_t elements = 1;
    for (std::int64_t extent : extents) {
        if (extent < 0) {
            throw ModelError("not a well-formed ONNX model: the extent " + std::to_string(extent));
        }
        if (extent > 0 && elements > largest_folded_constant / static_cast<std::size_t>(extent)) {
            not_handled("a constant of more than 2^26 elements computed while recording");
        }
        elements *= static_cast<std::size_t>(extent);
    }
    return elements;
}

Shape shape_of_extents(const std::vector<std::int64_t>& extents) {
    if (extents.size() > Shape::max_rank) {
        not_handled("a tensor of rank " + std::to_string(extents.size()) + " (topos holds rank " +
                    std::to_string(Shape::max_rank) + " at most)");
    }
    std::vector<std::size_t> sizes;
    for (std::int64_t extent : extents) {
        if (extent < 0) {
            throw ModelError("not a well-formed ONNX model: the extent " + std::to_string(extent));
        }
        sizes.push_back(static_cast<std::size_t>(extent));
    }
    return Shape(std::span<const std::size_t>(sizes));
}

std::vector<std::int64_t> extents_of_shape(const Shape& shape) {
    std::vector<std::int64_t> extents;
    for (std::size_t extent : shape.extents()) {
        extents.push_back(static_cast<std::int64_t>(extent));
    }
    return extents;
}

template <Element T>
Tensor<T> tensor_of(const Constant& constant) {
    const Shape shape = shape_of_extents(constant.extents);
    std::vector<T> values;
    values.reserve(constant.elements());
    if (is_real(constant.type)) {
        for (double real : constant.reals) {
            values.push_back(static_cast<T>(real));
        }
    } else {
        for (std::int64_t integer : constant.integers) {
            const T held = static_cast<T>(static_cast<double>(integer));
            if (static_cast<double>(held) != static_cast<double>(integer)) {
                not_handled("the integer " + std::to_string(integer) +
                            ", which this element type does not hold exactly");
            }
            values.push_back(held);
        }
    }
    return Tensor<T>(shape, std::span<const T>(values));
}

template <Element T>
Context<T>::Context(Tape<T>& tape,
                    const ModelDef& model,
                    const std::map<std::string, Symbol, std::less<>>* given_parameters)
    : tape_(tape), model_(model), given_parameters_(given_parameters) {
    for (const auto& [name, initializer] : model.initializers) {
        Slot slot;
        slot.constant = initializer;
        slot.type = initializer->type;
        slot.initializer = true;
        slots_.emplace(name, std::move(slot));
    }
}

template <Element T>
auto Context<T>::slot(std::string_view name) const -> const Slot& {
    if (name.empty()) {
        throw ModelError("not a well-formed ONNX model: a node lacks an input its operator needs");
    }
    const auto found = slots_.find(name);
    if (found == slots_.end()) {
        throw ModelError("not a well-formed ONNX model: " + std::string(name) +
                         " is read before it is defined");
    }
    return found->second;
}

template <Element T>
bool Context<T>::is_constant(std::string_view name) const {
    return slot(name).constant != nullptr;
}

template <Element T>
DataType Context<T>::type_of(std::string_view name) const {
    return slot(name).type;
}

template <Element T>
Shape Context<T>::shape_of(std::string_view name) const {
    const Slot& held = slot(name);
    if (held.value) {
        return held.value->shape();
    }
    return shape_of_extents(held.constant->extents);
}

template <Element T>
const Constant& Context<T>::constant(const NodeDef& node, std::size_t index) const {
    const Slot& held = input_slot(node, index);
    if (held.constant == nullptr) {
        throw NotHandled{"input " + std::to_string(index) + " (" + node.inputs[index] +
                             ") computed at run time, where it must be known when the model is "
                             "recorded",
                         node.inputs[index]};
    }
    return *held.constant;
}

template <Element T>
Value<T> Context<T>::materialize(std::string_view name, Slot& held) {
    if (held.value) {
        return *held.value;
    }
    if (held.initializer && is_real(held.type)) {
        if (given_parameters_ != nullptr) {
            const auto found = given_parameters_->find(name);
            if (found == given_parameters_->end()) {
                throw Error("Model::record: no parameter is given for the initializer " +
                            std::string(name));
            }
            held.value = tape_.value(found->second);
        } else {
            held.value = tape_.parameter(tensor_of<T>(*held.constant));
        }
        parameters_.push_back({std::string(name), *held.value, false});
    } else {
        held.value = leaf(*held.constant);
    }
    return *held.value;
}

template <Element T>
Value<T> Context<T>::value(const NodeDef& node, std::size_t index) {
    const Slot& held = input_slot(node, index);
    if (held.constant == nullptr && is_integral(held.type) && held.type != DataType::Bool) {
        not_handled("computation on " + type_name(held.type) +
                    " values computed at run time (input " + std::to_string(index) + ", " +
                    node.inputs[index] +
                    "), which topos carries as indices: it gathers and moves them only");
    }
    return carried_value(node, index);
}

template <Element T>
auto Context<T>::input_slot(const NodeDef& node, std::size_t index) const -> const Slot& {
    if (!has_input(node, index)) {
        contradiction(node, "lacks its input " + std::to_string(index));
    }
    return slot(node.inputs[index]);
}

template <Element T>
auto Context<T>::input_slot(const NodeDef& node, std::size_t index) -> Slot& {
    (void)std::as_const(*this).input_slot(node, index);
    return slots_.find(node.inputs[index])->second;
}

template <Element T>
Value<T> Context<T>::carried_value(const NodeDef& node, std::size_t index) {
    return materialize(node.inputs.at(index), input_slot(node, index));
}

template <Element T>
Value<T> Context<T>::real_value(const NodeDef& node, std::size_t index) {
    const DataType type = input_slot(node, index).type;
    if (!is_real(type)) {
        not_handled("arithmetic on " + type_name(type) + " values (input " + std::to_string(index) +
                    ", " + node.inputs[index] + ")");
    }
    return value(node, index);
}

template <Element T>
Value<T> Context<T>::index_value(const NodeDef& node, std::size_t index) {
    Slot& held = input_slot(node, index);
    if (!is_integral(held.type) || held.type == DataType::Bool) {
        not_handled("indices of element type " + type_name(held.type) + " (input " +
                    std::to_string(index) + ", " + node.inputs[index] + ")");
    }
    if (held.constant != nullptr) {
        if (!held.indices) {
            held.indices = tape_.indices(tensor_of<T>(*held.constant));
        }
        return *held.indices;
    }
    return *held.value;
}

template <Element T>
Value<T> Context<T>::leaf(const Constant& constant) {
    return tape_.leaf(tensor_of<T>(constant));
}

template <Element T>
Value<T> Context<T>::scalar(double value) {
    return tape_.leaf(Tensor<T>(static_cast<T>(value)));
}

template <Element T>
void Context<T>::define(const NodeDef& node, std::size_t index, Value<T> value, DataType type) {
    if (index >= node.outputs.size() || node.outputs[index].empty()) {
        return;
    }
    Slot held;
    held.value = std::move(value);
    held.type = type;
    slots_.insert_or_assign(node.outputs[index], std::move(held));
}

template <Element T>
void Context<T>::define(const NodeDef& node, std::size_t index, Constant constant) {
    if (index >= node.outputs.size() || node.outputs[index].empty()) {
        return;
    }
    (void)folded_elements(constant.extents);
    Slot held;
    held.type = constant.type;
    held.constant = std::make_shared<const Constant>(std::move(constant));
    slots_.insert_or_assign(node.outputs[index], std::move(held));
}

template <Element T>
void Context<T>::define_known(const PortDef& input, Constant constant) {
    Slot held;
    held.type = constant.type;
    held.constant = std::make_shared<const Constant>(std::move(constant));
    slots_.insert_or_assign(input.port.name, std::move(held));
}

template <Element T>
Value<T> Context<T>::define_input(const PortDef& input, const Shape& shape) {
    Slot held;
    held.type = input.type;
    if (is_integral(input.type) && input.type != DataType::Bool) {
        held.value = tape_.indices(Tensor<T>::filled(shape, T(0)));
    } else {
        held.value = tape_.input(Tensor<T>::filled(shape, T(0)));
    }
    Value<T> recorded = *held.value;
    slots_.insert_or_assign(input.port.name, std::move(held));
    return recorded;
}

template <Element T>
void Context<T>::bind(const PortDef& input, Value<T> value) {
    Slot held;
    held.type = input.type;
    held.value = std::move(value);
    slots_.insert_or_assign(input.port.name, std::move(held));
}

template <Element T>
Value<T> Context<T>::output(std::string_view name) {
    const auto found = slots_.find(name);
    if (found == slots_.end()) {
        throw ModelError("not a well-formed ONNX model: the graph output " + std::string(name) +
                         " is never defined");
    }
    return materialize(found->first, found->second);
}

template class Context<float>;
template class Context<double>;
template class Context<bf16>;
template Tensor<float> tensor_of<float>(const Constant&);
template Tensor<double> tensor_of<double>(const Constant&);
template Tensor<bf16> tensor_of<bf16>(const Constant&);

}  // namespace topos::onnx::detail
