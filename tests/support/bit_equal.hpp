// Bit-exact tensor comparison: same shape and the same raw bits in every
// element (so -0 differs from +0, and NaNs compare by payload). A failure names
// the first differing element with both values and their bit patterns.
#pragma once

#include <topos/core/tensor.hpp>

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <ios>
#include <limits>
#include <sstream>
#include <type_traits>

namespace topos::test {

template <Element T>
using Bits = std::conditional_t<sizeof(T) == 2,
                                std::uint16_t,
                                std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>>;

template <Element T>
Bits<T> bits_of(T value) {
    return std::bit_cast<Bits<T>>(value);
}

template <Element T>
::testing::AssertionResult bit_equal(const Tensor<T>& actual, const Tensor<T>& expected) {
    if (!(actual.shape() == expected.shape())) {
        return ::testing::AssertionFailure()
               << "shapes differ: " << actual.shape() << " vs expected " << expected.shape();
    }
    const auto a = actual.data();
    const auto e = expected.data();
    for (std::size_t i = 0; i < a.size(); ++i) {
        if (bits_of(a[i]) != bits_of(e[i])) {
            std::ostringstream message;
            message.precision(std::numeric_limits<T>::max_digits10);
            message << "element " << i << " of " << a.size() << " (shape " << actual.shape()
                    << ") differs: " << a[i] << " (0x" << std::hex << bits_of(a[i])
                    << ") vs expected " << std::dec << e[i] << " (0x" << std::hex << bits_of(e[i])
                    << ")";
            return ::testing::AssertionFailure() << message.str();
        }
    }
    return ::testing::AssertionSuccess();
}

template <Element T>
void expect_bit_equal(const Tensor<T>& actual, const Tensor<T>& expected) {
    EXPECT_TRUE(bit_equal(actual, expected));
}

}  // namespace topos::test
