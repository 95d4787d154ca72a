// Parameters<T>: one payload per parameter slot of a network's layout; reading
// by symbol, replacing one value or all of them (each replacement of the
// slot's shape), and the check that two sets belong to the same network.
#include "graph/parameter_layout.hpp"
#include <topos/core/error.hpp>
#include <topos/run/parameters.hpp>

#include <algorithm>

namespace topos {

template <Element T>
Parameters<T>::Parameters(std::shared_ptr<const detail::ParameterLayout> layout,
                          std::vector<Tensor<T>> values)
    : layout_(std::move(layout)), values_(std::move(values)) {
    if (values_.size() != layout_->symbols.size()) {
        throw Error("parameters need " + std::to_string(layout_->symbols.size()) +
                    " payloads, one per parameter node; " + std::to_string(values_.size()) +
                    " were given");
    }
}

template <Element T>
const Tensor<T>& Parameters<T>::of(Symbol parameter) const {
    return values_[layout_->slot(parameter)];
}

template <Element T>
std::span<const Symbol> Parameters<T>::symbols() const {
    return layout_->symbols;
}

template <Element T>
Parameters<T> Parameters<T>::with(Symbol parameter, Tensor<T> value) const {
    const std::size_t slot = layout_->slot(parameter);
    if (!(value.shape() == values_[slot].shape())) {
        throw ShapeError("parameter %" + std::to_string(parameter.index()) + " has shape " +
                         values_[slot].shape().str() + "; a replacement of shape " +
                         value.shape().str() + " does not fit");
    }
    std::vector<Tensor<T>> next = values_;
    next[slot] = std::move(value);
    return Parameters(layout_, std::move(next));
}

template <Element T>
Parameters<T> Parameters<T>::with_values(std::vector<Tensor<T>> values) const {
    if (values.size() != values_.size()) {
        throw Error("with_values needs " + std::to_string(values_.size()) +
                    " payloads, one per parameter slot; " + std::to_string(values.size()) +
                    " were given");
    }
    for (std::size_t slot = 0; slot < values.size(); ++slot) {
        if (!(values[slot].shape() == values_[slot].shape())) {
            throw ShapeError("parameter %" + std::to_string(layout_->symbols[slot].index()) +
                             " (slot " + std::to_string(slot) + ") has shape " +
                             values_[slot].shape().str() + "; a replacement of shape " +
                             values[slot].shape().str() + " does not fit");
        }
    }
    return Parameters(layout_, std::move(values));
}

template <Element T>
bool Parameters<T>::same_slots(const Parameters& other) const {
    return layout_->same_slots(*other.layout_);
}

template <Element T>
void Parameters<T>::check_same_slots(const Parameters& other) const {
    if (!same_slots(other)) {
        throw SymbolError(
            "step needs gradients over the same parameters; these were made for "
            "another network");
    }
}

template class Parameters<float>;
template class Parameters<double>;
template class Parameters<bf16>;

}  // namespace topos
