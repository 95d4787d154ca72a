// exact_map's dispatch: the instruction set the kernels use now (topos::isa),
// and the pool's threads for long buffers, in blocks whose elements are each
// computed alone (so neither choice changes a bit).
#include "kernels/transcendental.hpp"

#include "core/exact_math.hpp"
#include "core/thread_pool.hpp"
#include <topos/core/isa.hpp>

#include <algorithm>

namespace topos::detail {
namespace {

// A block costs about 10 us at the vector rate of 2-3 ns an element, enough to
// be worth a wake-up of the pool.
constexpr std::size_t block = 4096;

template <Element T, class F>
void scalar_loop(const T* x, T* out, std::size_t count, F f) {
    for (std::size_t i = 0; i < count; ++i) {
        out[i] = f(x[i]);
    }
}

}  // namespace

std::string_view name_of(ExactFunction f) {
    switch (f) {
        case ExactFunction::Exp:
            return "exp";
        case ExactFunction::Tanh:
            return "tanh";
        case ExactFunction::Sigmoid:
            return "sigmoid";
        case ExactFunction::Erf:
            return "erf";
        case ExactFunction::Gelu:
            return "gelu";
        case ExactFunction::Log:
            return "log";
        case ExactFunction::Softplus:
            return "softplus";
    }
    return "?";
}

template <Element T>
void exact_map_on(
    [[maybe_unused]] Isa set, ExactFunction f, const T* x, T* out, std::size_t count) {
#if defined(__x86_64__)
    if (set == Isa::Avx512) {
        exact_map_avx512(f, x, out, count);
        return;
    }
    if (set == Isa::Avx2) {
        exact_map_avx2(f, x, out, count);
        return;
    }
#endif
    exact_map_portable(f, x, out, count);
}

template <Element T>
void exact_map_portable(ExactFunction f, const T* x, T* out, std::size_t count) {
    switch (f) {
        case ExactFunction::Exp:
            scalar_loop(x, out, count, [](T v) { return exact::exp(v); });
            return;
        case ExactFunction::Tanh:
            scalar_loop(x, out, count, [](T v) { return exact::tanh(v); });
            return;
        case ExactFunction::Sigmoid:
            scalar_loop(x, out, count, [](T v) { return exact::sigmoid(v); });
            return;
        case ExactFunction::Erf:
            scalar_loop(x, out, count, [](T v) { return exact::erf(v); });
            return;
        case ExactFunction::Gelu:
            scalar_loop(x, out, count, [](T v) { return exact::gelu(v); });
            return;
        case ExactFunction::Log:
            scalar_loop(x, out, count, [](T v) { return exact::log(v); });
            return;
        case ExactFunction::Softplus:
            scalar_loop(x, out, count, [](T v) { return exact::softplus(v); });
            return;
    }
}

template <Element T>
void exact_map_on_this_thread(ExactFunction f, const T* x, T* out, std::size_t count) {
    exact_map_on(isa(), f, x, out, count);
}

template <Element T>
void exact_map(ExactFunction f, const T* x, T* out, std::size_t count) {
    if (count < 2 * block) {
        exact_map_on_this_thread(f, x, out, count);
        return;
    }
    ThreadPool::instance().run((count + block - 1) / block, [&](std::size_t index) {
        const std::size_t begin = index * block;
        exact_map_on_this_thread(f, x + begin, out + begin, std::min(count, begin + block) - begin);
    });
}

template void exact_map<float>(ExactFunction, const float*, float*, std::size_t);
template void exact_map<double>(ExactFunction, const double*, double*, std::size_t);
template void exact_map_on_this_thread<float>(ExactFunction, const float*, float*, std::size_t);
template void exact_map_on_this_thread<double>(ExactFunction, const double*, double*, std::size_t);
template void exact_map_on<float>(Isa, ExactFunction, const float*, float*, std::size_t);
template void exact_map_on<double>(Isa, ExactFunction, const double*, double*, std::size_t);
template void exact_map_portable<float>(ExactFunction, const float*, float*, std::size_t);
template void exact_map_portable<double>(ExactFunction, const double*, double*, std::size_t);

}  // namespace topos::detail
