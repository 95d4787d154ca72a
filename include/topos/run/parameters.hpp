// Parameters<T>: the trainable payloads of a network, one slot per Parameter
// node, read through symbols. A value: a training step is a pure function from
// one Parameters to the next; the network itself never changes.
#pragma once

#include <topos/core/error.hpp>
#include <topos/core/tensor.hpp>
#include <topos/graph/symbol.hpp>

#include <cstdint>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace topos {

namespace detail {

// Which nodes of which network the slots stand for; shared by all Parameters
// made from one network.
struct ParameterLayout {
    std::vector<std::uint64_t> lineage;  // the network's tape and its ancestors
    std::vector<Symbol> symbols;         // one per slot, in node order
    std::vector<std::int32_t> slot_of_node;

    // The slot of `symbol`; throws SymbolError when it names no parameter here.
    std::size_t slot(Symbol symbol) const;
    bool same_slots(const ParameterLayout& other) const;
};

}  // namespace detail

template <Element T>
class Parameters {
public:
    Parameters(std::shared_ptr<const detail::ParameterLayout> layout,
               std::vector<Tensor<T>> values);

    // The payload of one parameter; throws SymbolError when `parameter` is not a
    // Parameter node of this network.
    const Tensor<T>& of(Symbol parameter) const { return values_[layout_->slot(parameter)]; }

    std::size_t size() const { return values_.size(); }

    std::span<const Symbol> symbols() const { return layout_->symbols; }

    std::span<const Tensor<T>> values() const { return values_; }

    // A copy with one slot replaced; the shape must match.
    Parameters with(Symbol parameter, Tensor<T> value) const;

    // The next parameters: update(current, gradient) for every slot. Throws
    // SymbolError when `gradients` was made for another network.
    template <class Update>
    Parameters step(const Parameters& gradients, Update&& update) const {
        check_same_slots(gradients);
        std::vector<Tensor<T>> next;
        next.reserve(values_.size());
        for (std::size_t slot = 0; slot < values_.size(); ++slot) {
            next.push_back(update(values_[slot], gradients.values_[slot]));
        }
        return Parameters(layout_, std::move(next));
    }

    const std::shared_ptr<const detail::ParameterLayout>& layout() const { return layout_; }

private:
    void check_same_slots(const Parameters& other) const;

    std::shared_ptr<const detail::ParameterLayout> layout_;
    std::vector<Tensor<T>> values_;
};

extern template class Parameters<float>;
extern template class Parameters<double>;

}  // namespace topos
