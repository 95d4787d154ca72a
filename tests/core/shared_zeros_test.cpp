// Relu's zero operands view one buffer of zeros (core/shared_zeros.hpp):
// tensors of any shape up to its size share it, a larger one replaces it, and
// writing one of them copies it first, so no other zero changes.
#include "core/shared_zeros.hpp"

#include "core/tensor_access.hpp"
#include <topos/topos.hpp>

#include <gtest/gtest.h>

#include <algorithm>

namespace topos {
namespace {

bool all_zero(const Tensor<float>& tensor) {
    return std::all_of(tensor.data().begin(), tensor.data().end(), [](float x) { return x == 0; });
}

TEST(SharedZeros, ZerosOfSmallerShapesViewTheSameBuffer) {
    const Tensor<float> large = detail::shared_zeros<float>(Shape{4096, 64});
    const Tensor<float> small = detail::shared_zeros<float>(Shape{3, 5});
    EXPECT_EQ(small.shape(), (Shape{3, 5}));
    EXPECT_EQ(small.data().data(), large.data().data());
    EXPECT_TRUE(all_zero(large));
    EXPECT_TRUE(all_zero(small));
}

TEST(SharedZeros, ALargerShapeGetsABufferOfItsOwn) {
    const Tensor<double> first = detail::shared_zeros<double>(Shape{8});
    const Tensor<double> larger = detail::shared_zeros<double>(Shape{1 << 20});
    EXPECT_EQ(larger.elements(), std::size_t{1} << 20);
    EXPECT_TRUE(
        std::all_of(larger.data().begin(), larger.data().end(), [](double x) { return x == 0; }));
    EXPECT_TRUE(
        std::all_of(first.data().begin(), first.data().end(), [](double x) { return x == 0; }));
}

TEST(SharedZeros, WritingOneCopiesItSoTheOthersStayZero) {
    Tensor<float> written = detail::shared_zeros<float>(Shape{16});
    std::span<float> elements = detail::TensorAccess::writable(written);
    std::fill(elements.begin(), elements.end(), 1.0F);
    EXPECT_EQ(written.data()[0], 1.0F);
    EXPECT_TRUE(all_zero(detail::shared_zeros<float>(Shape{16})));
}

TEST(SharedZeros, AOneElementZeroIsNeverGivenUpAsASpareBuffer) {
    const Tensor<float> alone = detail::shared_zeros<float>(Shape{1});
    EXPECT_EQ(detail::TensorAccess::unshared_buffer(alone), nullptr);
}

TEST(SharedZeros, ReluStillComparesWithZero) {
    Tape<float> tape;
    auto x = tape.input(Tensor<float>(Shape{2, 2}, {-1.0F, 2.0F, -3.0F, 4.0F}));
    const Symbol y = x.relu().symbol();
    const auto network = std::move(tape).into_network();
    EXPECT_TRUE(network.forward(network.parameters(), {})
                    .of(y)
                    .bit_equal(Tensor<float>(Shape{2, 2}, {0.0F, 2.0F, 0.0F, 4.0F})));
}

}  // namespace
}  // namespace topos
