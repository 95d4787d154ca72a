// Run<T>: the values one evaluation computed, read through symbols, and the
// engine's reverse scan over them. Field<T>: one adjoint per node, the result of
// Run::backward. Feed<T>: one input's value for one run.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/graph/symbol.hpp>
#include <topos/run/parameters.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace topos {

template <Element T>
class Network;

template <Element T>
class Adjoints;

namespace detail {
template <Element T>
struct NetworkState;
struct RunLayout;
struct RunAccess;
}  // namespace detail

template <Element T>
struct Feed {
    Symbol symbol;
    Tensor<T> value;
};

template <Element T>
class Field {
public:
    // d target / d node. A node the target does not depend on gets zeros of its shape.
    Tensor<T> of(Symbol node) const;

    // Whether the reverse scan reached `node` (a node it did not reach reads as zeros).
    bool reached(Symbol node) const;

    // The network this field's adjoints belong to.
    Network<T> network() const;

    // The adjoints of the network's parameters, slot for slot (zeros where the
    // target does not depend on a parameter), ready for Parameters::step.
    Parameters<T> parameters(const Parameters<T>& like) const;

private:
    friend struct detail::RunAccess;

    Field(std::shared_ptr<const detail::NetworkState<T>> network,
          std::vector<Tensor<T>> adjoints,
          std::vector<bool> reached);

    std::shared_ptr<const detail::NetworkState<T>> network_;
    std::vector<Tensor<T>> adjoints_;
    std::vector<bool> reached_;
};

template <Element T>
class Run {
public:
    // The value computed for `node`. Throws ReadError when the run's declaration
    // does not make it readable, SymbolError when it names another network's node.
    const Tensor<T>& of(Symbol node) const;

    // Whether `node` is readable in this run: declared by its entry, or any
    // node of a run of Network::forward.
    bool readable(Symbol node) const;

    // The engine reverse scan from a rank-0 target: every node's adjoint, with the
    // contributions of a value's several readers summed in reader order. Throws
    // GradientError for a non-scalar target, ReadError when the run did not keep
    // what the scan reads (a plan's run needs an entry lowered with .backward()).
    // Defined by the autodiff layer (<topos/autodiff/adjoints.hpp>).
    Field<T> backward(Symbol target) const;

    // The network this run evaluated.
    Network<T> network() const;

    // The recorded gradients this run computed, one per parameter slot (zeros
    // where a parameter was not differentiated against), ready for
    // Parameters::step. Each gradient must be readable in this run. Defined by
    // the autodiff layer.
    Parameters<T> recorded_gradients(const Adjoints<T>& adjoints) const;

private:
    friend struct detail::RunAccess;

    // Assembled by the interpreter, entries and plans: `values` by the layout's slots.
    Run(std::shared_ptr<const detail::NetworkState<T>> network,
        std::shared_ptr<const detail::RunLayout> layout,
        std::vector<Tensor<T>> values);

    std::shared_ptr<const detail::NetworkState<T>> network_;
    std::shared_ptr<const detail::RunLayout> layout_;
    std::vector<Tensor<T>> values_;
};

extern template class Field<float>;
extern template class Field<double>;
extern template class Field<bf16>;
extern template class Run<float>;
extern template class Run<double>;
extern template class Run<bf16>;

}  // namespace topos
