// Node: one line of a tape. Its opcode, the nodes it reads (by index, always
// earlier ones), its attributes and its shape, checked when it was recorded.
// Nodes are immutable once appended; position in the tape is the node's index.
#pragma once

#include <topos/core/shape.hpp>
#include <topos/graph/symbol.hpp>
#include <topos/ops/opcode.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <span>

namespace topos {

class Node {
public:
    static constexpr std::size_t max_operands = 3;

    Node(Symbol symbol,
         Opcode opcode,
         std::span<const std::uint32_t> operands,
         Attributes attributes,
         Shape shape,
         DType dtype = DType::Real);

    Symbol symbol() const { return symbol_; }

    std::uint32_t index() const { return symbol_.index(); }

    Opcode opcode() const { return opcode_; }

    std::span<const std::uint32_t> operands() const { return {operands_.data(), operand_count_}; }

    const Attributes& attributes() const { return attributes_; }

    template <class A>
    const A& attributes_as() const {
        return std::get<A>(attributes_);
    }

    const Shape& shape() const { return shape_; }

    // Real numbers, or indices (see Tape::indices).
    DType dtype() const { return dtype_; }

private:
    Symbol symbol_;
    Opcode opcode_;
    DType dtype_;
    std::uint8_t operand_count_;
    std::array<std::uint32_t, max_operands> operands_{};
    Attributes attributes_;
    Shape shape_;
};

// The node's describe line (index, opcode, operands and attributes, shape).
std::ostream& operator<<(std::ostream& out, const Node& node);

// The terms each element of `node`'s value adds up, as its opcode's row
// declares them (a matrix product's depth: its left operand's last extent),
// read from the shapes of its operands among `nodes`; 0 for a node whose
// elements are each computed from single elements.
std::size_t depth_of(const Node& node, std::span<const Node> nodes);

}  // namespace topos
