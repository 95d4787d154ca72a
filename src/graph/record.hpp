// The recording funnel: every node a tape gains goes through append() or
// append_source(), which check the tape is open and the shapes agree before
// anything is appended.
#pragma once

#include "core/broadcast_shape.hpp"
#include "graph/spec.hpp"

#include <cstdint>
#include <exception>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace topos::detail {

template <Element T>
std::uint32_t append(TapeState<T>& tape,
                     Opcode opcode,
                     std::span<const std::uint32_t> operands,
                     const Attributes& attributes);

template <Element T>
std::uint32_t append_source(TapeState<T>& tape,
                            Opcode opcode,
                            Tensor<T> payload,
                            DType dtype = DType::Real);

// Makes a call that records several nodes all or nothing: when the call throws,
// what it appended (computed nodes, leaves and their payloads, parameters,
// inputs) is removed again, so a failed record leaves the tape as it was. Every
// public recording function opens one; nested scopes roll back to their own
// marks, the outermost to the caller's tape.
template <Element T>
class RecordScope {
public:
    explicit RecordScope(TapeState<T>& tape)
        : tape_(tape),
          nodes_(tape.spec.nodes.size()),
          payloads_(tape.spec.payloads.size()),
          parameters_(tape.spec.parameters.size()),
          inputs_(tape.spec.inputs.size()),
          exceptions_(std::uncaught_exceptions()) {}

    explicit RecordScope(const Value<T>& value) : RecordScope(*GraphAccess::state(value)) {}

    RecordScope(const RecordScope&) = delete;
    RecordScope& operator=(const RecordScope&) = delete;

    ~RecordScope() {
        if (std::uncaught_exceptions() > exceptions_) {
            truncate(tape_.spec.nodes, nodes_);
            truncate(tape_.spec.payload_slot, nodes_);
            truncate(tape_.spec.scopes.of_node, nodes_);
            truncate(tape_.spec.payloads, payloads_);
            truncate(tape_.spec.parameters, parameters_);
            truncate(tape_.spec.inputs, inputs_);
        }
    }

private:
    template <class Item>
    static void truncate(std::vector<Item>& items, std::size_t size) {
        items.erase(items.begin() + static_cast<std::ptrdiff_t>(size), items.end());
    }

    TapeState<T>& tape_;
    std::size_t nodes_ = 0;
    std::size_t payloads_ = 0;
    std::size_t parameters_ = 0;
    std::size_t inputs_ = 0;
    int exceptions_ = 0;
};

// The numpy-style common shape of two operands; throws ShapeError naming the
// operation, both nodes and both shapes when they do not broadcast.
Shape broadcast_shapes(
    Opcode opcode, std::uint32_t a_node, const Shape& a, std::uint32_t b_node, const Shape& b);

}  // namespace topos::detail
