// append and append_source, the recording funnel: a node's shape inferred and
// its element kind (real or index) checked before it is appended, its name
// scope noted, and sources' payloads filed; and broadcast_shapes, core's
// numpy-style rule for two shapes with a message that names both nodes and
// the conflicting axis.
#include "graph/record.hpp"

#include "core/shape_too_large.hpp"
#include "ops/op_info.hpp"
#include <topos/core/error.hpp>

#include <algorithm>
#include <array>
#include <sstream>

namespace topos::detail {

namespace {

// The kind of a new node's elements: layout operations carry their operands'
// kind; every other operation computes on reals, except at the operand
// positions its row marks as indices.
DType result_dtype(const ShapeCheck& check, const OpInfo& row, std::span<const DType> operands) {
    if (row.carries_indices()) {
        for (DType dtype : operands) {
            check.require(dtype == operands[0],
                          "the operands mix indices and reals; convert the indices with "
                          "one_hot first");
        }
        return operands.empty() ? DType::Real : operands[0];
    }
    for (std::size_t i = 0; i < operands.size(); ++i) {
        const bool wants_index = ((row.index_operands >> i) & 1U) != 0;
        if (wants_index && operands[i] != DType::Index) {
            check.fail("operand " + std::to_string(i) +
                       " must hold indices; record them with tape.indices(...)");
        }
        if (!wants_index && operands[i] == DType::Index) {
            check.fail("operand " + std::to_string(i) +
                       " holds indices, which this operation does not compute on; turn them "
                       "into reals with one_hot(...)");
        }
    }
    return DType::Real;
}

}  // namespace

template <Element T>
std::uint32_t append(TapeState<T>& tape,
                     Opcode opcode,
                     std::span<const std::uint32_t> operands,
                     const Attributes& attributes) {
    tape.check_open("record an operation");
    std::array<Shape, Node::max_operands> shapes;
    std::array<DType, Node::max_operands> dtypes{};
    const std::size_t arity = std::min(operands.size(), Node::max_operands);
    for (std::size_t i = 0; i < arity; ++i) {
        shapes[i] = tape.spec.nodes[operands[i]].shape();
        dtypes[i] = tape.spec.nodes[operands[i]].dtype();
    }
    const std::span<const Shape> operand_shapes(shapes.data(), arity);
    Shape shape = infer_shape(opcode, operands, operand_shapes, attributes);
    const DType dtype = result_dtype(ShapeCheck(opcode, operands, operand_shapes, attributes),
                                     op_info(opcode),
                                     std::span<const DType>(dtypes.data(), arity));
    const auto index = static_cast<std::uint32_t>(tape.spec.nodes.size());
    const std::uint32_t scope = tape.spec.scopes.current();
    tape.spec.nodes.emplace_back(
        Symbol(index, tape.spec.id()), opcode, operands, attributes, std::move(shape), dtype);
    tape.spec.payload_slot.push_back(no_payload);
    tape.spec.scopes.of_node.push_back(scope);
    return index;
}

template <Element T>
std::uint32_t append_source(TapeState<T>& tape, Opcode opcode, Tensor<T> payload, DType dtype) {
    tape.check_open("record a source");
    const auto index = static_cast<std::uint32_t>(tape.spec.nodes.size());
    const std::uint32_t scope = tape.spec.scopes.current();
    tape.spec.nodes.emplace_back(Symbol(index, tape.spec.id()),
                                 opcode,
                                 std::span<const std::uint32_t>(),
                                 NoAttributes{},
                                 payload.shape(),
                                 dtype);
    tape.spec.payload_slot.push_back(static_cast<std::uint32_t>(tape.spec.payloads.size()));
    tape.spec.payloads.push_back(std::move(payload));
    tape.spec.scopes.of_node.push_back(scope);
    if (opcode == Opcode::Parameter) {
        tape.spec.parameters.push_back(index);
    } else if (opcode == Opcode::Input) {
        tape.spec.inputs.push_back(index);
    }
    return index;
}

Shape broadcast_shapes(
    Opcode opcode, std::uint32_t a_node, const Shape& a, std::uint32_t b_node, const Shape& b) {
    const auto fail = [&](const std::string& problem) {
        std::ostringstream message;
        message << name_of(opcode) << " of node " << a_node << ' ' << a << ", node " << b_node
                << ' ' << b << ": " << problem;
        throw ShapeError(message.str());
    };
    BroadcastConflict conflict{};
    std::optional<Shape> common;
    try {
        common = common_shape(a, b, conflict);
    } catch (const ShapeTooLarge& too_large) {
        fail(too_large.what());
    }
    if (!common) {
        fail(broadcast_advice(conflict));
    }
    return *common;
}

template std::uint32_t append(TapeState<float>&,
                              Opcode,
                              std::span<const std::uint32_t>,
                              const Attributes&);
template std::uint32_t append(TapeState<double>&,
                              Opcode,
                              std::span<const std::uint32_t>,
                              const Attributes&);
template std::uint32_t append(TapeState<bf16>&,
                              Opcode,
                              std::span<const std::uint32_t>,
                              const Attributes&);
template std::uint32_t append_source(TapeState<float>&, Opcode, Tensor<float>, DType);
template std::uint32_t append_source(TapeState<double>&, Opcode, Tensor<double>, DType);
template std::uint32_t append_source(TapeState<bf16>&, Opcode, Tensor<bf16>, DType);

}  // namespace topos::detail
