#include <topos/core/error.hpp>
#include <topos/run/parameters.hpp>

#include <algorithm>

namespace topos {

namespace detail {

std::size_t ParameterLayout::slot(Symbol symbol) const {
    const bool ours = symbol.index() < slot_of_node.size() &&
                      std::ranges::find(lineage, symbol.lineage()) != lineage.end();
    if (!ours || slot_of_node[symbol.index()] < 0 ||
        symbols[static_cast<std::size_t>(slot_of_node[symbol.index()])] != symbol) {
        throw SymbolError("symbol %" + std::to_string(symbol.index()) +
                          " does not name a parameter of the network these parameters were "
                          "made for");
    }
    return static_cast<std::size_t>(slot_of_node[symbol.index()]);
}

bool ParameterLayout::same_slots(const ParameterLayout& other) const {
    return this == &other || symbols == other.symbols;
}

}  // namespace detail

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
void Parameters<T>::check_same_slots(const Parameters& other) const {
    if (!layout_->same_slots(*other.layout_)) {
        throw SymbolError(
            "step needs gradients over the same parameters; these were made for "
            "another network");
    }
}

template class Parameters<float>;
template class Parameters<double>;

}  // namespace topos
