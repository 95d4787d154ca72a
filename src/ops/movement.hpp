// The data movement of a Permute, and the batched transposes it becomes most
// often (a convolution's rows to and from channels-first images).
#pragma once

#include "ops/common.hpp"

#include <array>
#include <cstddef>
#include <span>

namespace topos::detail {

// Whether `order` swaps the last two axes and keeps the others in place: a
// batch of transposes.
inline bool is_batch_of_transposes(std::span<const std::size_t> order) {
    const std::size_t rank = order.size();
    if (rank < 2 || order[rank - 1] != rank - 2 || order[rank - 2] != rank - 1) {
        return false;
    }
    for (std::size_t axis = 0; axis + 2 < rank; ++axis) {
        if (order[axis] != axis) {
            return false;
        }
    }
    return true;
}

// A permutation with as few axes as the same data movement allows: axes of
// extent 1 dropped, and input axes that stay adjacent and in order merged into
// one. E.g. [N, H, W, C] by {0, 3, 1, 2} is [N, H*W, C] by {0, 2, 1}.
struct Movement {
    std::array<std::size_t, Shape::max_rank> input{};  // merged input extents
    std::array<std::size_t, Shape::max_rank> order{};  // merged order
    std::size_t rank = 0;

    // Swapping the last two axes, the others in place: a batch of transposes.
    bool is_transpose() const { return is_batch_of_transposes({order.data(), rank}); }
};

Movement simplify(const Shape& input, const Axes& order);

// out[j][i] = in[i - first_row][j] for rows [first_row, last_row) of a [rows,
// columns] matrix: `in` holds those rows only, `out` the whole [columns, rows]
// result. The moves are copies, so any split of the rows gives the same result.
template <Element T>
void transpose_rows(const T* in,
                    T* out,
                    std::size_t rows,
                    std::size_t columns,
                    std::size_t first_row,
                    std::size_t last_row);

}  // namespace topos::detail
