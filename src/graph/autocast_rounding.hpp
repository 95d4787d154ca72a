// What an open Autocast does to a product's operands and result: rounds them
// to its type where that is narrower than the tape's.
#pragma once

#include <topos/graph/autocast.hpp>
#include <topos/graph/value.hpp>

#include <concepts>

namespace topos::detail {

// Whether rounding a T to `type` can change it.
template <Element T>
constexpr bool narrower_than(ElementType type) {
    if constexpr (std::same_as<T, float>) {
        return type == ElementType::BF16;
    } else if constexpr (std::same_as<T, double>) {
        return type != ElementType::F64;
    } else {
        return false;
    }
}

// `value` rounded to the open Autocast's type, or `value` itself.
template <Element T>
Value<T> autocast_rounded(const Value<T>& value) {
    const std::optional<ElementType> type = Autocast::current();
    return type && narrower_than<T>(*type) ? value.rounded_to(*type) : value;
}

}  // namespace topos::detail
