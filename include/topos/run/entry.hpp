// Entry<T>: one declared export of a network: the roots a run must compute, the
// interior values it will also observe, the memory posture and the numerics.
// Every executor honours that keep-set: the interpreter evaluates exactly the
// ancestors of the declared values, a plan is a schedule of the same closure,
// and a read outside the declaration throws ReadError. Entries are values;
// several entries of one network coexist and share its parameters.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/graph/network.hpp>
#include <topos/graph/symbol.hpp>
#include <topos/run/run.hpp>

#include <initializer_list>
#include <iosfwd>
#include <ranges>
#include <span>
#include <vector>

namespace topos {

// Exact: the same bits as Network::forward, in every build. Fast (the default):
// a backend may serve large products with sums in its own order.
enum class Numerics : std::uint8_t {
    Exact,
    Fast,
};

// Writes "Exact" or "Fast".
std::ostream& operator<<(std::ostream& out, Numerics numerics);

template <Element T>
class Plan;

template <Element T>
class Entry {
public:
    // Throws EntryError for an empty root list, SymbolError for another network's symbol.
    Entry(Network<T> network, std::vector<Symbol> roots);

    // A copy that also declares `values` readable.
    Entry observe(std::initializer_list<Symbol> values) const {
        return observe(std::vector<Symbol>(values));
    }

    // The same, `values` any range of symbols or values.
    template <std::ranges::input_range Range>
    Entry observe(const Range& values) const {
        std::vector<Symbol> symbols;
        for (const auto& value : values) {
            symbols.push_back(Symbol(value));
        }
        return observe(symbols);
    }

    // The same, `values` a vector of symbols.
    Entry observe(const std::vector<Symbol>& values) const;

    // A copy whose runs and plans use `numerics` (Numerics::Fast unless set).
    Entry numerics(Numerics numerics) const;

    // The backward memory posture: runs keep every value Run::backward reads.
    Entry backward() const;

    // Whether lowering may elect the catalog's patterns (the default). Off, a
    // plan runs every node's own kernel: the unfused baseline.
    Entry elect_patterns(bool elect) const;

    // Whether lowering simplifies the graph first (off unless set): a node that
    // is exactly one of its operands (x * 1, x / 1, x + (-0), x - (+0), a reshape
    // to the same shape, a permute undone) reads as that operand, and nodes that
    // compute the same thing are computed once. The plan computes the same bits
    // with fewer nodes; its describe says what the passes did.
    Entry simplify(bool simplify = true) const;

    // The oracle over just the declared values' ancestors.
    Run<T> interpret(const Parameters<T>& parameters,
                     std::initializer_list<Feed<T>> feeds = {}) const;
    Run<T> interpret(const Parameters<T>& parameters, std::span<const Feed<T>> feeds) const;

    // The compiled schedule of this declaration.
    Plan<T> lower() const;

    // The network this entry exports.
    const Network<T>& network() const { return network_; }

    // The roots, as declared.
    const std::vector<Symbol>& roots() const { return roots_; }

    // The values declared readable by observe, in declaration order.
    const std::vector<Symbol>& observed() const { return observed_; }

    // Roots then observed values, in declaration order, each once.
    std::vector<Symbol> declared() const;

    // The numerics its runs and plans use.
    Numerics numerics() const { return numerics_; }

    // Whether backward() was declared: runs keep what Run::backward reads.
    bool keeps_backward() const { return backward_; }

    // Whether lowering may elect the catalog's patterns (see elect_patterns).
    bool elects_patterns() const { return elect_patterns_; }

    // Whether lowering simplifies the graph first (see simplify).
    bool simplifies() const { return simplify_; }

private:
    Network<T> network_;
    std::vector<Symbol> roots_;
    std::vector<Symbol> observed_;
    Numerics numerics_ = Numerics::Fast;
    bool backward_ = false;
    bool elect_patterns_ = true;
    bool simplify_ = false;
};

extern template class Entry<float>;
extern template class Entry<double>;
extern template class Entry<bf16>;

}  // namespace topos
