// A function of one bf16 read from the table of its results. A bf16 has 65,536
// bit patterns, so an elementwise function of one (an exp, a silu: a
// double-precision evaluation and a rounding each) is the table of its result
// for every pattern: 128 KiB, filled once, holding exactly the bits computing
// each element would give.
#pragma once

#include "kernels/elementwise.hpp"
#include <topos/core/bf16.hpp>

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace topos::detail {

class Bf16Table {
public:
    static constexpr std::size_t patterns = std::size_t{1} << 16U;

    // Every bf16, in the order of its bits: the operand a table is filled from.
    static std::vector<bf16> every_pattern() {
        std::vector<bf16> values(patterns);
        for (std::size_t bits = 0; bits < patterns; ++bits) {
            values[bits] = bf16::from_bits(static_cast<std::uint16_t>(bits));
        }
        return values;
    }

    // results[bits]: the function's value at the bf16 of those bits.
    explicit Bf16Table(std::vector<bf16> results) : results_(std::move(results)) {}

    // out[i] = the result at x[i] for i < count, shared among the library's
    // threads as elementwise shares its loops; out may be x.
    void map(const bf16* x, bf16* out, std::size_t count) const {
        const bf16* results = results_.data();
        elementwise(count, out, [x, results](std::size_t i) { return results[x[i].bits()]; });
    }

private:
    std::vector<bf16> results_;
};

}  // namespace topos::detail
