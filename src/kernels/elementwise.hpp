// Elementwise loops: out[i] = f(i), each element computed alone, so neither the
// AVX2 + FMA or AVX-512 copy of a loop nor sharing it among threads changes a
// bit. Also the shape walks the layout kernels share.
#pragma once

#include "core/thread_pool.hpp"
#include <topos/core/isa.hpp>
#include <topos/core/shape.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace topos::detail {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TOPOS_HAS_AVX2_LOOPS 1
// flatten inlines every call, so the callees are compiled for AVX2 and FMA too;
// their out-of-line copies keep the default target.
#define TOPOS_AVX2_FMA_LOOP __attribute__((target("avx2,fma"), flatten))
#define TOPOS_AVX512_LOOP \
    __attribute__((target("avx512f,avx512bw,avx512dq,avx512vl,avx2,fma"), flatten))
#endif

// Whether the loops run their copies compiled for AVX2 and FMA (topos::isa()
// is at least Avx2). There std::fma is one instruction instead of a call into
// libm, and loops without branches get vector lanes. The values are bit for
// bit the same: exact code never depends on contraction (the library builds
// with -ffp-contract=off), fma is exactly rounded either way, and lanes compute
// each element independently.
inline bool runs_avx2_fma() {
    return isa() >= Isa::Avx2;
}

// Whether the processor has the AVX-512 extensions the loops' AVX-512 copies
// are compiled for (F, BW, DQ and VL: every AVX-512 processor since
// Skylake-SP), checked once as the dispatcher checks AVX-512F.
inline bool has_avx512_loop_extensions() {
#if defined(TOPOS_HAS_AVX2_LOOPS)
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
               __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl");
    }();
    return has;
#else
    return false;
#endif
}

// Whether the loops run their AVX-512 copies, twice the lanes of the AVX2
// ones (topos::isa() is Avx512), with the same bits for the same reasons.
inline bool runs_avx512_loops() {
    return isa() == Isa::Avx512 && has_avx512_loop_extensions();
}

template <class F>
void index_loop(std::size_t begin, std::size_t end, F f) {
    for (std::size_t i = begin; i < end; ++i) {
        f(i);
    }
}

#if defined(TOPOS_HAS_AVX2_LOOPS)
template <class F>
TOPOS_AVX2_FMA_LOOP void index_loop_avx2_fma(std::size_t begin, std::size_t end, F f) {
    for (std::size_t i = begin; i < end; ++i) {
        f(i);
    }
}

template <class F>
TOPOS_AVX512_LOOP void index_loop_avx512(std::size_t begin, std::size_t end, F f) {
    for (std::size_t i = begin; i < end; ++i) {
        f(i);
    }
}
#endif

// f(i) for every i in [begin, end), on the AVX2 + FMA copy of the loop where
// the processor has it. f must compute each index alone.
template <class F>
void each_index(std::size_t begin, std::size_t end, const F& f) {
#if defined(TOPOS_HAS_AVX2_LOOPS)
    if (runs_avx512_loops()) {
        index_loop_avx512(begin, end, f);
        return;
    }
    if (runs_avx2_fma()) {
        index_loop_avx2_fma(begin, end, f);
        return;
    }
#endif
    index_loop(begin, end, f);
}

template <class T, class F>
void elementwise_range(std::size_t begin, std::size_t end, T* out, const F& f) {
    each_index(begin, end, [out, &f](std::size_t i) { out[i] = f(i); });
}

// Elements per task when an elementwise loop is shared among the pool's
// threads; loops shorter than four chunks stay on the calling thread, where
// waking the pool would cost more than it saves.
inline constexpr std::size_t elementwise_chunk = 8192;

// range(begin, end) over [0, count) units of `unit_elements` elements each
// (planes, lines, or single elements): in tasks of about elementwise_chunk
// elements on the library's threads when there are at least four chunks'
// worth, else in one call on the calling thread. For loops whose units are
// each computed alone, so the split never changes a bit.
template <class F>
void for_each_range(std::size_t count, std::size_t unit_elements, F&& range) {
    const std::size_t unit = std::max<std::size_t>(1, unit_elements);
    if (count * unit < 4 * elementwise_chunk) {
        range(std::size_t{0}, count);
        return;
    }
    const std::size_t per_task = std::max<std::size_t>(1, elementwise_chunk / unit);
    ThreadPool::instance().run((count + per_task - 1) / per_task, [&](std::size_t task) {
        const std::size_t begin = task * per_task;
        range(begin, std::min(count, begin + per_task));
    });
}

// for_each_range over single elements.
template <class F>
void for_each_chunk(std::size_t count, F&& range) {
    for_each_range(count, 1, range);
}

// out[i] = f(i) for i < count: on the AVX2 + FMA copy where the processor has
// it, in chunks on the library's threads when it is long. Every element
// is computed alone, so neither changes a bit.
template <class T, class F>
void elementwise(std::size_t count, T* out, F f) {
    for_each_chunk(
        count, [&](std::size_t begin, std::size_t end) { elementwise_range(begin, end, out, f); });
}

// std::copy_n for the runs of the layout kernels, which along an innermost
// axis are often a few elements (a window's taps, a single element): below
// eight, pieces of 4, 2 and 1 elements in fixed-size copies, which compilers
// inline, where a call to memmove would cost more than the copy.
template <class T>
T* copy_run(const T* from, std::size_t count, T* to) {
    if (count >= 8) {
        return std::copy_n(from, count, to);
    }
    for (const std::size_t part : {std::size_t{4}, std::size_t{2}, std::size_t{1}}) {
        if ((count & part) != 0) {
            std::memcpy(static_cast<void*>(to), from, part * sizeof(T));
            to += part;
            from += part;
        }
    }
    return to;
}

// A shape seen as [outer, extent, inner] around one axis.
struct AxisSplit {
    std::size_t outer;
    std::size_t extent;
    std::size_t inner;
};

inline AxisSplit split_at(const Shape& shape, std::size_t axis) {
    AxisSplit split{1, shape[axis], 1};
    for (std::size_t i = 0; i < axis; ++i) {
        split.outer *= shape[i];
    }
    for (std::size_t i = axis + 1; i < shape.rank(); ++i) {
        split.inner *= shape[i];
    }
    return split;
}

}  // namespace topos::detail
