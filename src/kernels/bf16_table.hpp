// A function of one bf16 read from the table of its results. A bf16 has 65,536
// bit patterns, so an elementwise function of one (silu, whose float value
// takes a double-precision exp and a corrected division) is the table of
// rounded_to_bf16(f(widened_from_bf16(x))) over every pattern: 128 KiB, filled
// once, holding exactly the bits that computing each element would give.
#pragma once

#include "kernels/bf16_rows.hpp"
#include "kernels/elementwise.hpp"
#include <topos/core/bf16.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace topos::detail {

class Bf16Table {
public:
    // f takes and returns float.
    template <class F>
    explicit Bf16Table(F f) : results_(std::size_t{1} << 16U) {
        for (std::size_t bits = 0; bits < results_.size(); ++bits) {
            const bf16 x = bf16::from_bits(static_cast<std::uint16_t>(bits));
            results_[bits] = rounded_to_bf16(f(widened_from_bf16(x)));
        }
    }

    bf16 operator()(bf16 x) const { return results_[x.bits()]; }

    // out[i] = (*this)(x[i]) for i < count, shared among the library's
    // threads as elementwise shares its loops; out may be x.
    void map(const bf16* x, bf16* out, std::size_t count) const {
        const bf16* results = results_.data();
        elementwise(count, out, [x, results](std::size_t i) { return results[x[i].bits()]; });
    }

private:
    std::vector<bf16> results_;
};

}  // namespace topos::detail
