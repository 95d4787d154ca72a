// The instruction-set dispatcher: the sets this processor runs (detected once
// with __builtin_cpu_supports), a cap read from TOPOS_MAX_ISA or set by
// set_max_isa, and isa(), a single relaxed atomic load on every kernel call.
#include <topos/core/isa.hpp>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

namespace topos {
namespace {

std::vector<Isa> detect_isas() {
    std::vector<Isa> isas{Isa::Portable};
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
        isas.push_back(Isa::Avx2);
        if (__builtin_cpu_supports("avx512f")) {
            isas.push_back(Isa::Avx512);
        }
    }
#endif
    return isas;
}

Isa cap_from_environment() {
    const char* text = std::getenv("TOPOS_MAX_ISA");
    if (text != nullptr) {
        const std::string_view wanted(text);
        for (const Isa candidate : {Isa::Portable, Isa::Avx2, Isa::Avx512}) {
            if (wanted == name_of(candidate)) {
                return candidate;
            }
        }
        std::cerr << "topos: TOPOS_MAX_ISA=" << wanted
                  << " names no instruction set (portable, avx2 or avx512); it is ignored\n";
    }
    return Isa::Avx512;
}

// The set in use, once chosen; constant-initialised, so reading it costs one
// load (kernels ask on every call) and no guard of a function-local static.
constexpr std::uint8_t unchosen = 0xff;
std::atomic<std::uint8_t> chosen{unchosen};

// The first choice: the best this processor runs, at most the environment's cap.
// A cap set meanwhile by set_max_isa wins.
Isa choose() {
    const Isa best = supported_isas().back();
    const Isa cap = cap_from_environment();
    std::uint8_t expected = unchosen;
    chosen.compare_exchange_strong(
        expected, static_cast<std::uint8_t>(cap < best ? cap : best), std::memory_order_relaxed);
    return static_cast<Isa>(chosen.load(std::memory_order_relaxed));
}

}  // namespace

std::string_view name_of(Isa isa) {
    switch (isa) {
        case Isa::Portable:
            return "portable";
        case Isa::Avx2:
            return "avx2";
        case Isa::Avx512:
            return "avx512";
    }
    return "?";
}

std::ostream& operator<<(std::ostream& out, Isa isa) {
    return out << name_of(isa);
}

std::span<const Isa> supported_isas() {
    static const std::vector<Isa> isas = detect_isas();
    return isas;
}

Isa isa() {
    const std::uint8_t isa = chosen.load(std::memory_order_relaxed);
    return isa != unchosen ? static_cast<Isa>(isa) : choose();
}

void set_max_isa(Isa cap) {
    const Isa best = supported_isas().back();
    chosen.store(static_cast<std::uint8_t>(cap < best ? cap : best), std::memory_order_relaxed);
}

}  // namespace topos
