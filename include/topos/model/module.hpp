// The module protocol: a module is built on a tape (creating its parameters
// there), `express(value)` records its forward on that value's tape and returns
// the result, `parameters()` lists its parameter values in a fixed order, and
// `describe()` says in a few readable lines what it holds. Modules own no
// payloads: the network's Parameters<T> do, so a module is only a recipe.
#pragma once

#include <topos/graph/value.hpp>

#include <concepts>
#include <string>
#include <type_traits>
#include <vector>

namespace topos {

template <class M, class T>
concept Module = Element<T> && requires(const M& module, const Value<T>& x) {
    { module.express(x) } -> std::same_as<Value<T>>;
    { module.parameters() } -> std::same_as<std::vector<Value<T>>>;
    { module.describe() } -> std::convertible_to<std::string>;
};

// The parameters of several modules, in the order given: what
// Tape::differentiate takes as its `wrt`. The element type comes from the
// modules (`parameters_of(conv, fc)`), or is given (`parameters_of<float>(...)`).
template <Element T, class... Modules>
std::vector<Value<T>> parameters_of(const Modules&... modules) {
    std::vector<Value<T>> all;
    (
        [&] {
            for (const Value<T>& parameter : modules.parameters()) {
                all.push_back(parameter);
            }
        }(),
        ...);
    return all;
}

namespace detail {
template <class Values>
struct ParameterElement;

template <Element T>
struct ParameterElement<std::vector<Value<T>>> {
    using type = T;
};
}  // namespace detail

// parameters_of(conv, fc): the element type deduced from the first module's parameters.
template <class First, class... Rest>

requires(!Element<First>) && requires(const First& first) {
    first.parameters();
}

auto parameters_of(const First& first, const Rest&... rest) {
    using T =
        typename detail::ParameterElement<std::remove_cvref_t<decltype(first.parameters())>>::type;
    return parameters_of<T>(first, rest...);
}

}  // namespace topos
