#include <topos/core/isa.hpp>

#include <atomic>
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

std::atomic<Isa>& chosen() {
    static std::atomic<Isa> isa{[] {
        const Isa best = supported_isas().back();
        const Isa cap = cap_from_environment();
        return cap < best ? cap : best;
    }()};
    return isa;
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
    return chosen().load(std::memory_order_relaxed);
}

void set_max_isa(Isa cap) {
    const Isa best = supported_isas().back();
    chosen().store(cap < best ? cap : best, std::memory_order_relaxed);
}

}  // namespace topos
