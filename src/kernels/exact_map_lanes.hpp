// exact_map over one lane set: whole vectors through exact_lanes.hpp (float
// vectors through float_shortcut.hpp first), a vector whose lanes the lane
// code does not cover through the scalar functions, and the tail as one padded
// vector. Included by transcendental_avx2.cpp and transcendental_avx512.cpp
// where their target is pushed, after core/exact_math.hpp (which must keep the
// default target: its inline functions are shared with every other file).
#pragma once

#include "kernels/exact_lanes.hpp"
#include "kernels/float_shortcut.hpp"
#include "kernels/transcendental.hpp"

#include <algorithm>
#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>

namespace topos::detail::lanes {

// How many vectors the main loop computes side by side: four, or two for log
// and softplus, whose many values alive at once would not fit the registers
// four times over (measured: four is slower for them on AVX2 and AVX-512).
template <ExactFunction F>
inline constexpr std::size_t interleaving =
    F == ExactFunction::Log || F == ExactFunction::Softplus ? 2 : 4;

// Templated on the lane set too, so that each target's copy is its own
// function (one inline function compiled for two targets would be one symbol).
template <class L, class T>
inline T scalar_of(ExactFunction f, T x) {
    switch (f) {
        case ExactFunction::Exp:
            return topos::exact::exp(x);
        case ExactFunction::Tanh:
            return topos::exact::tanh(x);
        case ExactFunction::Sigmoid:
            return topos::exact::sigmoid(x);
        case ExactFunction::Erf:
            return topos::exact::erf(x);
        case ExactFunction::Gelu:
            return topos::exact::gelu(x);
        case ExactFunction::Log:
            return topos::exact::log(x);
        case ExactFunction::Softplus:
            return topos::exact::softplus(x);
    }
    return x;
}

// U vectors of L as one lane set, each operation applied to each in turn. The
// algorithm is one long chain of dependent operations (about 70, two of them
// divisions): interleaving U independent chains in program order lets the
// processor overlap them, where one chain a vector would leave it waiting.
template <class L, std::size_t U>
struct Interleaved {
    struct V {
        typename L::V part[U];
    };

    struct M {
        typename L::M part[U];
    };

    static constexpr std::size_t width = L::width * U;

    // (Plain loops, no lambdas: g++ 12 compiles a lambda without the target
    // the file pushes, and its vectors then lose their upper halves.)
    static V splat(double c) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::splat(c);
        }
        return r;
    }

    template <class T>
    static V load(const T* p) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::load(p + i * L::width);
        }
        return r;
    }

    template <class T>
    static void store(T* p, V v) {
        for (std::size_t i = 0; i < U; ++i) {
            L::store(p + i * L::width, v.part[i]);
        }
    }

    static V add(V a, V b) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::add(a.part[i], b.part[i]);
        }
        return r;
    }

    static V sub(V a, V b) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::sub(a.part[i], b.part[i]);
        }
        return r;
    }

    static V mul(V a, V b) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::mul(a.part[i], b.part[i]);
        }
        return r;
    }

    static V div(V a, V b) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::div(a.part[i], b.part[i]);
        }
        return r;
    }

    static V xor_bits(V a, V b) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::xor_bits(a.part[i], b.part[i]);
        }
        return r;
    }

    static V fma(V a, V b, V c) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::fma(a.part[i], b.part[i], c.part[i]);
        }
        return r;
    }

    static V negate(V a) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::negate(a.part[i]);
        }
        return r;
    }

    static V magnitude(V a) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::magnitude(a.part[i]);
        }
        return r;
    }

    static V sign_of(V a) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::sign_of(a.part[i]);
        }
        return r;
    }

    static V exponent_field(V a) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::exponent_field(a.part[i]);
        }
        return r;
    }

    static V unit_mantissa(V a) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::unit_mantissa(a.part[i]);
        }
        return r;
    }

    static M low_bits_outside(V a, std::uint64_t mask, std::uint64_t start, int width_log2) {
        M r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::low_bits_outside(a.part[i], mask, start, width_log2);
        }
        return r;
    }

    static V pick(V piece, const std::array<double, 4>& row) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::pick(piece.part[i], row);
        }
        return r;
    }

    static V pow2(V a) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::pow2(a.part[i]);
        }
        return r;
    }

    static M lt(V a, V b) {
        M r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::lt(a.part[i], b.part[i]);
        }
        return r;
    }

    static M le(V a, V b) {
        M r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::le(a.part[i], b.part[i]);
        }
        return r;
    }

    static M gt(V a, V b) {
        M r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::gt(a.part[i], b.part[i]);
        }
        return r;
    }

    static M ge(V a, V b) {
        M r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::ge(a.part[i], b.part[i]);
        }
        return r;
    }

    static M eq(V a, V b) {
        M r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::eq(a.part[i], b.part[i]);
        }
        return r;
    }

    static M unordered(V a) {
        M r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::unordered(a.part[i]);
        }
        return r;
    }

    static M both(M a, M b) {
        M r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::both(a.part[i], b.part[i]);
        }
        return r;
    }

    static M either(M a, M b) {
        M r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::either(a.part[i], b.part[i]);
        }
        return r;
    }

    // The parts' masks merged first: one test and one branch, not U.
    static bool all(M m) {
        typename L::M every = m.part[0];
        for (std::size_t i = 1; i < U; ++i) {
            every = L::both(every, m.part[i]);
        }
        return L::all(every);
    }

    static bool any(M m) {
        typename L::M some = m.part[0];
        for (std::size_t i = 1; i < U; ++i) {
            some = L::either(some, m.part[i]);
        }
        return L::any(some);
    }

    static V select(M m, V if_set, V if_clear) {
        V r{};
        for (std::size_t i = 0; i < U; ++i) {
            r.part[i] = L::select(m.part[i], if_set.part[i], if_clear.part[i]);
        }
        return r;
    }
};

template <class L, ExactFunction F>
TOPOS_LANES_INLINE shortcut::Result<L> shortcut_of(typename L::V v) {
    if constexpr (F == ExactFunction::Exp) {
        return shortcut::exp<L>(v);
    } else if constexpr (F == ExactFunction::Tanh) {
        return shortcut::tanh<L>(v);
    } else if constexpr (F == ExactFunction::Sigmoid) {
        return shortcut::sigmoid<L>(v);
    } else if constexpr (F == ExactFunction::Erf) {
        return shortcut::erf<L>(v);
    } else if constexpr (F == ExactFunction::Gelu) {
        return shortcut::gelu<L>(v);
    } else if constexpr (F == ExactFunction::Log) {
        return shortcut::log<L>(v);
    } else {
        return shortcut::softplus<L>(v);
    }
}

// Whole vectors of L from x[i] on, while they fit; answers where they stopped.
// A float vector whose shortcut (float_shortcut.hpp) decides every lane is
// stored from it.
template <class L, ExactFunction F, class T>
inline std::size_t map_vectors(const T* x, T* out, std::size_t i, std::size_t count) {
    for (; i + L::width <= count; i += L::width) {
        const typename L::V v = L::load(x + i);
        if constexpr (std::same_as<T, float>) {
            const shortcut::Result<L> s = shortcut_of<L, F>(v);
            if (L::all(s.kept)) {
                L::store(out + i, s.value);
                continue;
            }
        }
        typename L::V r{};
        bool covered = true;
        if constexpr (F == ExactFunction::Tanh) {
            r = lanes::tanh<L>(v);
        } else if constexpr (F == ExactFunction::Exp) {
            covered = exp_covers<L>(v);
            r = lanes::exp<L>(v);
        } else if constexpr (F == ExactFunction::Sigmoid) {
            covered = sigmoid_covers<L>(v);
            r = lanes::sigmoid<L>(v);
        } else if constexpr (F == ExactFunction::Erf) {
            r = lanes::erf<L>(v);
        } else if constexpr (F == ExactFunction::Gelu) {
            covered = gelu_covers<L>(v);
            r = lanes::gelu<L>(v);
        } else if constexpr (F == ExactFunction::Log) {
            r = lanes::log<L>(v);
        } else {
            covered = softplus_covers<L>(v);
            r = lanes::softplus<L>(v);
        }
        if (covered) {
            L::store(out + i, r);
        } else {
            for (std::size_t j = i; j < i + L::width; ++j) {
                out[j] = scalar_of<L>(F, x[j]);
            }
        }
    }
    return i;
}

template <class L, ExactFunction F, class T>
inline void map_with(const T* x, T* out, std::size_t count) {
    std::size_t i = map_vectors<Interleaved<L, interleaving<F>>, F>(x, out, 0, count);
    i = map_vectors<L, F>(x, out, i, count);
    if (i == count) {
        return;
    }
    // The tail as one vector padded with ones (a harmless argument for every
    // function): each lane's result is its own, so the tail's bits are the
    // scalar functions' too.
    std::array<T, L::width> tail{};
    tail.fill(T{1});
    std::copy(x + i, x + count, tail.begin());
    map_vectors<L, F>(tail.data(), tail.data(), 0, L::width);
    std::copy_n(tail.begin(), count - i, out + i);
}

template <class L, class T>
inline void map(ExactFunction f, const T* x, T* out, std::size_t count) {
    switch (f) {
        case ExactFunction::Exp:
            map_with<L, ExactFunction::Exp>(x, out, count);
            return;
        case ExactFunction::Tanh:
            map_with<L, ExactFunction::Tanh>(x, out, count);
            return;
        case ExactFunction::Sigmoid:
            map_with<L, ExactFunction::Sigmoid>(x, out, count);
            return;
        case ExactFunction::Erf:
            map_with<L, ExactFunction::Erf>(x, out, count);
            return;
        case ExactFunction::Gelu:
            map_with<L, ExactFunction::Gelu>(x, out, count);
            return;
        case ExactFunction::Log:
            map_with<L, ExactFunction::Log>(x, out, count);
            return;
        case ExactFunction::Softplus:
            map_with<L, ExactFunction::Softplus>(x, out, count);
            return;
    }
}

}  // namespace topos::detail::lanes
