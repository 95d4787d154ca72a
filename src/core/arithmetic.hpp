// The type arithmetic on an element is done in: float for bf16 (widened
// exactly; the result rounds back once where it is stored as bf16), the
// element type itself for float and double.
#pragma once

#include <topos/core/tensor.hpp>

#include <concepts>
#include <type_traits>

namespace topos::detail {

template <Element T>
using Arithmetic = std::conditional_t<std::same_as<T, bf16>, float, T>;

template <Element T>
Arithmetic<T> widen(T value) {
    return static_cast<Arithmetic<T>>(value);
}

}  // namespace topos::detail
