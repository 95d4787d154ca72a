// Private helpers of the optimizers and clipping: a check that several
// Parameters share one network's slots, zero-filled copies, the buffers a
// step writes (fresh, or the caller's own when it gives them up).
#pragma once

#include "core/tensor_access.hpp"
#include "run/access.hpp"
#include <topos/core/error.hpp>
#include <topos/run/parameters.hpp>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace topos::detail {

template <ComputeElement T>
void check_same_network(const Parameters<T>& parameters,
                        const Parameters<T>& other,
                        const std::string& what) {
    if (!parameters.same_slots(other)) {
        throw SymbolError("the " + what +
                          " were made for another network than the parameters; pass the "
                          "gradients and state of this network (optimizer.start(parameters) "
                          "makes a fresh state)");
    }
}

template <ComputeElement T>
Parameters<T> zeros_like(const Parameters<T>& parameters) {
    std::vector<Tensor<T>> zeros;
    for (const Tensor<T>& value : parameters.values()) {
        zeros.push_back(Tensor<T>::filled(value.shape(), T{0}));
    }
    return parameters.with_values(std::move(zeros));
}

// Fresh buffers, one per slot of `like`, that a pure step writes and then
// hands to a Parameters of the same network (adopt).
template <ComputeElement T>
class FreshSlots {
public:
    explicit FreshSlots(const Parameters<T>& like) : like_(like) {
        for (const Tensor<T>& value : like.values()) {
            buffers_.push_back(TensorAccess::allocate<T>(value.shape().elements()));
        }
    }

    T* operator[](std::size_t slot) const { return buffers_[slot].get(); }

    Parameters<T> adopt() && {
        std::vector<Tensor<T>> values;
        values.reserve(buffers_.size());
        for (std::size_t slot = 0; slot < buffers_.size(); ++slot) {
            values.push_back(
                TensorAccess::adopt<T>(like_.values()[slot].shape(), std::move(buffers_[slot])));
        }
        return like_.with_values(std::move(values));
    }

private:
    const Parameters<T>& like_;
    std::vector<std::shared_ptr<T[]>> buffers_;
};

// The elements of one slot of `parameters` to overwrite in place: its own
// buffer, or a copy where another Parameters still shares the tensor.
template <ComputeElement T>
T* writable_slot(Parameters<T>& parameters, std::size_t slot) {
    return TensorAccess::writable(RunAccess::values(parameters)[slot]).data();
}

}  // namespace topos::detail
