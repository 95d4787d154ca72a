// transpose_rows (the permute row's matrix transpose, and the Llama folder
// loader's): every shape whose rows and columns fall on and off the vector
// tiles and the bands of tiles, whole or split into row ranges as threads
// split it, against the element-by-element definition.
#include "ops/movement.hpp"
#include <topos/core/bf16.hpp>

#include <gtest/gtest.h>

#include <cstddef>
#include <cstring>
#include <vector>

namespace topos {
namespace {

template <class T>
class TransposeRows : public ::testing::Test {};

using Elements = ::testing::Types<float, double, bf16>;
TYPED_TEST_SUITE(TransposeRows, Elements);

TYPED_TEST(TransposeRows, EqualsTheElementwiseDefinitionWholeAndSplitIntoRowRanges) {
    using T = TypeParam;
    for (const std::size_t rows : {1, 7, 8, 63, 64, 65, 150, 517}) {
        for (const std::size_t columns : {1, 9, 16, 77, 300}) {
            std::vector<T> in(rows * columns);
            for (std::size_t i = 0; i < in.size(); ++i) {
                in[i] = static_cast<T>(static_cast<float>(i % 4093) - 2000.0f);
            }
            std::vector<T> expected(in.size());
            for (std::size_t i = 0; i < rows; ++i) {
                for (std::size_t j = 0; j < columns; ++j) {
                    expected[j * rows + i] = in[i * columns + j];
                }
            }
            for (const std::size_t split : {rows, rows / 2, rows / 3 + 1}) {
                SCOPED_TRACE(std::to_string(rows) + " x " + std::to_string(columns) +
                             ", rows split at " + std::to_string(split));
                std::vector<T> out(in.size(), T{0});
                detail::transpose_rows(in.data(), out.data(), rows, columns, 0, split);
                detail::transpose_rows(
                    in.data() + split * columns, out.data(), rows, columns, split, rows);
                EXPECT_EQ(std::memcmp(out.data(), expected.data(), out.size() * sizeof(T)), 0);
            }
        }
    }
}

}  // namespace
}  // namespace topos
