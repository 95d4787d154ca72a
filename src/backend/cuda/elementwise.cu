// Elementwise kernels: one grid-stride loop per operation, the operation a
// functor so each launch compiles to its own loop. Transcendentals are CUDA's
// (within a few ulps; see docs/guide/backends.md).
#include "backend/cuda/device_kernels.hpp"
#include "backend/cuda/launch.cuh"

namespace topos::detail::cuda {
namespace {

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

template <class T, class F>
void launch_one(const T* x, T* out, std::size_t count, F f) {
    map_one<<<blocks_for(count), threads_per_block>>>(x, out, count, f);
    check_launch("unary kernel");
}

template <class T, class F>
void launch_two(const T* a, const T* b, T* out, std::size_t count, F f) {
    map_two<<<blocks_for(count), threads_per_block>>>(a, b, out, count, f);
    check_launch("binary kernel");
}

template <class T, class Holds>
void launch_mask(const T* a, const T* b, T* out, std::size_t count, Holds holds) {
    launch_two(
        a, b, out, count, [holds] __device__(T x, T y) { return holds(x, y) ? T(1) : T(0); });
}

}  // namespace

template <class T>
void unary(UnaryOp op, const T* x, T* out, std::size_t count) {
    if (count == 0) {
        return;
    }
    switch (op) {
        case UnaryOp::Neg:
            return launch_one(x, out, count, [] __device__(T v) { return -v; });
        case UnaryOp::Abs:
            return launch_one(x, out, count, [] __device__(T v) { return fabs(v); });
        case UnaryOp::Sign:
            return launch_one(x, out, count, [] __device__(T v) {
                return v > T(0) ? T(1) : (v < T(0) ? T(-1) : v);  // keeps +-0 and NaN
            });
        case UnaryOp::Exp:
            return launch_one(x, out, count, [] __device__(T v) { return exp(v); });
        case UnaryOp::Expm1:
            return launch_one(x, out, count, [] __device__(T v) { return expm1(v); });
        case UnaryOp::Log:
            return launch_one(x, out, count, [] __device__(T v) { return log(v); });
        case UnaryOp::Log1p:
            return launch_one(x, out, count, [] __device__(T v) { return log1p(v); });
        case UnaryOp::Sqrt:
            return launch_one(x, out, count, [] __device__(T v) { return sqrt(v); });
        case UnaryOp::Rsqrt:
            return launch_one(x, out, count, [] __device__(T v) { return T(1) / sqrt(v); });
        case UnaryOp::Square:
            return launch_one(x, out, count, [] __device__(T v) { return v * v; });
        case UnaryOp::Sin:
            return launch_one(x, out, count, [] __device__(T v) { return sin(v); });
        case UnaryOp::Cos:
            return launch_one(x, out, count, [] __device__(T v) { return cos(v); });
        case UnaryOp::Tanh:
            return launch_one(x, out, count, [] __device__(T v) { return tanh(v); });
        case UnaryOp::Sigmoid:
            return launch_one(
                x, out, count, [] __device__(T v) { return T(1) / (T(1) + exp(-v)); });
    }
}

template <class T>
void binary(BinaryOp op, const T* a, const T* b, T* out, std::size_t count) {
    if (count == 0) {
        return;
    }
    switch (op) {
        case BinaryOp::Add:
            return launch_two(a, b, out, count, [] __device__(T x, T y) { return x + y; });
        case BinaryOp::Sub:
            return launch_two(a, b, out, count, [] __device__(T x, T y) { return x - y; });
        case BinaryOp::Mul:
            return launch_two(a, b, out, count, [] __device__(T x, T y) { return x * y; });
        case BinaryOp::Div:
            return launch_two(a, b, out, count, [] __device__(T x, T y) { return x / y; });
        case BinaryOp::Maximum:  // a NaN on either side propagates, as in the reference
            return launch_two(
                a, b, out, count, [] __device__(T x, T y) { return (x >= y || x != x) ? x : y; });
        case BinaryOp::Minimum:
            return launch_two(
                a, b, out, count, [] __device__(T x, T y) { return (x <= y || x != x) ? x : y; });
        case BinaryOp::Equal:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x == y; });
        case BinaryOp::NotEqual:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x != y; });
        case BinaryOp::Less:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x < y; });
        case BinaryOp::LessEqual:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x <= y; });
        case BinaryOp::Greater:
            return launch_mask(a, b, out, count, [] __device__(T x, T y) { return x > y; });
        case BinaryOp::GreaterEqual:
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

template void unary(UnaryOp, const float*, float*, std::size_t);
template void unary(UnaryOp, const double*, double*, std::size_t);
template void binary(BinaryOp, const float*, const float*, float*, std::size_t);
template void binary(BinaryOp, const double*, const double*, double*, std::size_t);
template void select(const float*, const float*, const float*, float*, std::size_t);
template void select(const double*, const double*, const double*, double*, std::size_t);

}  // namespace topos::detail::cuda
