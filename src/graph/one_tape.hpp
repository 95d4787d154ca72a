// Operands that meet on one tape. A tape reopened from a network holds every
// node of the network's tapes under the same symbols, so a value recorded
// there (a module's parameter) and a value recorded on the reopened tape (a
// function's input) name nodes of one recording: every operation with several
// operands first moves them onto the open tape that holds them all.
#pragma once

#include "graph/spec.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/value.hpp>

#include <array>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace topos::detail {

template <Element T>
bool holds_all(const TapeState<T>& tape, std::span<const Value<T>* const> values) {
    for (const Value<T>* value : values) {
        if (!tape.spec.owns(value->symbol())) {
            return false;
        }
    }
    return true;
}

// The state every operand is read from: the operands' own where they share one
// tape, else the first open operand tape that holds them all. Throws TapeError
// naming `operation` where none does.
template <Element T>
std::shared_ptr<TapeState<T>> common_tape(const char* operation,
                                          std::span<const Value<T>* const> values) {
    const std::shared_ptr<TapeState<T>>& first = GraphAccess::state(*values.front());
    bool shared = true;
    for (const Value<T>* value : values) {
        shared = shared && GraphAccess::state(*value) == first;
    }
    if (shared) {
        return first;
    }
    for (const Value<T>* value : values) {
        const std::shared_ptr<TapeState<T>>& candidate = GraphAccess::state(*value);
        if (!candidate->sealed && holds_all(*candidate, values)) {
            return candidate;
        }
    }
    for (const Value<T>* value : values) {
        if (GraphAccess::state(*value) != first) {
            throw TapeError(std::string(operation) + " reads node " +
                            std::to_string(value->index()) +
                            " of another tape; all operands of an operation must be recorded "
                            "on one tape, or on a network and a tape reopened from it");
        }
    }
    return first;
}

template <Element T, std::size_t... I>
std::array<Value<T>, sizeof...(I)> read_on(const std::shared_ptr<TapeState<T>>& tape,
                                           const std::array<const Value<T>*, sizeof...(I)>& values,
                                           std::index_sequence<I...> /*positions*/) {
    return {GraphAccess::value(tape, values[I]->index())...};
}

// `values`, each read on their common tape.
template <Element T, std::size_t N>
std::array<Value<T>, N> on_one_tape(const char* operation,
                                    const std::array<const Value<T>*, N>& values) {
    const auto tape = common_tape<T>(operation, std::span<const Value<T>* const>(values));
    return read_on<T>(tape, values, std::make_index_sequence<N>{});
}

template <Element T, class... Rest>
auto on_one_tape(const char* operation, const Value<T>& first, const Rest&... rest) {
    return on_one_tape<T, 1 + sizeof...(Rest)>(operation, {&first, &rest...});
}

template <Element T>
std::vector<Value<T>> on_one_tape(const char* operation, const std::vector<Value<T>>& values) {
    std::vector<const Value<T>*> pointers;
    pointers.reserve(values.size());
    for (const Value<T>& value : values) {
        pointers.push_back(&value);
    }
    const std::shared_ptr<TapeState<T>> tape = common_tape<T>(operation, pointers);
    std::vector<Value<T>> moved;
    moved.reserve(values.size());
    for (const Value<T>& value : values) {
        moved.push_back(GraphAccess::value(tape, value.index()));
    }
    return moved;
}

}  // namespace topos::detail
