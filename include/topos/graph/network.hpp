// Network<T>: a sealed tape, the immutable spec every later stage reads. It is
// safe to share: any number of threads may forward one network at once, with
// different feeds or parameters. Network::forward evaluates every node: it is
// the whole-spec oracle that every faster path is checked against.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/graph/node.hpp>
#include <topos/graph/scope.hpp>
#include <topos/graph/symbol.hpp>

#include <concepts>
#include <initializer_list>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <vector>

namespace topos {

template <Element T>
class Tape;

// Declared by the layers that define them: <topos/run/run.hpp>,
// <topos/run/parameters.hpp>, <topos/run/entry.hpp> (or <topos/topos.hpp>).
template <Element T>
class Run;
template <Element T>
class Parameters;
template <Element T>
struct Feed;
template <Element T>
class Entry;

namespace detail {
template <Element T>
struct NetworkState;
struct GraphAccess;
}  // namespace detail

template <Element T>
class Network {
public:
    // One Node per recorded line; position is the node index.
    std::span<const Node> nodes() const;

    // The node a symbol names; throws SymbolError for another network's symbol.
    const Node& node(Symbol symbol) const;

    // The payload a source was recorded with: a leaf's constant, an input's
    // default, a parameter's initial value. Throws SymbolError for another
    // network's symbol and Error for a computed node.
    Tensor<T> payload(Symbol source) const;

    // The name scopes the nodes were recorded in (see NameScope): scopes()[0]
    // is the top level, and scope_of(symbol) indexes scopes(). Throws
    // SymbolError for another network's symbol.
    std::span<const Scope> scopes() const;
    std::uint32_t scope_of(Symbol symbol) const;

    // The table of Tape::describe, with a `network:` summary line.
    std::string describe() const;

    // The recorded initial payloads of the parameters. Defined, with forward and
    // entry, by the engine layer.
    Parameters<T> parameters() const;

    // Evaluates every node. Feeds overlay the inputs' recorded defaults. Throws
    // FeedError for a feed of the wrong shape or for a symbol that is not an
    // input, SymbolError when `parameters` belong to another network.
    Run<T> forward(const Parameters<T>& parameters,
                   std::initializer_list<Feed<T>> feeds = {}) const;
    Run<T> forward(const Parameters<T>& parameters, std::span<const Feed<T>> feeds) const;

    // Declares an export of this network: the values a run must compute and may
    // read (see Entry). Accepts symbols or values, as a braced list or any range.
    Entry<T> entry(std::initializer_list<Symbol> roots) const;
    Entry<T> entry(const std::vector<Symbol>& roots) const;

    // The same, `roots` any range of symbols or values.
    template <SymbolRange Range>
    Entry<T> entry(const Range& roots) const {
        std::vector<Symbol> symbols;
        for (const auto& root : roots) {
            symbols.push_back(Symbol(root));
        }
        return entry(symbols);
    }

    // A new tape holding the same nodes, to record more on top. This network is
    // unchanged, and its symbols stay valid on what the new tape seals into.
    Tape<T> reopen() const;

    // The same graph over another element type, as model.to(torch.bfloat16)
    // is: every payload converted (rounded once, to nearest even, where U is
    // narrower). This network's symbols name the same nodes there, and its
    // parameters convert into the other's (Parameters::convert). Throws
    // FeedError where an index payload holds an integer U does not hold
    // exactly (bf16 holds them up to 256).
    template <Element U>
    Network<U> convert() const;

private:
    friend struct detail::GraphAccess;

    explicit Network(std::shared_ptr<const detail::NetworkState<T>> state)
        : state_(std::move(state)) {}

    std::shared_ptr<const detail::NetworkState<T>> state_;
};

extern template class Network<float>;
extern template class Network<double>;
extern template class Network<bf16>;

}  // namespace topos
