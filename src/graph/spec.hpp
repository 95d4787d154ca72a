// The recorded spec shared by a tape and the networks sealed from it: nodes,
// the payloads of the sources, and the lineage that tells which symbols belong.
#pragma once

#include "graph/parameter_layout.hpp"
#include <topos/core/tensor.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/node.hpp>
#include <topos/graph/scope.hpp>
#include <topos/graph/tape.hpp>
#include <topos/graph/value.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace topos::detail {

inline constexpr std::uint32_t no_payload = UINT32_MAX;

// The name scopes a spec's nodes were recorded in (see NameScope).
struct ScopeTable {
    std::vector<Scope> scopes{Scope{"", 0}};                  // scope 0: the top level
    std::vector<std::uint32_t> of_node;                       // by node
    std::unordered_map<std::uint64_t, std::uint32_t> opened;  // a NameScope's serial: its scope

    // The scope of a node recorded now on this thread, recorded first if new.
    std::uint32_t current();

    // The scope of node `index`; 0 for a node recorded before scopes were kept.
    std::uint32_t of(std::uint32_t index) const {
        return index < of_node.size() ? of_node[index] : 0;
    }
};

template <Element T>
struct Spec {
    std::vector<std::uint64_t> lineage;  // ancestors' tape ids, then this tape's own
    std::vector<Node> nodes;
    std::vector<std::uint32_t> payload_slot;  // by node; no_payload for computed nodes
    std::vector<Tensor<T>> payloads;
    std::vector<std::uint32_t> parameters;  // node indices
    std::vector<std::uint32_t> inputs;      // node indices
    ScopeTable scopes;

    std::uint64_t id() const { return lineage.back(); }

    bool owns(Symbol symbol) const;

    // Throws SymbolError unless `symbol` names a node of this spec.
    const Node& node(Symbol symbol, const char* reader) const;

    const Tensor<T>& payload(std::uint32_t node) const { return payloads[payload_slot[node]]; }

    // The payload of the source `symbol` names; throws SymbolError or Error
    // (a computed node) naming `reader`.
    const Tensor<T>& source_payload(Symbol symbol, const char* reader) const;
};

template <Element T>
struct TapeState {
    Spec<T> spec;
    bool sealed = false;

    // Throws TapeError once the tape is sealed.
    void check_open(const char* action) const;
};

template <Element T>
struct NetworkState {
    Spec<T> spec;
    std::shared_ptr<const ParameterLayout> parameter_layout;
};

// Tapes, values and networks are made and read only inside the library: their
// constructors and states are private, and this is the one door.
struct GraphAccess {
    template <Element T>
    static Tape<T> tape(std::shared_ptr<TapeState<T>> state) {
        return Tape<T>(std::move(state));
    }

    template <Element T>
    static const std::shared_ptr<TapeState<T>>& state(const Tape<T>& tape) {
        return tape.state_;
    }

    template <Element T>
    static Value<T> value(std::shared_ptr<TapeState<T>> tape, std::uint32_t index) {
        return Value<T>(std::move(tape), index);
    }

    template <Element T>
    static const std::shared_ptr<TapeState<T>>& state(const Value<T>& value) {
        return value.tape_;
    }

    template <Element T>
    static Network<T> network(std::shared_ptr<const NetworkState<T>> state) {
        return Network<T>(std::move(state));
    }

    template <Element T>
    static const std::shared_ptr<const NetworkState<T>>& state(const Network<T>& network) {
        return network.state_;
    }
};

std::uint64_t next_tape_id();

// Throws FeedError unless every element is an integer that T holds exactly.
template <Element T>
void check_indices(const Tensor<T>& indices, const char* reader);

// "1 parameter", "2 inputs": a count and its noun in singular or plural.
std::string counted(std::size_t count, const char* singular, const char* plural);

}  // namespace topos::detail
