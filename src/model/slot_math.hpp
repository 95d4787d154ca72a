// Private helpers of the optimizers and clipping: a check that several
// Parameters share one network's slots, and zero-filled copies.
#pragma once

#include <topos/core/error.hpp>
#include <topos/run/parameters.hpp>

#include <string>
#include <utility>
#include <vector>

namespace topos::detail {

template <Element T>
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

template <Element T>
Parameters<T> zeros_like(const Parameters<T>& parameters) {
    std::vector<Tensor<T>> zeros;
    for (const Tensor<T>& value : parameters.values()) {
        zeros.push_back(Tensor<T>::filled(value.shape(), T{0}));
    }
    return parameters.with_values(std::move(zeros));
}

}  // namespace topos::detail
