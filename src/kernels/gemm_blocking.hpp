// The blocking shared by the GEMM drivers (float and double in gemm.cpp, the
// bf16 products in gemm_bf16.cpp): how an output is cut into independent
// tiles for the thread pool, and which register tile an instruction set gives
// a product. Cutting never changes a result: a tile holds whole outputs, each
// of which keeps its k terms on one thread.
#pragma once

#include "core/thread_pool.hpp"
#include "kernels/micro_kernel.hpp"
#include <topos/core/isa.hpp>
#include <topos/core/tensor.hpp>

#include <algorithm>
#include <cstddef>

namespace topos::detail::blocking {

inline std::size_t divide_up(std::size_t a, std::size_t b) {
    return (a + b - 1) / b;
}

inline std::size_t round_up(std::size_t a, std::size_t multiple) {
    return divide_up(a, multiple) * multiple;
}

// An extent cut into `parts` near-equal ranges of whole units (micro-kernel
// rows or columns); only the last unit may be short.
struct Partition {
    std::size_t extent;
    std::size_t unit;
    std::size_t parts;

    std::size_t first(std::size_t part) const {
        return part * divide_up(extent, unit) / parts * unit;
    }

    std::size_t count(std::size_t part) const {
        return std::min(extent, first(part + 1)) - first(part);
    }
};

// How a row sweep's columns are cut over `threads` threads: one contiguous
// range each, in whole units of `part_columns`. A sweep is bound by reading
// B, and two threads that each stream their own run of every B row read
// faster than two that take turns at shorter parts of the same rows
// (docs/performance.md, "Decoding on two threads").
inline Partition sweep_partition(std::size_t columns,
                                 std::size_t threads,
                                 std::size_t part_columns) {
    return {columns, part_columns, std::min(threads, divide_up(columns, part_columns))};
}

// A row sweep's multiply-adds cost a read of B each, where a tiled product's
// reuse every packed element many times: a sweep splits over the pool from
// this fraction of GemmOptions::parallel_threshold, about the same time.
inline constexpr std::size_t sweep_threshold_divisor = 16;

// The threads a row sweep of `multiply_adds` takes.
inline std::size_t sweep_threads(std::size_t multiply_adds, std::size_t parallel_threshold) {
    return multiply_adds < parallel_threshold / sweep_threshold_divisor
               ? 1
               : ThreadPool::instance().thread_count();
}

// How a k block's output is cut into independent tiles for `threads` threads:
// row blocks of at most the kernel's row_block rows, a multiple of the thread
// count of them; a matrix too short for that is cut across columns as well.
struct TileGrid {
    Partition rows;
    Partition columns;
};

// Whether a product has few enough rows for one thread to keep A's whole k
// block in its cache: two of the kernel's row blocks. (`Kernel` is any
// register tile with rows, columns and row_block, as MicroKernel.)
template <class Kernel>
bool has_few_rows(const Kernel& kernel, std::size_t rows) {
    return rows <= 2 * kernel.row_block;
}

// Whether each thread should take its own columns of a product whole, packing
// its own panels of B and every row of A, rather than share each packed k
// block of B: a product of few rows, with two panels or more for every
// thread. Shared blocks make every thread wait for the packing at each k
// block, so none computes while B is read from memory; on columns of their
// own the threads drift apart, one reading B while another's tiles run.
template <class Kernel>
bool splits_columns(const Kernel& kernel,
                    std::size_t rows,
                    std::size_t columns,
                    std::size_t threads) {
    return threads > 1 && has_few_rows(kernel, rows) &&
           divide_up(columns, kernel.columns) >= 2 * threads;
}

// Calls multiply(first, count, threads) over a product's columns: once for
// all of them, the threads sharing each packed k block of B, or, where
// splits_columns, once for each thread's share of them, over the pool, on
// one thread each.
template <class Kernel, class MultiplyColumns>
void split_columns_when_worth_it(const Kernel& kernel,
                                 std::size_t rows,
                                 std::size_t columns,
                                 std::size_t threads,
                                 MultiplyColumns&& multiply) {
    if (!splits_columns(kernel, rows, columns, threads)) {
        multiply(std::size_t{0}, columns, threads);
        return;
    }
    const Partition parts{columns, kernel.columns, threads};
    ThreadPool::instance().run(threads, [&](std::size_t part) {
        multiply(parts.first(part), parts.count(part), std::size_t{1});
    });
}

template <class Kernel>
TileGrid tile_grid(const Kernel& kernel,
                   std::size_t rows,
                   std::size_t columns,
                   std::size_t threads) {
    const std::size_t row_units = divide_up(rows, kernel.rows);
    std::size_t row_blocks = divide_up(rows, kernel.row_block);
    if (threads > 1 && row_blocks >= threads) {
        row_blocks = round_up(row_blocks, threads);
    }
    row_blocks = std::min(row_blocks, row_units);
    const std::size_t column_units = divide_up(columns, kernel.columns);
    const std::size_t column_splits = row_blocks < threads ? std::min(threads, column_units) : 1;
    return {{rows, kernel.rows, row_blocks}, {columns, kernel.columns, column_splits}};
}

// Calls task(i) for i < count: over the pool when threads > 1, else in order on
// this thread.
template <class Task>
void run_tasks(std::size_t count, std::size_t threads, Task&& task) {
    if (threads > 1) {
        ThreadPool::instance().run(count, task);
        return;
    }
    for (std::size_t i = 0; i < count; ++i) {
        task(i);
    }
}

// Calls tile(first_row, rows, first_column, columns) for every tile of a k
// block's output of `rows` by `columns`, cut by tile_grid, over `threads`.
template <class Kernel, class Tile>
void for_each_tile(
    const Kernel& kernel, std::size_t rows, std::size_t columns, std::size_t threads, Tile&& tile) {
    const TileGrid grid = tile_grid(kernel, rows, columns, threads);
    const std::size_t splits = grid.columns.parts;
    run_tasks(grid.rows.parts * splits, threads, [&](std::size_t task) {
        const std::size_t row_part = task / splits;
        const std::size_t column_part = task % splits;
        tile(grid.rows.first(row_part),
             grid.rows.count(row_part),
             grid.columns.first(column_part),
             grid.columns.count(column_part));
    });
}

// The tile for a product of `columns` columns: the narrowest of the
// instruction set's tiles (an AVX-512 machine also runs AVX2's) that is at
// least that wide, or the wide tile.
template <Element T>
MicroKernel<T> micro_kernel_for(Isa isa, std::size_t columns);

}  // namespace topos::detail::blocking
