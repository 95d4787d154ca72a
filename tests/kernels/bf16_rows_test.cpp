// The rows of conversions around every bf16 kernel run in vector lanes without
// a branch an element; they must give bf16's own conversions bit for bit, on
// every instruction set the processor has: every bf16 widened, and floats of
// every kind rounded (ties both ways, the largest finite values that round to
// infinity, subnormals, NaNs of both signs, quiet and signalling).
#include "kernels/bf16_rows.hpp"

#include "core/bit_cast.hpp"
#include <topos/core/bf16.hpp>
#include <topos/core/isa.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace topos {
namespace {

// Runs `check` once on each instruction set this processor has, restoring
// the set in use before when it returns.
template <class Check>
void on_every_isa(const Check& check) {
    const Isa before = isa();
    for (const Isa each : supported_isas()) {
        set_max_isa(each);
        SCOPED_TRACE(std::string("isa ") + std::string(name_of(each)));
        check();
    }
    set_max_isa(before);
}

std::vector<float> floats_of_every_kind() {
    std::vector<float> values;
    // The neighbourhood of every bf16: its own bits, the ties on either side,
    // and one ulp of float off each tie.
    for (std::uint32_t high = 0; high <= 0xffffU; ++high) {
        for (const std::uint32_t low : {0x0000U, 0x0001U, 0x7fffU, 0x8000U, 0x8001U, 0xffffU}) {
            values.push_back(detail::bit_cast<float>((high << 16U) | low));
        }
    }
    std::mt19937 random(7);
    for (int i = 0; i < 100000; ++i) {
        values.push_back(detail::bit_cast<float>(static_cast<std::uint32_t>(random())));
    }
    return values;
}

TEST(Bf16Rows, RoundingARowGivesEachFloatsOwnBf16Bits) {
    const std::vector<float> values = floats_of_every_kind();
    on_every_isa([&] {
        std::vector<bf16> rounded(values.size());
        detail::round_row(values.data(), values.size(), rounded.data());
        for (std::size_t k = 0; k < values.size(); ++k) {
            ASSERT_EQ(rounded[k].bits(), bf16(values[k]).bits())
                << "float bits 0x" << std::hex << detail::bit_cast<std::uint32_t>(values[k]);
        }
    });
}

TEST(Bf16Rows, WideningARowGivesEveryBf16ExactlyItsFloat) {
    std::vector<bf16> every(0x10000);
    for (std::uint32_t bits = 0; bits <= 0xffffU; ++bits) {
        every[bits] = bf16::from_bits(static_cast<std::uint16_t>(bits));
    }
    on_every_isa([&] {
        std::vector<float> widened(every.size());
        detail::widen_row(every.data(), every.size(), widened.data());
        for (std::size_t k = 0; k < every.size(); ++k) {
            ASSERT_EQ(detail::bit_cast<std::uint32_t>(widened[k]),
                      detail::bit_cast<std::uint32_t>(static_cast<float>(every[k])))
                << "bf16 bits 0x" << std::hex << every[k].bits();
        }
    });
}

}  // namespace
}  // namespace topos
