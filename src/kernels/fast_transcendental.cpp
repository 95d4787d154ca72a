// fast_map's loops: one per function and instruction set, each element
// computed alone by fast_math.hpp's branch-free functions, which the compiler
// turns into vector lanes. flatten inlines the function into the loop, so it
// is compiled for the loop's target.
#include "kernels/fast_transcendental.hpp"

#include "core/thread_pool.hpp"
#include "kernels/fast_math.hpp"

#include <algorithm>

namespace topos::detail {
namespace {

// A block costs about 2 us at the vector rate, enough to be worth a wake-up of
// the pool.
constexpr std::size_t block = 8192;

template <class F>
void loop_portable(const float* x, float* out, std::size_t count, F f) {
    for (std::size_t i = 0; i < count; ++i) {
        out[i] = f(x[i]);
    }
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TOPOS_HAS_FAST_LANES 1

template <class F>
__attribute__((target("avx2,fma"), flatten)) void loop_avx2(const float* x,
                                                            float* out,
                                                            std::size_t count,
                                                            F f) {
    for (std::size_t i = 0; i < count; ++i) {
        out[i] = f(x[i]);
    }
}

template <class F>
__attribute__((target("avx512f,avx512dq,avx512vl,fma"), flatten)) void loop_avx512(
    const float* x, float* out, std::size_t count, F f) {
    for (std::size_t i = 0; i < count; ++i) {
        out[i] = f(x[i]);
    }
}
#endif

template <class F>
void loop_on([[maybe_unused]] Isa set, const float* x, float* out, std::size_t count, F f) {
#if defined(TOPOS_HAS_FAST_LANES)
    if (set == Isa::Avx512) {
        loop_avx512(x, out, count, f);
        return;
    }
    if (set == Isa::Avx2) {
        loop_avx2(x, out, count, f);
        return;
    }
#endif
    loop_portable(x, out, count, f);
}

// visit(g) with g the Fast lanes' function f (a lambda, so that each loop is
// compiled with its function inlined).
template <class Visit>
decltype(auto) with_function(ExactFunction f, Visit visit) {
    switch (f) {
        case ExactFunction::Exp:
            return visit([](float v) { return fast::exp(v); });
        case ExactFunction::Tanh:
            return visit([](float v) { return fast::tanh(v); });
        case ExactFunction::Sigmoid:
            return visit([](float v) { return fast::sigmoid(v); });
        case ExactFunction::Erf:
            return visit([](float v) { return fast::erf(v); });
        case ExactFunction::Gelu:
            return visit([](float v) { return fast::gelu(v); });
        case ExactFunction::Log:
            return visit([](float v) { return fast::log(v); });
        case ExactFunction::Softplus:
            return visit([](float v) { return fast::softplus(v); });
    }
    return visit([](float v) { return v; });
}

}  // namespace

float fast_of(ExactFunction f, float x) {
    return with_function(f, [x](auto function) { return function(x); });
}

void fast_map_on(Isa set, ExactFunction f, const float* x, float* out, std::size_t count) {
    with_function(f, [&](auto function) { loop_on(set, x, out, count, function); });
}

void fast_map(ExactFunction f, const float* x, float* out, std::size_t count) {
    const Isa set = isa();
    if (count < 2 * block) {
        fast_map_on(set, f, x, out, count);
        return;
    }
    ThreadPool::instance().run((count + block - 1) / block, [&](std::size_t index) {
        const std::size_t begin = index * block;
        fast_map_on(set, f, x + begin, out + begin, std::min(count, begin + block) - begin);
    });
}

}  // namespace topos::detail
