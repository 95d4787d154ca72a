// Value<T>'s elementwise methods: the unary functions, relu, maximum, minimum
// and pow, and the comparisons that record 0/1 masks (numpy broadcasting).
#include "core/shared_zeros.hpp"
#include "graph/value_helpers.hpp"
#include <topos/graph/value.hpp>

namespace topos {

// Each unary function records its opcode over the value alone.
#define TOPOS_UNARY_SPELLINGS(X) \
    X(abs, Abs)                  \
    X(sign, Sign)                \
    X(exp, Exp)                  \
    X(expm1, Expm1)              \
    X(log, Log)                  \
    X(log1p, Log1p)              \
    X(sqrt, Sqrt)                \
    X(rsqrt, Rsqrt)              \
    X(square, Square)            \
    X(sin, Sin)                  \
    X(cos, Cos)                  \
    X(tanh, Tanh)                \
    X(sigmoid, Sigmoid)          \
    X(erf, Erf)                  \
    X(gelu, Gelu)                \
    X(softplus, Softplus)        \
    X(silu, Silu)                \
    X(floor, Floor)              \
    X(hardtanh, Hardtanh)

#define TOPOS_UNARY_SPELLING(name, opcode)     \
    template <Element T>                       \
    Value<T> Value<T>::name() const {          \
        return apply(Opcode::opcode, {*this}); \
    }

TOPOS_UNARY_SPELLINGS(TOPOS_UNARY_SPELLING)
#undef TOPOS_UNARY_SPELLING

template <Element T>
Value<T> Value<T>::rounded_to(ElementType type) const {
    return apply(Opcode::Convert, {*this}, ConvertAttributes{type});
}

template <Element T>
Value<T> Value<T>::relu() const {
    return maximum(detail::constant(*this, detail::shared_zeros<T>(shape())));
}

template <Element T>
Value<T> Value<T>::maximum(const Value& other) const {
    return detail::broadcast_binary(Opcode::Maximum, *this, other);
}

template <Element T>
Value<T> Value<T>::minimum(const Value& other) const {
    return detail::broadcast_binary(Opcode::Minimum, *this, other);
}

template <Element T>
Value<T> Value<T>::pow(const Value& exponent) const {
    return detail::broadcast_binary(Opcode::Pow, *this, exponent);
}

template <Element T>
Value<T> Value<T>::compare(const Value& other, Comparison direction) const {
    return detail::broadcast_binary(Opcode::Compare, *this, other, CompareAttributes{direction});
}

template <Element T>
Value<T> Value<T>::equal(const Value& other) const {
    return compare(other, Comparison::Equal);
}

template <Element T>
Value<T> Value<T>::not_equal(const Value& other) const {
    return compare(other, Comparison::NotEqual);
}

template <Element T>
Value<T> Value<T>::less(const Value& other) const {
    return compare(other, Comparison::Less);
}

template <Element T>
Value<T> Value<T>::less_equal(const Value& other) const {
    return compare(other, Comparison::LessEqual);
}

template <Element T>
Value<T> Value<T>::greater(const Value& other) const {
    return compare(other, Comparison::Greater);
}

template <Element T>
Value<T> Value<T>::greater_equal(const Value& other) const {
    return compare(other, Comparison::GreaterEqual);
}

#define TOPOS_INSTANTIATE_UNARY(name, opcode)           \
    template Value<float> Value<float>::name() const;   \
    template Value<double> Value<double>::name() const; \
    template Value<bf16> Value<bf16>::name() const;
TOPOS_UNARY_SPELLINGS(TOPOS_INSTANTIATE_UNARY)
#undef TOPOS_INSTANTIATE_UNARY
#undef TOPOS_UNARY_SPELLINGS

#define TOPOS_INSTANTIATE(T)                                                \
    template Value<T> Value<T>::rounded_to(ElementType) const;              \
    template Value<T> Value<T>::relu() const;                               \
    template Value<T> Value<T>::maximum(const Value<T>&) const;             \
    template Value<T> Value<T>::minimum(const Value<T>&) const;             \
    template Value<T> Value<T>::pow(const Value<T>&) const;                 \
    template Value<T> Value<T>::compare(const Value<T>&, Comparison) const; \
    template Value<T> Value<T>::equal(const Value<T>&) const;               \
    template Value<T> Value<T>::not_equal(const Value<T>&) const;           \
    template Value<T> Value<T>::less(const Value<T>&) const;                \
    template Value<T> Value<T>::less_equal(const Value<T>&) const;          \
    template Value<T> Value<T>::greater(const Value<T>&) const;             \
    template Value<T> Value<T>::greater_equal(const Value<T>&) const;
TOPOS_INSTANTIATE(float)
TOPOS_INSTANTIATE(double)
TOPOS_INSTANTIATE(bf16)
#undef TOPOS_INSTANTIATE

}  // namespace topos
