// Adjoints<T>: what Tape::differentiate recorded. Plain data that outlives the
// seal: the target's symbol and, for each value differentiated against, the
// symbol of the node holding d target / d value.
#pragma once

#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>
#include <topos/graph/symbol.hpp>

#include <string>
#include <utility>
#include <vector>

namespace topos {

template <Element T>
class Adjoints {
public:
    // The target and, per value differentiated against, (its symbol, its gradient's node).
    Adjoints(Symbol target, std::vector<std::pair<Symbol, Symbol>> gradients)
        : target_(target), gradients_(std::move(gradients)) {}

    // The symbol of the differentiated target.
    Symbol target() const { return target_; }

    // The node holding d target / d `value`; throws GradientError when `value`
    // was not among those differentiated against.
    Symbol of(Symbol value) const {
        for (const auto& [with_respect_to, gradient] : gradients_) {
            if (with_respect_to == value) {
                return gradient;
            }
        }
        throw GradientError("node " + std::to_string(value.index()) +
                            " was not among the values differentiated against; add it to "
                            "differentiate's list");
    }

    // The target, then the gradients in the order they were asked for: the
    // roots of a compiled training entry.
    std::vector<Symbol> roots() const {
        std::vector<Symbol> roots{target_};
        for (const auto& entry : gradients_) {
            roots.push_back(entry.second);
        }
        return roots;
    }

    // (value, gradient node) pairs, in the order they were asked for.
    const std::vector<std::pair<Symbol, Symbol>>& gradients() const { return gradients_; }

private:
    Symbol target_;
    std::vector<std::pair<Symbol, Symbol>> gradients_;
};

}  // namespace topos
