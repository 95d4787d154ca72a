// The direct convolution and its filter gradient equal the reference loops
// over the windows matrix bit for bit: each output from +0 takes its taps (c,
// kh, kw), or its windows (n, oh, ow), in ascending order with one fma each. Every instruction set
// this processor runs, float and double, filter counts of one and two vectors and more, kernels
// from 1 x 1 to 5 x 5, planes down to a single window, signed zeros and subnormals.
#include "kernels/direct_convolution.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace topos {
namespace {

using detail::DirectConvolutionShape;

template <Element T>
using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

std::string describe(const DirectConvolutionShape& s, Isa isa) {
    return std::string(name_of(isa)) + ": C " + std::to_string(s.channels) + ", windows " +
           std::to_string(s.rows) + " x " + std::to_string(s.columns) + ", kernel " +
           std::to_string(s.kernel_rows) + " x " + std::to_string(s.kernel_columns) + ", filters " +
           std::to_string(s.filters);
}

// Plane values: mostly normal, with signed zeros and subnormals that an fma
// chain must keep (a chain of -0 products from +0 stays +0).
template <Element T>
T random_value(std::mt19937& generator) {
    std::normal_distribution<T> normal(0, 1);
    switch (generator() % 16) {
        case 0:
            return T{0};
        case 1:
            return -T{0};
        case 2:
            return std::numeric_limits<T>::denorm_min() * T(1 + generator() % 100);
        default:
            return normal(generator);
    }
}

// The padded planes, their slack zeroed, as the caller hands them in.
template <Element T>
std::vector<T> random_planes(const DirectConvolutionShape& s, std::mt19937& generator) {
    const std::size_t elements = s.channels * s.padded_rows * s.padded_columns;
    std::vector<T> planes(elements + detail::direct_convolution_slack, T{0});
    for (std::size_t i = 0; i < elements; ++i) {
        planes[i] = random_value<T>(generator);
    }
    return planes;
}

// The windows matrix's row p times the matrix, one std::fma a tap.
template <Element T>
std::vector<T> reference(const DirectConvolutionShape& s,
                         const std::vector<T>& planes,
                         const std::vector<T>& matrix) {
    std::vector<T> out(s.rows * s.columns * s.filters);
    for (std::size_t oh = 0; oh < s.rows; ++oh) {
        for (std::size_t ow = 0; ow < s.columns; ++ow) {
            for (std::size_t o = 0; o < s.filters; ++o) {
                T sum = T{0};
                std::size_t k = 0;
                for (std::size_t c = 0; c < s.channels; ++c) {
                    for (std::size_t kh = 0; kh < s.kernel_rows; ++kh) {
                        for (std::size_t kw = 0; kw < s.kernel_columns; ++kw, ++k) {
                            const T tap =
                                planes[(c * s.padded_rows + oh + kh) * s.padded_columns + ow + kw];
                            sum = std::fma(tap, matrix[k * s.filters + o], sum);
                        }
                    }
                }
                out[(oh * s.columns + ow) * s.filters + o] = sum;
            }
        }
    }
    return out;
}

template <Element T>
void expect_convolution_reference_bits(const DirectConvolutionShape& s, std::mt19937& generator) {
    const std::vector<T> planes = random_planes<T>(s, generator);
    std::vector<T> matrix(s.channels * s.kernel_rows * s.kernel_columns * s.filters);
    for (T& value : matrix) {
        value = random_value<T>(generator);
    }
    const std::vector<T> expected = reference(s, planes, matrix);
    for (const Isa isa : supported_isas()) {
        const detail::DirectConvolution<T> convolve =
            detail::direct_convolution_kernel<T>(isa, s.filters);
        if (convolve == nullptr) {
            continue;
        }
        SCOPED_TRACE(describe(s, isa));
        std::vector<T> out(expected.size(), std::numeric_limits<T>::quiet_NaN());
        convolve(s, planes.data(), matrix.data(), out.data());
        for (std::size_t i = 0; i < out.size(); ++i) {
            ASSERT_EQ(std::bit_cast<Bits<T>>(out[i]), std::bit_cast<Bits<T>>(expected[i]))
                << "output " << i << ": " << out[i] << " vs expected " << expected[i];
        }
    }
}

// Each output from +0 over the windows (n, oh, ow) ascending, one std::fma a
// window: the filter gradient's reference.
template <Element T>
std::vector<T> reference_filter_gradient(const DirectConvolutionShape& s,
                                         std::size_t batch,
                                         const std::vector<T>& planes,
                                         const std::vector<T>& gradient) {
    const std::size_t plane = s.padded_rows * s.padded_columns;
    std::vector<T> out(s.channels * s.kernel_rows * s.kernel_columns * s.filters);
    std::size_t k = 0;
    for (std::size_t c = 0; c < s.channels; ++c) {
        for (std::size_t kh = 0; kh < s.kernel_rows; ++kh) {
            for (std::size_t kw = 0; kw < s.kernel_columns; ++kw, ++k) {
                for (std::size_t o = 0; o < s.filters; ++o) {
                    T sum = T{0};
                    std::size_t p = 0;
                    for (std::size_t n = 0; n < batch; ++n) {
                        for (std::size_t oh = 0; oh < s.rows; ++oh) {
                            for (std::size_t ow = 0; ow < s.columns; ++ow, ++p) {
                                const T tap = planes[(n * s.channels + c) * plane +
                                                     (oh + kh) * s.padded_columns + ow + kw];
                                sum = std::fma(tap, gradient[p * s.filters + o], sum);
                            }
                        }
                    }
                    out[k * s.filters + o] = sum;
                }
            }
        }
    }
    return out;
}

// Every split of the lines among calls, as threads take them.
template <Element T>
void expect_reference_filter_gradient(const DirectConvolutionShape& s,
                                      std::size_t batch,
                                      std::mt19937& generator) {
    const std::size_t plane = s.padded_rows * s.padded_columns;
    std::vector<T> planes(batch * s.channels * plane);
    for (T& value : planes) {
        value = random_value<T>(generator);
    }
    std::vector<T> gradient(batch * s.rows * s.columns * s.filters);
    for (T& value : gradient) {
        value = random_value<T>(generator);
    }
    const std::vector<T> expected = reference_filter_gradient(s, batch, planes, gradient);
    const std::size_t lines = s.channels * s.kernel_rows;
    for (const Isa isa : supported_isas()) {
        const detail::DirectFilterGradient<T> gradient_of =
            detail::direct_filter_gradient_kernel<T>(isa, s);
        if (gradient_of == nullptr) {
            continue;
        }
        SCOPED_TRACE(describe(s, isa) + ", batch " + std::to_string(batch));
        for (std::size_t split = 0; split <= lines; split += std::max<std::size_t>(1, lines / 3)) {
            std::vector<T> out(expected.size(), std::numeric_limits<T>::quiet_NaN());
            gradient_of(s, batch, planes.data(), gradient.data(), 0, split, out.data());
            gradient_of(s, batch, planes.data(), gradient.data(), split, lines - split, out.data());
            for (std::size_t i = 0; i < out.size(); ++i) {
                ASSERT_EQ(std::bit_cast<Bits<T>>(out[i]), std::bit_cast<Bits<T>>(expected[i]))
                    << "output " << i << " (lines split at " << split << "): " << out[i]
                    << " vs expected " << expected[i];
            }
        }
    }
}

template <class T>
class DirectConvolution : public ::testing::Test {};

using Elements = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DirectConvolution, Elements);

TYPED_TEST(DirectConvolution, RandomShapesGiveTheReferenceBitsOnEveryInstructionSet) {
    std::mt19937 generator(20261203);
    static constexpr std::size_t filter_counts[] = {4, 8, 12, 16, 24, 32, 48, 64};
    static constexpr std::size_t kernel_sizes[] = {1, 2, 3, 5};
    for (int trial = 0; trial < 60; ++trial) {
        DirectConvolutionShape s{};
        s.channels = 1 + generator() % 5;
        s.rows = 1 + generator() % 17;
        s.columns = 1 + generator() % 31;
        s.kernel_rows = kernel_sizes[generator() % std::size(kernel_sizes)];
        s.kernel_columns = kernel_sizes[generator() % std::size(kernel_sizes)];
        s.padded_rows = s.rows + s.kernel_rows - 1;
        s.padded_columns = s.columns + s.kernel_columns - 1;
        s.filters = filter_counts[generator() % std::size(filter_counts)];
        expect_convolution_reference_bits<TypeParam>(s, generator);
    }
}

TYPED_TEST(DirectConvolution, TheNetworksShapesGiveTheReferenceBits) {
    std::mt19937 generator(7);
    // A LeNet's and a digits CNN's layers: 3 x 3 over 28 x 28, 14 x 14, 8 x 8, 4 x 4.
    const DirectConvolutionShape shapes[] = {{1, 30, 30, 28, 28, 3, 3, 8},
                                             {8, 16, 16, 14, 14, 3, 3, 16},
                                             {1, 10, 10, 8, 8, 3, 3, 32},
                                             {32, 6, 6, 4, 4, 3, 3, 64}};
    for (const DirectConvolutionShape& s : shapes) {
        expect_convolution_reference_bits<TypeParam>(s, generator);
    }
}

TYPED_TEST(DirectConvolution, FilterGradientsGiveTheReferenceBitsForEverySplitOfTheLines) {
    std::mt19937 generator(17);
    static constexpr std::size_t filter_counts[] = {4, 8, 16, 24, 32, 64};
    for (int trial = 0; trial < 30; ++trial) {
        DirectConvolutionShape s{};
        s.channels = 1 + generator() % 6;
        s.rows = 1 + generator() % 9;
        s.columns = 1 + generator() % 17;
        s.kernel_rows = 1 + generator() % 4;
        s.kernel_columns = 3;
        s.padded_rows = s.rows + s.kernel_rows - 1;
        s.padded_columns = s.columns + s.kernel_columns - 1;
        s.filters = filter_counts[generator() % std::size(filter_counts)];
        expect_reference_filter_gradient<TypeParam>(s, 1 + generator() % 3, generator);
    }
    // A LeNet's two layers, a digits CNN's second.
    expect_reference_filter_gradient<TypeParam>({1, 30, 30, 28, 28, 3, 3, 8}, 2, generator);
    expect_reference_filter_gradient<TypeParam>({8, 16, 16, 14, 14, 3, 3, 16}, 2, generator);
    expect_reference_filter_gradient<TypeParam>({32, 6, 6, 4, 4, 3, 3, 64}, 3, generator);
}

TEST(DirectConvolutionKernel, IsOnlyChosenWhereTheFiltersFillWholeVectors) {
    EXPECT_EQ(detail::direct_convolution_kernel<float>(Isa::Portable, 16), nullptr);
    for (const Isa isa : supported_isas()) {
        EXPECT_EQ(detail::direct_convolution_kernel<float>(isa, 0), nullptr);
        EXPECT_EQ(detail::direct_convolution_kernel<float>(isa, 7), nullptr);
        EXPECT_EQ(detail::direct_convolution_kernel<double>(isa, 6), nullptr);
        const DirectConvolutionShape three_wide{2, 6, 6, 4, 4, 3, 3, 8};
        const DirectConvolutionShape five_wide{2, 8, 8, 4, 4, 5, 5, 8};
        EXPECT_EQ(detail::direct_filter_gradient_kernel<float>(isa, five_wide), nullptr);
        if (isa != Isa::Portable) {
            EXPECT_NE(detail::direct_convolution_kernel<float>(isa, 8), nullptr);
            EXPECT_NE(detail::direct_convolution_kernel<double>(isa, 4), nullptr);
            EXPECT_NE(detail::direct_filter_gradient_kernel<float>(isa, three_wide), nullptr);
        } else {
            EXPECT_EQ(detail::direct_filter_gradient_kernel<float>(isa, three_wide), nullptr);
        }
    }
}

}  // namespace
}  // namespace topos
