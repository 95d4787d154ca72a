// Tape<T>: the notebook a computation is recorded on. Sources (parameter, input,
// leaf) carry payloads; every expression over their values appends one checked
// node. Sealing (into_network) moves the nodes into an immutable Network; the
// tape and its values refuse further recording after that.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/graph/autocast.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/node.hpp>
#include <topos/graph/scope.hpp>
#include <topos/graph/value.hpp>

#include <array>
#include <concepts>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <ranges>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace topos {

// What differentiate records; defined in <topos/autodiff/adjoints.hpp>.
template <Element T>
class Adjoints;

namespace detail {
template <Element T>
struct TapeState;
struct GraphAccess;
}  // namespace detail

template <Element T>
class Tape {
public:
    // An empty tape, ready to record.
    Tape();
    Tape(Tape&&) noexcept = default;
    Tape& operator=(Tape&&) noexcept = default;
    Tape(const Tape&) = delete;
    Tape& operator=(const Tape&) = delete;
    ~Tape() = default;

    // A trainable source; `initial` is its payload until a step replaces it.
    Value<T> parameter(Tensor<T> initial);

    // A source fed per run; `default_value` is used when a run feeds nothing.
    Value<T> input(Tensor<T> default_value);

    // A constant source.
    Value<T> leaf(Tensor<T> constant);

    // An input of indices (for gather, one_hot, cross_entropy labels): exact
    // integers, carried in T. Feeds for it must hold integers too (FeedError).
    Value<T> indices(Tensor<T> default_indices);
    Value<T> indices(const Shape& shape, std::initializer_list<std::int64_t> values);

    // The value a symbol of this tape names, to record more with it (a recorded
    // gradient, say); throws SymbolError for another tape's symbol.
    Value<T> value(Symbol symbol) const;

    // The nodes recorded so far (the span is invalidated by further recording).
    std::span<const Node> nodes() const;

    // The payload a source was recorded with: a leaf's constant, an input's
    // default, a parameter's initial value. Throws SymbolError for another
    // tape's symbol and Error for a computed node.
    Tensor<T> payload(Symbol source) const;

    // The name scopes the nodes were recorded in (see NameScope): scopes()[0]
    // is the top level, and scope_of(symbol) indexes scopes() (the span is
    // invalidated by further recording). Throws SymbolError for another tape's symbol.
    std::span<const Scope> scopes() const;
    std::uint32_t scope_of(Symbol symbol) const;

    // One line per node, then `tape: 6 nodes, 1 parameter, 2 inputs`.
    std::string describe() const;

    // Records d target / d v for each v in `wrt` as ordinary nodes, built from
    // each opcode's derivative rule (the rules the reverse scan computes with).
    // The target must be rank 0 (GradientError otherwise; see vjp). Defined,
    // with vjp, by the autodiff layer.
    Adjoints<T> differentiate(const Value<T>& target, std::initializer_list<Symbol> wrt);

    // The same, `wrt` any range of symbols or values (a module's parameters()).
    template <SymbolRange Range>
    Adjoints<T> differentiate(const Value<T>& target, const Range& wrt) {
        return differentiate(target, symbols_of(wrt));
    }

    // The same, `wrt` a vector of symbols.
    Adjoints<T> differentiate(const Value<T>& target, const std::vector<Symbol>& wrt);

    // The vector-Jacobian product: records seed^T d target / d v for a target of
    // any shape; `seed` must have the target's shape.
    Adjoints<T> vjp(const Value<T>& target,
                    const Value<T>& seed,
                    std::initializer_list<Symbol> wrt);

    // The same, `wrt` any range of symbols or values.
    template <SymbolRange Range>
    Adjoints<T> vjp(const Value<T>& target, const Value<T>& seed, const Range& wrt) {
        return vjp(target, seed, symbols_of(wrt));
    }

    // The same, `wrt` a vector of symbols.
    Adjoints<T> vjp(const Value<T>& target, const Value<T>& seed, const std::vector<Symbol>& wrt);

    // Seals the tape. Throws TapeError when it was sealed already.
    Network<T> into_network() &&;

    // Sealing consumes the tape: on a named tape, write std::move(tape).into_network().
    template <class Self = Tape>
    Network<T> into_network() & {
        static_assert(sizeof(Self) == 0,
                      "into_network() seals the tape and consumes it: write "
                      "std::move(tape).into_network()");
        return std::move(*this).into_network();
    }

    // Records f(tape), seals, and returns the network followed by the symbols f
    // returned through detach(...): `auto [network, w, loss] = Tape<double>::record(...)`.
    template <class Record>
    static auto record(Record&& record_fn) {
        Tape tape;
        auto detached = std::forward<Record>(record_fn)(tape);
        Network<T> network = std::move(tape).into_network();
        return std::tuple_cat(std::tuple<Network<T>>(std::move(network)), std::move(detached));
    }

private:
    friend struct detail::GraphAccess;

    explicit Tape(std::shared_ptr<detail::TapeState<T>> state) : state_(std::move(state)) {}

    template <class Range>
    static std::vector<Symbol> symbols_of(const Range& values) {
        std::vector<Symbol> symbols;
        for (const auto& value : values) {
            symbols.push_back(Symbol(value));
        }
        return symbols;
    }

    std::shared_ptr<detail::TapeState<T>> state_;
};

// The symbols of several values, for returning out of Tape::record.
template <Element T, class... Rest>
std::array<Symbol, 1 + sizeof...(Rest)> detach(const Value<T>& first, const Rest&... rest) {
    return {first.symbol(), rest.symbol()...};
}

extern template class Tape<float>;
extern template class Tape<double>;
extern template class Tape<bf16>;

}  // namespace topos
