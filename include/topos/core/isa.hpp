// The instruction sets topos's kernels are compiled for, chosen at run time.
// One binary runs everywhere: each vectorised kernel has a portable twin, and
// the dispatcher picks the best set this processor runs. Every set gives the
// same bits (the exact kernels vectorise across outputs, never across a sum),
// so the choice changes speed only; capping it is how to check that, or to
// compare the paths' speed.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <span>
#include <string_view>

namespace topos {

enum class Isa : std::uint8_t {
    Portable,  // std::fma and plain loops, any processor
    Avx2,      // x86-64 with AVX2 and FMA
    Avx512,    // x86-64 with AVX-512F (and AVX2 and FMA)
};

// "portable", "avx2", "avx512".
std::string_view name_of(Isa isa);
std::ostream& operator<<(std::ostream& out, Isa isa);

// The sets this processor runs, portable first.
std::span<const Isa> supported_isas();

// The set the kernels use now: the best this processor runs, at most the cap.
Isa isa();

// Caps the instruction set the kernels use from now on (a cap above what the
// processor runs leaves the best it runs). The cap starts from the
// TOPOS_MAX_ISA environment variable ("portable", "avx2" or "avx512") when it
// holds one, else no cap. Safe to call from any thread; kernels already
// running finish with the set they started with.
void set_max_isa(Isa cap);

}  // namespace topos
