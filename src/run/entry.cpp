// Entry<T>: its roots and observed values checked against the network, the
// builder methods that return a changed copy (observe, numerics, backward,
// elect_patterns, simplify), declared() without repeats, and interpret, which
// runs the declared values' ancestors on the reference interpreter with every
// scheduled value kept.
#include "graph/closure.hpp"
#include "graph/spec.hpp"
#include "run/access.hpp"
#include "run/interpreter.hpp"
#include "run/run_layout.hpp"
#include <topos/core/error.hpp>
#include <topos/run/entry.hpp>

#include <algorithm>
#include <ostream>

namespace topos {

std::ostream& operator<<(std::ostream& out, Numerics numerics) {
    return out << (numerics == Numerics::Exact ? "Exact" : "Fast");
}

template <Element T>
Entry<T>::Entry(Network<T> network, std::vector<Symbol> roots)
    : network_(std::move(network)), roots_(std::move(roots)) {
    if (roots_.empty()) {
        throw EntryError("an entry needs at least one root: the values a run must compute");
    }
    for (const Symbol& root : roots_) {
        detail::GraphAccess::state(network_)->spec.node(root, "Network::entry");
    }
}

template <Element T>
Entry<T> Entry<T>::observe(const std::vector<Symbol>& values) const {
    Entry next = *this;
    for (const Symbol& value : values) {
        detail::GraphAccess::state(network_)->spec.node(value, "Entry::observe");
        next.observed_.push_back(value);
    }
    return next;
}

template <Element T>
Entry<T> Entry<T>::numerics(Numerics numerics) const {
    Entry next = *this;
    next.numerics_ = numerics;
    return next;
}

template <Element T>
Entry<T> Entry<T>::backward() const {
    Entry next = *this;
    next.backward_ = true;
    return next;
}

template <Element T>
Entry<T> Entry<T>::elect_patterns(bool elect) const {
    Entry next = *this;
    next.elect_patterns_ = elect;
    return next;
}

template <Element T>
Entry<T> Entry<T>::simplify(bool simplify) const {
    Entry next = *this;
    next.simplify_ = simplify;
    return next;
}

template <Element T>
std::vector<Symbol> Entry<T>::declared() const {
    std::vector<Symbol> declared;
    for (const auto* list : {&roots_, &observed_}) {
        for (const Symbol& symbol : *list) {
            if (std::find(declared.begin(), declared.end(), symbol) == declared.end()) {
                declared.push_back(symbol);
            }
        }
    }
    return declared;
}

template <Element T>
Run<T> Entry<T>::interpret(const Parameters<T>& parameters,
                           std::initializer_list<Feed<T>> feeds) const {
    return interpret(parameters, std::span<const Feed<T>>(feeds.begin(), feeds.size()));
}

template <Element T>
Run<T> Entry<T>::interpret(const Parameters<T>& parameters, std::span<const Feed<T>> feeds) const {
    const auto& network = *detail::GraphAccess::state(network_);
    const std::vector<Symbol> declared_values = declared();
    const std::vector<bool> scheduled = detail::ancestors(network.spec.nodes, declared_values);
    auto layout = std::make_shared<detail::RunLayout>();
    layout->slot.assign(network.spec.nodes.size(), -1);
    layout->readable.assign(network.spec.nodes.size(), false);
    for (std::size_t index = 0; index < scheduled.size(); ++index) {
        if (scheduled[index]) {
            layout->slot[index] = static_cast<std::int32_t>(index);
        }
    }
    for (const Symbol& value : declared_values) {
        layout->readable[value.index()] = true;
    }
    layout->backward_ready = true;
    layout->declaration = "this entry";
    return detail::RunAccess::run<T>(
        detail::GraphAccess::state(network_),
        std::move(layout),
        detail::interpret(network.spec, *network.parameter_layout, parameters, feeds, scheduled));
}

template <Element T>
Entry<T> Network<T>::entry(std::initializer_list<Symbol> roots) const {
    return Entry<T>(*this, std::vector<Symbol>(roots));
}

template <Element T>
Entry<T> Network<T>::entry(const std::vector<Symbol>& roots) const {
    return Entry<T>(*this, roots);
}

template class Entry<float>;
template class Entry<double>;
template class Entry<bf16>;
template Entry<float> Network<float>::entry(std::initializer_list<Symbol>) const;
template Entry<double> Network<double>::entry(std::initializer_list<Symbol>) const;
template Entry<bf16> Network<bf16>::entry(std::initializer_list<Symbol>) const;
template Entry<float> Network<float>::entry(const std::vector<Symbol>&) const;
template Entry<double> Network<double>::entry(const std::vector<Symbol>&) const;
template Entry<bf16> Network<bf16>::entry(const std::vector<Symbol>&) const;

}  // namespace topos
