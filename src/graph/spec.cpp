// The spec's shared helpers: fresh tape ids, counted nouns for summaries, the
// check that an index tensor holds whole numbers T represents exactly,
// Spec::owns and Spec::node (a symbol checked against the lineage), and
// TapeState::check_open (TapeError once the tape is sealed).
#include "graph/spec.hpp"

#include "core/arithmetic.hpp"
#include "ops/index.hpp"
#include <topos/core/error.hpp>

#include <algorithm>
#include <atomic>
#include <concepts>
#include <cstdint>

namespace topos::detail {

std::uint64_t next_tape_id() {
    static std::atomic<std::uint64_t> counter{0};
    return ++counter;
}

std::string counted(std::size_t count, const char* singular, const char* plural) {
    return std::to_string(count) + ' ' + (count == 1 ? singular : plural);
}

// The largest magnitude up to which T holds every integer: 2^24, 2^53, and 256
// for bf16, whose eight significant bits make it no type for token ids.
template <Element T>
constexpr Arithmetic<T> exact_integer_limit() {
    if constexpr (std::same_as<T, float>) {
        return 16777216.0F;
    } else if constexpr (std::same_as<T, double>) {
        return 9007199254740992.0;
    } else {
        return 256.0F;
    }
}

template <Element T>
void check_indices(const Tensor<T>& indices, const char* reader) {
    using Wide = Arithmetic<T>;
    constexpr Wide exact_limit = exact_integer_limit<T>();
    for (const T element : indices.data()) {
        const Wide value = widen(element);
        const bool in_range = value >= -exact_limit && value <= exact_limit;  // false for NaN
        if (!in_range || value != static_cast<Wide>(static_cast<std::int64_t>(value))) {
            std::string hint = "; feed whole numbers (labels, token ids, positions)";
            if constexpr (std::same_as<T, bf16>) {
                hint += ", and where they pass 256, record the tape in float";
            }
            throw FeedError(std::string(reader) + ": an index input holds integers up to " +
                            std::to_string(static_cast<std::int64_t>(exact_limit)) +
                            " in magnitude, but got " + index_text(value) + hint);
        }
    }
}

template void check_indices(const Tensor<float>&, const char*);
template void check_indices(const Tensor<double>&, const char*);
template void check_indices(const Tensor<bf16>&, const char*);

template <Element T>
bool Spec<T>::owns(Symbol symbol) const {
    return symbol.index() < nodes.size() &&
           std::find(lineage.begin(), lineage.end(), symbol.lineage()) != lineage.end() &&
           nodes[symbol.index()].symbol().lineage() == symbol.lineage();
}

template <Element T>
const Node& Spec<T>::node(Symbol symbol, const char* reader) const {
    if (!owns(symbol)) {
        throw SymbolError(std::string(reader) + ": symbol %" + std::to_string(symbol.index()) +
                          " was not recorded on this network or a network it was reopened "
                          "from; read each network through its own symbols");
    }
    return nodes[symbol.index()];
}

template <Element T>
const Tensor<T>& Spec<T>::source_payload(Symbol symbol, const char* reader) const {
    const Node& source = node(symbol, reader);
    if (payload_slot[source.index()] == no_payload) {
        throw Error(std::string(reader) + ": node " + std::to_string(source.index()) + " (" +
                    std::string(name_of(source.opcode())) +
                    ") is computed, not a source; only parameters, inputs and leaves carry "
                    "a recorded payload");
    }
    return payload(source.index());
}

template <Element T>
void TapeState<T>::check_open(const char* action) const {
    if (sealed) {
        throw TapeError(std::string("cannot ") + action +
                        ": the tape was sealed into a network; call network.reopen() for a "
                        "tape to record more on");
    }
}

template struct Spec<float>;
template struct Spec<double>;
template struct Spec<bf16>;
template struct TapeState<float>;
template struct TapeState<double>;
template struct TapeState<bf16>;

}  // namespace topos::detail
