// What the exact math tests share: infinities, NaNs, a hexadecimal spelling of
// a value for failure messages, and deterministic inputs.
#pragma once

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace topos::test::exact_values {

constexpr double inf = std::numeric_limits<double>::infinity();
constexpr double nan = std::numeric_limits<double>::quiet_NaN();
constexpr float inf_f = std::numeric_limits<float>::infinity();
constexpr float nan_f = std::numeric_limits<float>::quiet_NaN();

template <typename T>
std::string hex(T x) {
    std::ostringstream out;
    out << std::hexfloat << static_cast<double>(x);
    return out.str();
}

// Deterministic inputs: std::mt19937_64's sequence is fixed by the standard, and the conversions
// to floating point below are exact bit constructions (no library distributions).
template <typename T>
class Inputs {
public:
    explicit Inputs(std::uint64_t seed) : rng_(seed) {}

    // n values uniform in [lo, hi].
    Inputs& uniform(int n, double lo, double hi) {
        for (int i = 0; i < n; ++i) {
            const double unit = static_cast<double>(rng_() >> 11) * 0x1p-53;
            add(lo + (hi - lo) * unit);
        }
        return *this;
    }

    // n values with |x| = m 2^e, e uniform in [lo_exp, hi_exp), m uniform in [1, 2); both signs
    // unless positive_only.
    Inputs& log_uniform(int n, int lo_exp, int hi_exp, bool positive_only = false) {
        for (int i = 0; i < n; ++i) {
            const std::uint64_t r = rng_();
            const int e =
                lo_exp + static_cast<int>(r % static_cast<std::uint64_t>(hi_exp - lo_exp));
            const double m = 1.0 + static_cast<double>(rng_() >> 12) * 0x1p-52;
            const double x = std::ldexp(m, e);
            add(positive_only || (r >> 63) == 0 ? x : -x);
        }
        return *this;
    }

    // Every centre and its neighbours up to `steps` representable values away on each side.
    Inputs& around(const std::vector<double>& centres, int steps) {
        for (const double c : centres) {
            T below = static_cast<T>(c);
            T above = below;
            add(below);
            for (int i = 0; i < steps; ++i) {
                below = std::nextafter(below, -std::numeric_limits<T>::infinity());
                above = std::nextafter(above, std::numeric_limits<T>::infinity());
                add(below);
                add(above);
            }
        }
        return *this;
    }

    // n random bit patterns of positive finite values (all binades, subnormals included).
    Inputs& positive_bit_patterns(int n) {
        while (n > 0) {
            const T x = random_bits();
            if (std::isfinite(x) && x > 0) {
                add(x);
                --n;
            }
        }
        return *this;
    }

    std::vector<T> values() const { return values_; }  // a copy: safe on temporaries

private:
    void add(double x) { values_.push_back(static_cast<T>(x)); }

    T random_bits() {
        if constexpr (sizeof(T) == 8) {
            return std::bit_cast<T>(rng_() >> 1);
        } else {
            return std::bit_cast<T>(static_cast<std::uint32_t>(rng_() >> 33));
        }
    }

    std::mt19937_64 rng_;
    std::vector<T> values_;
};

}  // namespace topos::test::exact_values
