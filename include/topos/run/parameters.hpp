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
struct ParameterLayout;
struct RunAccess;
}  // namespace detail

template <Element T>
class Parameters {
public:
    // The payload of one parameter; throws SymbolError when `parameter` is not a
    // Parameter node of this network.
    const Tensor<T>& of(Symbol parameter) const;

    // The number of slots: one per Parameter node.
    std::size_t size() const { return values_.size(); }

    // The parameter nodes, slot by slot (node order).
    std::span<const Symbol> symbols() const;

    // The payloads, slot by slot (node order).
    std::span<const Tensor<T>> values() const { return values_; }

    // A copy with one slot replaced; the shape must match (ShapeError).
    Parameters with(Symbol parameter, Tensor<T> value) const;

    // A copy with every slot replaced, in slot order: what an optimizer returns.
    // Throws Error for a count other than size(), ShapeError for a value whose
    // shape differs from its slot's.
    Parameters with_values(std::vector<Tensor<T>> values) const;

    // Whether `other` has the same slots: made for this network (or for a
    // version of it with the same parameter nodes).
    bool same_slots(const Parameters& other) const;

    // The same slots over another element type, each payload converted
    // (rounded once to nearest even where U is narrower): the parameters of
    // Network::convert<U>() of this network, or a master copy's compute copy.
    template <Element U>
    Parameters<U> convert() const {
        std::vector<Tensor<U>> converted;
        converted.reserve(values_.size());
        for (const Tensor<T>& value : values_) {
            converted.push_back(value.template convert<U>());
        }
        return Parameters<U>(layout_, std::move(converted));
    }

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

private:
    friend struct detail::RunAccess;
    template <Element U>
    friend class Parameters;

    Parameters(std::shared_ptr<const detail::ParameterLayout> layout,
               std::vector<Tensor<T>> values);

    void check_same_slots(const Parameters& other) const;

    std::shared_ptr<const detail::ParameterLayout> layout_;
    std::vector<Tensor<T>> values_;
};

extern template class Parameters<float>;
extern template class Parameters<double>;
extern template class Parameters<bf16>;

}  // namespace topos
