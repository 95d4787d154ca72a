// ComputingBuilder and RecordingBuilder: the computing one evaluates each
// adjoint operation at once with the reference kernels (reading forward values
// from the run's slots, and failing if the run did not keep one); the recording
// one appends each operation to the tape as a node.
#include "autodiff/builders.hpp"

#include "graph/record.hpp"
#include "run/interpreter.hpp"
#include <topos/core/error.hpp>

#include <array>

namespace topos::detail {

template <Element T>
ComputingBuilder<T>::ComputingBuilder(const Spec<T>& spec,
                                      const RunLayout& layout,
                                      const std::vector<Tensor<T>>& values)
    : spec_(spec), layout_(layout), forward_(values) {}

template <Element T>
const Tensor<T>& ComputingBuilder<T>::value(Ref ref) const {
    if (ref.id >= node_count()) {
        return computed_[ref.id - node_count()];
    }
    const std::int32_t slot = layout_.slot[ref.id];
    if (slot < 0) {
        const Node& node = spec_.nodes[ref.id];
        throw ReadError("Run::backward needs the value of node " + std::to_string(ref.id) + " (" +
                        std::string(name_of(node.opcode())) + "), which " + layout_.declaration +
                        " did not compute; take the gradient of a value the run declares");
    }
    return forward_[static_cast<std::size_t>(slot)];
}

template <Element T>
Ref ComputingBuilder<T>::keep(Tensor<T> tensor) {
    computed_.push_back(std::move(tensor));
    return Ref{static_cast<std::uint32_t>(node_count() + computed_.size() - 1)};
}

template <Element T>
Ref ComputingBuilder<T>::apply(Opcode opcode,
                               std::span<const Ref> operands,
                               const Attributes& attributes) {
    std::array<std::uint32_t, Node::max_operands> ids{};
    std::array<Shape, Node::max_operands> shapes;
    std::array<const Tensor<T>*, Node::max_operands> inputs{};
    for (std::size_t i = 0; i < operands.size(); ++i) {
        ids[i] = operands[i].id;
        inputs[i] = &value(operands[i]);
        shapes[i] = inputs[i]->shape();
    }
    Shape shape = infer_shape(opcode,
                              std::span<const std::uint32_t>(ids.data(), operands.size()),
                              std::span<const Shape>(shapes.data(), operands.size()),
                              attributes);
    const Node node(Symbol(),
                    opcode,
                    std::span<const std::uint32_t>(ids.data(), operands.size()),
                    attributes,
                    std::move(shape));
    return keep(
        evaluate_node<T>(node, std::span<const Tensor<T>* const>(inputs.data(), operands.size())));
}

template <Element T>
Shape ComputingBuilder<T>::shape(Ref ref) const {
    return ref.id < node_count() ? spec_.nodes[ref.id].shape()
                                 : computed_[ref.id - node_count()].shape();
}

template <Element T>
Ref ComputingBuilder<T>::scalar(double value) {
    return keep(Tensor<T>(static_cast<T>(value)));
}

template <Element T>
Ref RecordingBuilder<T>::apply(Opcode opcode,
                               std::span<const Ref> operands,
                               const Attributes& attributes) {
    std::array<std::uint32_t, Node::max_operands> ids{};
    for (std::size_t i = 0; i < operands.size(); ++i) {
        ids[i] = operands[i].id;
    }
    return Ref{append(
        tape_, opcode, std::span<const std::uint32_t>(ids.data(), operands.size()), attributes)};
}

template <Element T>
Shape RecordingBuilder<T>::shape(Ref ref) const {
    return tape_.spec.nodes[ref.id].shape();
}

template <Element T>
Ref RecordingBuilder<T>::scalar(double value) {
    return Ref{append_source(tape_, Opcode::Leaf, Tensor<T>(static_cast<T>(value)))};
}

template class ComputingBuilder<float>;
template class ComputingBuilder<double>;
template class ComputingBuilder<bf16>;
template class RecordingBuilder<float>;
template class RecordingBuilder<double>;
template class RecordingBuilder<bf16>;

}  // namespace topos::detail
