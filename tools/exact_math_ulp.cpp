// Measures the accuracy of topos::exact against the platform's long double libm over a few
// million deterministic inputs per function and prints a Markdown table (docs/exact-math.md).
// Build: g++ -std=c++20 -O2 -ffp-contract=off -I src tools/exact_math_ulp.cpp -o /tmp/ulp
#include "core/exact_math.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace {

namespace ex = topos::exact;

using Reference = std::function<long double(long double, long double)>;

constexpr long double infinity = std::numeric_limits<long double>::infinity();

std::string format(const char* pattern, double v) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, pattern, v);
    return buffer;
}

// How one range of inputs is drawn: x uniform in [lo, hi], or |x| = m 2^e with e uniform in
// [lo, hi) (signed unless the range says positive), or 1 +/- d or -1 + d for such a d, or random
// positive bit patterns. pow draws its exponent y uniform in [y_lo, y_hi].
enum class Draw {
    Uniform,
    LogUniform,
    LogUniformPositive,
    OnePlus,
    MinusOnePlus,
    Bits
};

struct Range {
    Draw kind;
    double lo;
    double hi;
    std::string text;
    double y_lo = 0.0;
    double y_hi = 0.0;
};

struct Result {
    long double max_ulp = 0.0L;
    double worst_x = 0.0;
    double worst_y = 0.0;
};

template <typename T>
long double ulp_error(T got, long double want) {
    if (std::isnan(want) || std::isnan(got)) {
        return std::isnan(want) && std::isnan(got) ? 0.0L : infinity;
    }
    const T rounded = static_cast<T>(want);
    if (std::isinf(rounded) || std::isinf(got)) {
        return got == rounded ? 0.0L : infinity;
    }
    int exponent = std::numeric_limits<T>::min_exponent;
    if (want != 0.0L) {
        std::frexp(want, &exponent);
        exponent = std::max(exponent, std::numeric_limits<T>::min_exponent);
    }
    const long double ulp = std::ldexp(1.0L, exponent - std::numeric_limits<T>::digits);
    return std::fabs(static_cast<long double>(got) - want) / ulp;
}

template <typename T>
T draw_one(std::mt19937_64& rng, const Range& r) {
    const auto unit = [&rng] { return static_cast<double>(rng() >> 11) * 0x1p-53; };
    const auto log_uniform = [&](bool positive) {
        const std::uint64_t bits = rng();
        const auto span = static_cast<std::uint64_t>(r.hi - r.lo);
        const int e = static_cast<int>(r.lo) + static_cast<int>(bits % span);
        const double x = std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52, e);
        return positive || (bits >> 63) == 0 ? x : -x;
    };
    switch (r.kind) {
        case Draw::Uniform:
            return static_cast<T>(r.lo + (r.hi - r.lo) * unit());
        case Draw::LogUniform:
            return static_cast<T>(log_uniform(false));
        case Draw::LogUniformPositive:
            return static_cast<T>(log_uniform(true));
        case Draw::OnePlus:
            return static_cast<T>(1.0 + log_uniform(false));
        case Draw::MinusOnePlus:
            return static_cast<T>(-1.0 + log_uniform(true));
        case Draw::Bits:
            while (true) {
                T x{};
                if constexpr (sizeof(T) == 8) {
                    x = std::bit_cast<T>(rng() >> 1);
                } else {
                    x = std::bit_cast<T>(static_cast<std::uint32_t>(rng() >> 33));
                }
                if (std::isfinite(x) && x > 0) {
                    return x;
                }
            }
    }
    return T{};
}

template <typename T, typename F>
Result sweep(const Range& r, long count, std::uint64_t seed, F f, const Reference& ref) {
    std::mt19937_64 rng(seed);
    const auto unit = [&rng] { return static_cast<double>(rng() >> 11) * 0x1p-53; };
    Result out;
    for (long i = 0; i < count; ++i) {
        const T x = draw_one<T>(rng, r);
        const T y = static_cast<T>(r.y_lo + (r.y_hi - r.y_lo) * unit());
        const long double e =
            ulp_error<T>(f(x, y), ref(static_cast<long double>(x), static_cast<long double>(y)));
        if (!(e <= out.max_ulp)) {
            out = {e, static_cast<double>(x), static_cast<double>(y)};
        }
    }
    return out;
}

struct Function {
    std::string name;
    std::function<double(double, double)> f64;
    std::function<float(float, float)> f32;
    Reference ref;
    std::vector<Range> ranges64;
    std::vector<Range> ranges32;
};

long double ref_gelu(long double x) {
    constexpr long double inv_sqrt2_hi = 0xb.504f333f9de6484p-4L;
    constexpr long double inv_sqrt2_lo = 0x1.65f626cdd52b0p-66L;
    constexpr long double two_over_sqrt_pi = 1.1283791670955125738961589031215452L;
    const long double ax = std::fabs(x);
    const long double u = ax * inv_sqrt2_hi;
    const long double u_lo = std::fma(ax, inv_sqrt2_hi, -u) + ax * inv_sqrt2_lo;
    const long double c = std::erfc(u) - u_lo * two_over_sqrt_pi * std::exp(-u * u);
    return x < 0 ? 0.5L * x * c : x * (1.0L - 0.5L * c);
}

std::vector<Function> functions() {
    const auto u = [](double lo, double hi) {
        return Range{Draw::Uniform, lo, hi, "[" + format("%g", lo) + ", " + format("%g", hi) + "]"};
    };
    const auto lu = [](int lo, int hi) {
        return Range{Draw::LogUniform,
                     static_cast<double>(lo),
                     static_cast<double>(hi),
                     "+/-[2^" + std::to_string(lo) + ", 2^" + std::to_string(hi) + ")"};
    };
    const auto lup = [](int lo, int hi) {
        return Range{Draw::LogUniformPositive,
                     static_cast<double>(lo),
                     static_cast<double>(hi),
                     "[2^" + std::to_string(lo) + ", 2^" + std::to_string(hi) + ")"};
    };
    const Range bits{Draw::Bits, 0, 0, "all positive finite (random bits)"};
    const Range near_one{Draw::OnePlus, -60, -1, "1 +/- [2^-60, 2^-1)"};
    const Range near_minus_one{Draw::MinusOnePlus, -53, -1, "-1 + [2^-53, 2^-1)"};
    const auto one = [](auto f) { return [f](auto x, auto) { return f(x); }; };
    const auto ref1 = [](auto f) { return [f](long double x, long double) { return f(x); }; };
    const auto sigmoid = [](long double x) {
        const long double e = std::exp(-std::fabs(x));
        return x >= 0 ? 1.0L / (1.0L + e) : e / (1.0L + e);
    };
    const auto softplus = [](long double x) {
        return std::max(x, 0.0L) + std::log1p(std::exp(-std::fabs(x)));
    };
    return {
        {"exp",
         one([](double x) { return ex::exp(x); }),
         one([](float x) { return ex::exp(x); }),
         ref1([](long double x) { return std::exp(x); }),
         {u(-745.2, 709.8), lu(-60, 3)},
         {u(-104, 88.8), lu(-30, 3)}},
        {"expm1",
         one([](double x) { return ex::expm1(x); }),
         one([](float x) { return ex::expm1(x); }),
         ref1([](long double x) { return std::expm1(x); }),
         {lu(-60, 6), u(-40, 709.8)},
         {lu(-30, 6), u(-20, 88.8)}},
        {"log",
         one([](double x) { return ex::log(x); }),
         one([](float x) { return ex::log(x); }),
         ref1([](long double x) { return std::log(x); }),
         {bits, u(0.5, 2), near_one},
         {bits, u(0.5, 2)}},
        {"log1p",
         one([](double x) { return ex::log1p(x); }),
         one([](float x) { return ex::log1p(x); }),
         ref1([](long double x) { return std::log1p(x); }),
         {lu(-60, 0), u(-1, 10), lup(3, 1024), near_minus_one},
         {lu(-30, 0), u(-1, 10), lup(3, 128)}},
        {"tanh",
         one([](double x) { return ex::tanh(x); }),
         one([](float x) { return ex::tanh(x); }),
         ref1([](long double x) { return std::tanh(x); }),
         {lu(-40, 5), u(-25, 25)},
         {lu(-20, 4), u(-12, 12)}},
        {"sigmoid",
         one([](double x) { return ex::sigmoid(x); }),
         one([](float x) { return ex::sigmoid(x); }),
         ref1(sigmoid),
         {u(-50, 50), u(-750, -40), lu(-40, 5)},
         {u(-110, 30), lu(-20, 5)}},
        {"softplus",
         one([](double x) { return ex::softplus(x); }),
         one([](float x) { return ex::softplus(x); }),
         ref1(softplus),
         {u(-50, 50), u(-750, -40), lu(-40, 6)},
         {u(-110, 30), lu(-20, 6)}},
        {"sin",
         one([](double x) { return ex::sin(x); }),
         one([](float x) { return ex::sin(x); }),
         ref1([](long double x) { return std::sin(x); }),
         {u(-10, 10), lu(-30, 17), lu(17, 1024)},
         {u(-10, 10), lu(-20, 17), lu(17, 128)}},
        {"cos",
         one([](double x) { return ex::cos(x); }),
         one([](float x) { return ex::cos(x); }),
         ref1([](long double x) { return std::cos(x); }),
         {u(-10, 10), lu(-30, 17), lu(17, 1024)},
         {u(-10, 10), lu(-20, 17), lu(17, 128)}},
        {"erf",
         one([](double x) { return ex::erf(x); }),
         one([](float x) { return ex::erf(x); }),
         ref1([](long double x) { return std::erf(x); }),
         {u(-7, 7), lu(-40, 3)},
         {u(-5, 5), lu(-30, 2)}},
        {"gelu",
         one([](double x) { return ex::gelu(x); }),
         one([](float x) { return ex::gelu(x); }),
         ref1(ref_gelu),
         {u(-41, 41), u(-4, 4), lu(-40, 6)},
         {u(-15, 15), lu(-20, 4)}},
        {"pow",
         [](double x, double y) { return ex::pow(x, y); },
         [](float x, float y) { return ex::pow(x, y); },
         [](long double x, long double y) { return std::pow(x, y); },
         {Range{
              Draw::LogUniformPositive, -200, 200, "x in [2^-200, 2^200), y in [-20, 20]", -20, 20},
          Range{Draw::OnePlus,
                -40,
                -20,
                "x in 1 +/- [2^-40, 2^-20), y in (-2^30, 2^30)",
                -0x1p30,
                0x1p30},
          Range{Draw::LogUniformPositive,
                -1000,
                1000,
                "x in [2^-1000, 2^1000), y in [-1.1, 1.1]",
                -1.1,
                1.1},
          Range{Draw::Uniform,
                0.7071,
                1.4142,
                "x in [0.7071, 1.4142], y in [-2000, 2000]",
                -2000,
                2000}},
         {Range{Draw::LogUniformPositive, -30, 30, "x in [2^-30, 2^30), y in [-4, 4]", -4, 4},
          Range{Draw::OnePlus,
                -20,
                -10,
                "x in 1 +/- [2^-20, 2^-10), y in (-2^14, 2^14)",
                -0x1p14,
                0x1p14}}},
        // Last, so that adding it left the seeds (and rows) of the functions above unchanged.
        {"silu",
         one([](double x) { return ex::silu(x); }),
         one([](float x) { return ex::silu(x); }),
         ref1([](long double x) { return x / (1.0L + std::exp(-x)); }),
         {u(-50, 50), u(-760, -40), lu(-40, 6), lu(-1074, -40)},
         {u(-110, 30), lu(-20, 6), lu(-149, -20)}},
    };
}

}  // namespace

int main(int argc, char** argv) {
    const long per_function = argc > 1 ? std::stol(argv[1]) : 3'000'000;
    if (std::numeric_limits<long double>::digits < 64) {
        std::fprintf(stderr, "needs an extended-precision long double as the reference\n");
        return 1;
    }
    std::printf("| function | type | inputs | range | max ulp | worst input |\n");
    std::printf("| --- | --- | ---: | --- | ---: | --- |\n");
    std::uint64_t seed = 1;
    for (const Function& fn : functions()) {
        for (const bool is_double : {true, false}) {
            const auto& ranges = is_double ? fn.ranges64 : fn.ranges32;
            const long count = per_function / static_cast<long>(ranges.size());
            for (const Range& r : ranges) {
                const Result res = is_double ? sweep<double>(r, count, seed++, fn.f64, fn.ref)
                                             : sweep<float>(r, count, seed++, fn.f32, fn.ref);
                std::string worst = format("%a", res.worst_x);
                if (fn.name == "pow") {
                    worst += ", " + format("%a", res.worst_y);
                }
                std::printf("| %s | %s | %ld | %s | %.4f | %s |\n",
                            fn.name.c_str(),
                            is_double ? "double" : "float",
                            count,
                            r.text.c_str(),
                            static_cast<double>(res.max_ulp),
                            worst.c_str());
                std::fflush(stdout);
            }
        }
    }
    return 0;
}
