// Elementwise kernels: one grid-stride loop per formula, each formula a functor
// so each launch compiles to its own loop. Formula<op> is defined for the
// elementwise opcodes the device computes; an opcode without one is served by
// the host's reference kernel. Transcendentals are CUDA's (within a few ulps;
// see docs/guide/backends.md).
#include "backend/cuda/device_kernels.hpp"
#include "backend/cuda/launch.cuh"

#include <array>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace topos::detail::cuda {
namespace {

template <Opcode op>
struct Formula;

// The formulas: `arity` operands, no attributes.
template <int operands>
struct Arity {
    static constexpr int arity = operands;
};

template <>
struct Formula<Opcode::Neg> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return -v;
    }
};

template <>
struct Formula<Opcode::Abs> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return fabs(v);
    }
};

template <>
struct Formula<Opcode::Sign> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return v > T(0) ? T(1) : (v < T(0) ? T(-1) : v);  // keeps +-0 and NaN
    }
};

template <>
struct Formula<Opcode::Exp> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return exp(v);
    }
};

template <>
struct Formula<Opcode::Expm1> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return expm1(v);
    }
};

template <>
struct Formula<Opcode::Log> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return log(v);
    }
};

template <>
struct Formula<Opcode::Log1p> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return log1p(v);
    }
};

template <>
struct Formula<Opcode::Sqrt> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return sqrt(v);
    }
};

template <>
struct Formula<Opcode::Rsqrt> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return T(1) / sqrt(v);
    }
};

template <>
struct Formula<Opcode::Square> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return v * v;
    }
};

template <>
struct Formula<Opcode::Sin> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return sin(v);
    }
};

template <>
struct Formula<Opcode::Cos> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return cos(v);
    }
};

template <>
struct Formula<Opcode::Tanh> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return tanh(v);
    }
};

template <>
struct Formula<Opcode::Sigmoid> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return T(1) / (T(1) + exp(-v));
    }
};

template <>
struct Formula<Opcode::Silu> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return v / (T(1) + exp(-v));
    }
};

template <>
struct Formula<Opcode::Floor> : Arity<1> {
    template <class T>
    __device__ T operator()(T v) const {
        return floor(v);
    }
};

template <>
struct Formula<Opcode::Add> : Arity<2> {
    template <class T>
    __device__ T operator()(T x, T y) const {
        return x + y;
    }
};

template <>
struct Formula<Opcode::Sub> : Arity<2> {
    template <class T>
    __device__ T operator()(T x, T y) const {
        return x - y;
    }
};

template <>
struct Formula<Opcode::Mul> : Arity<2> {
    template <class T>
    __device__ T operator()(T x, T y) const {
        return x * y;
    }
};

template <>
struct Formula<Opcode::Div> : Arity<2> {
    template <class T>
    __device__ T operator()(T x, T y) const {
        return x / y;
    }
};

// A NaN on either side propagates, as in the reference.
template <>
struct Formula<Opcode::Maximum> : Arity<2> {
    template <class T>
    __device__ T operator()(T x, T y) const {
        return (x >= y || x != x) ? x : y;
    }
};

template <>
struct Formula<Opcode::Minimum> : Arity<2> {
    template <class T>
    __device__ T operator()(T x, T y) const {
        return (x <= y || x != x) ? x : y;
    }
};

// Whether Formula<op> is defined (every specialisation above precedes this).
template <Opcode op, class = void>
struct HasFormula : std::false_type {};

template <Opcode op>
struct HasFormula<op, std::void_t<decltype(sizeof(Formula<op>))>> : std::true_type {};

template <class T, class F>
__global__ void map_one(const T* x, T* out, std::size_t count, F f) {
    for (std::size_t i = first_index(); i < count; i += grid_stride()) {
        out[i] = f(x[i]);
    }
}

template <class T, class F>
__global__ void map_two(const T* a, const T* b, T* out, std::size_t count, F f) {
    for (std::size_t i = first_index(); i < count; i += grid_stride()) {
        out[i] = f(a[i], b[i]);
    }
}

template <class T>
__global__ void choose(const T* mask, const T* a, const T* b, T* out, std::size_t count) {
    for (std::size_t i = first_index(); i < count; i += grid_stride()) {
        out[i] = mask[i] != T(0) ? a[i] : b[i];
    }
}

template <class T, class Holds>
__global__ void mask_of(const T* a, const T* b, T* out, std::size_t count, Holds holds) {
    for (std::size_t i = first_index(); i < count; i += grid_stride()) {
        out[i] = holds(a[i], b[i]) ? T(1) : T(0);
    }
}

// Launches Formula<op> when the device has it; false when it has none.
template <class T, Opcode op>
bool launch_formula(const T* const* operands, T* out, std::size_t count) {
    if constexpr (HasFormula<op>::value) {
        if constexpr (Formula<op>::arity == 1) {
            map_one<<<blocks_for(count), threads_per_block>>>(
                operands[0], out, count, Formula<op>{});
        } else {
            map_two<<<blocks_for(count), threads_per_block>>>(
                operands[0], operands[1], out, count, Formula<op>{});
        }
        check_launch("elementwise kernel");
        return true;
    } else {
        return false;
    }
}

// The same, for the opcode at position I of the list.
template <class T, std::size_t I>
bool launch_at(const T* const* operands, T* out, std::size_t count) {
    return launch_formula<T, static_cast<Opcode>(I)>(operands, out, count);
}

template <std::size_t I>
constexpr bool has_formula_at() {
    return HasFormula<static_cast<Opcode>(I)>::value;
}

template <class T>
using Launch = bool (*)(const T* const* operands, T* out, std::size_t count);

// By opcode: its launch (which returns false without a formula).
template <class T, std::size_t... I>
constexpr std::array<Launch<T>, opcode_count> launches(std::index_sequence<I...>) {
    return {&launch_at<T, I>...};
}

template <std::size_t... I>
constexpr std::array<bool, opcode_count> formulas(std::index_sequence<I...>) {
    return {has_formula_at<I>()...};
}

template <class T, class Holds>
void launch_mask(const T* a, const T* b, T* out, std::size_t count, Holds holds) {
    mask_of<<<blocks_for(count), threads_per_block>>>(a, b, out, count, holds);
    check_launch("comparison kernel");
}

}  // namespace

bool has_device_formula(Opcode opcode) {
    static constexpr std::array<bool, opcode_count> defined =
        formulas(std::make_index_sequence<opcode_count>());
    return defined[static_cast<std::size_t>(opcode)];
}

template <class T>
void map(Opcode opcode, const T* const* operands, T* out, std::size_t count) {
    if (count == 0) {
        return;
    }
    static constexpr std::array<Launch<T>, opcode_count> by_opcode =
        launches<T>(std::make_index_sequence<opcode_count>());
    if (!by_opcode[static_cast<std::size_t>(opcode)](operands, out, count)) {
        throw std::logic_error("CUDA backend: no device formula for an elementwise opcode");
    }
}

template <class T>
void compare(Comparison direction, const T* a, const T* b, T* out, std::size_t count) {
    if (count == 0) {
        return;
    }
    switch (direction) {
        case Comparison::Equal:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x == y; });
        case Comparison::NotEqual:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x != y; });
        case Comparison::Less:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x < y; });
        case Comparison::LessEqual:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x <= y; });
        case Comparison::Greater:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x > y; });
        case Comparison::GreaterEqual:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x >= y; });
    }
}

template <class T>
void select(const T* mask, const T* a, const T* b, T* out, std::size_t count) {
    if (count == 0) {
        return;
    }
    choose<<<blocks_for(count), threads_per_block>>>(mask, a, b, out, count);
    check_launch("select kernel");
}

template void map(Opcode, const float* const*, float*, std::size_t);
template void map(Opcode, const double* const*, double*, std::size_t);
template void compare(Comparison, const float*, const float*, float*, std::size_t);
template void compare(Comparison, const double*, const double*, double*, std::size_t);
template void select(const float*, const float*, const float*, float*, std::size_t);
template void select(const double*, const double*, const double*, double*, std::size_t);

}  // namespace topos::detail::cuda
