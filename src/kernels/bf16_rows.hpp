// Rows of bf16 widened to float and rows of float rounded to bf16, with the
// bits of bf16's own conversions (exact widening; to nearest, ties to even,
// NaN kept quiet) but without a branch an element, so that the loops run in
// vector lanes (the AVX2 copies of kernels/elementwise.hpp where the processor
// has them): the conversions around every bf16 kernel are these.
#pragma once

#include "core/bit_cast.hpp"
#include "kernels/elementwise.hpp"
#include <topos/core/bf16.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace topos::detail {

// Where a fused kernel rounds the values inside it: as its element type
// computes them (every plan of float or double), or also to bf16's precision,
// kept in float, wherever the bf16 contract rounds a covered node's value (a
// bf16 plan's election computed in float on its widened inputs, whose results
// round once more as they are written).
enum class Interior {
    AsComputed,
    RoundedToBf16
};

// The bits of bf16(value).
inline std::uint16_t rounded_bits(float value) {
    const auto bits = bit_cast<std::uint32_t>(value);
    const std::uint32_t nearest = (bits + 0x7fffU + ((bits >> 16U) & 1U)) >> 16U;
    const std::uint32_t quiet_nan = (bits >> 16U) | 0x0040U;
    return static_cast<std::uint16_t>((bits & 0x7fffffffU) > 0x7f800000U ? quiet_nan : nearest);
}

// float(value), as the lanes compute it.
inline float widened_from_bf16(bf16 value) {
    return bit_cast<float>(static_cast<std::uint32_t>(value.bits()) << 16U);
}

// bf16(value), as the lanes compute it.
inline bf16 rounded_to_bf16(float value) {
    return bf16::from_bits(rounded_bits(value));
}

// to[k] = float(from[k]) for k < count, on the calling thread.
inline void widen_row(const bf16* from, std::size_t count, float* to) {
    elementwise_range(0, count, to, [from](std::size_t k) { return widened_from_bf16(from[k]); });
}

// to[k] = bf16(from[k]) for k < count, on the calling thread.
inline void round_row(const float* from, std::size_t count, bf16* to) {
    elementwise_range(0, count, to, [from](std::size_t k) { return rounded_to_bf16(from[k]); });
}

// The first `count` elements of `buffer`, a float scratch reused from call to
// call, which grows only when it is shorter: reused for tensors of
// alternating sizes, it is not zero-filled again each time it lengthens.
inline float* float_scratch(std::vector<float>& buffer, std::size_t count) {
    if (buffer.size() < count) {
        buffer.resize(count);
    }
    return buffer.data();
}

// values[k] = float(bf16(values[k])) for k < count, on the calling thread: each
// value rounded as a bf16 node's value is, and read back widened, for a
// kernel that computes a bf16 plan's values in float.
inline void round_in_float(float* values, std::size_t count) {
    elementwise_range(0, count, values, [values](std::size_t k) {
        return bit_cast<float>(static_cast<std::uint32_t>(rounded_bits(values[k])) << 16U);
    });
}

}  // namespace topos::detail
