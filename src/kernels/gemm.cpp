// The exact GEMM driver (BLIS's loop nest): for each batch, column block (jc)
// and k block (pc), pack B once (a large block over the thread pool); then
// split the output rows (and, for short matrices, the columns) into
// independent tiles over the pool, each packing its own A block and sweeping
// micro-kernel tiles. k blocks run in ascending order and continue from the
// stored partial sums, so every element sees the reference's fma chain; no
// thread ever takes part of an element's k.
#include "kernels/gemm.hpp"

#include "core/thread_pool.hpp"
#include "kernels/gemm_blocking.hpp"
#include "kernels/micro_kernel.hpp"
#include "kernels/pack.hpp"
#include "kernels/row_sweep.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace topos::detail {
namespace {

constexpr std::size_t largest_tile = std::size_t{12} * 32;

// One matrix triple of a batch.
template <Element T>
struct Product {
    const MicroKernel<T>& kernel;
    Plane<T> a;
    Plane<T> b;
    T* c;
    std::size_t c_row_stride;
    std::size_t rows;
    std::size_t depth;
    std::size_t columns;
    bool continues;  // C holds the sums of earlier terms
};

// A packed k block of B: columns [first, first + count) of the product, depth
// [depth_first, depth_first + depth).
template <Element T>
struct PackedB {
    const T* data;
    std::size_t first;
    std::size_t count;
    std::size_t depth_first;
    std::size_t depth;
};

// A tile at the matrix's edge: computed in a full-size scratch tile, of which
// only the rows x columns inside the matrix are stored.
template <Element T>
void edge_tile(const MicroKernel<T>& kernel,
               const T* a_panel,
               const T* b_panel,
               std::size_t depth,
               T* c,
               std::size_t c_row_stride,
               std::size_t rows,
               std::size_t columns,
               bool accumulate) {
    std::array<T, largest_tile> scratch{};
    for (std::size_t r = 0; r < rows && accumulate; ++r) {
        std::copy_n(c + r * c_row_stride, columns, scratch.data() + r * kernel.columns);
    }
    kernel.tile(depth, a_panel, b_panel, scratch.data(), kernel.columns, accumulate);
    for (std::size_t r = 0; r < rows; ++r) {
        std::copy_n(scratch.data() + r * kernel.columns, columns, c + r * c_row_stride);
    }
}

// Rows [row_first, row_first + row_count) times the packed B's columns
// [column_first, column_first + column_count) (relative to the block).
template <Element T>
void multiply_tile(const Product<T>& product,
                   const PackedB<T>& b,
                   std::size_t row_first,
                   std::size_t row_count,
                   std::size_t column_first,
                   std::size_t column_count) {
    const MicroKernel<T>& kernel = product.kernel;
    T* packed_a = pack_buffer<T>(PackSide::A, blocking::round_up(row_count, kernel.rows) * b.depth);
    pack_a(product.a, row_first, row_count, b.depth_first, b.depth, kernel.rows, packed_a);
    const bool accumulate = product.continues || b.depth_first > 0;
    const std::size_t column_end = column_first + column_count;
    for (std::size_t j = column_first; j < column_end; j += kernel.columns) {
        const std::size_t columns = std::min(kernel.columns, column_end - j);
        const T* b_panel = b.data + j * b.depth;
        for (std::size_t i = 0; i < row_count; i += kernel.rows) {
            const std::size_t rows = std::min(kernel.rows, row_count - i);
            const T* a_panel = packed_a + i * b.depth;
            T* c = product.c + (row_first + i) * product.c_row_stride + b.first + j;
            if (rows == kernel.rows && columns == kernel.columns) {
                kernel.tile(b.depth, a_panel, b_panel, c, product.c_row_stride, accumulate);
            } else {
                edge_tile(kernel,
                          a_panel,
                          b_panel,
                          b.depth,
                          c,
                          product.c_row_stride,
                          rows,
                          columns,
                          accumulate);
            }
        }
    }
}

template <Element T>
void multiply_k_block(const Product<T>& product, const PackedB<T>& b, std::size_t threads) {
    blocking::for_each_tile(product.kernel,
                            product.rows,
                            b.count,
                            threads,
                            [&](std::size_t first_row,
                                std::size_t rows,
                                std::size_t first_column,
                                std::size_t columns) {
                                multiply_tile(product, b, first_row, rows, first_column, columns);
                            });
}

// Whether B is already one packed panel: row-major with exactly the kernel's
// columns, so that any k block of it is laid out as pack_b would copy it.
template <Element T>
bool b_is_a_panel(const Product<T>& product) {
    return product.columns == product.kernel.columns && product.b.column_stride == 1 &&
           product.b.row_stride == static_cast<std::ptrdiff_t>(product.kernel.columns);
}

// A k block of B at least this large is packed by all threads, each taking
// whole panels: below it, handing the work out costs more than it saves.
constexpr std::size_t shared_packing_elements = std::size_t{1} << 15;

// Packs depth [pc, pc + kc) and columns [jc, jc + nc) of B into `buffer`, each
// panel at the place pack_b would give it, over the pool when large enough.
template <Element T>
void pack_b_block(const Product<T>& product,
                  std::size_t pc,
                  std::size_t kc,
                  std::size_t jc,
                  std::size_t nc,
                  T* buffer,
                  std::size_t threads) {
    const std::size_t panel = product.kernel.columns;
    const std::size_t parts =
        kc * nc < shared_packing_elements ? 1 : std::min(threads, blocking::divide_up(nc, panel));
    const blocking::Partition columns{nc, panel, parts};
    blocking::run_tasks(parts, parts, [&](std::size_t part) {
        const std::size_t first = columns.first(part);
        pack_b(product.b, pc, kc, jc + first, columns.count(part), panel, buffer + first * kc);
    });
}

// Columns [first, first + count) of the product, each k block of B packed
// once and shared by `threads` threads.
template <Element T>
void multiply_columns(const Product<T>& product,
                      std::size_t first,
                      std::size_t count,
                      std::size_t threads) {
    const MicroKernel<T>& kernel = product.kernel;
    const bool packed_already = b_is_a_panel(product);
    const std::size_t end = first + count;
    for (std::size_t jc = first; jc < end; jc += kernel.column_block) {
        const std::size_t nc = std::min(kernel.column_block, end - jc);
        for (std::size_t pc = 0; pc < product.depth; pc += kernel.depth_block) {
            const std::size_t kc = std::min(kernel.depth_block, product.depth - pc);
            const T* packed = product.b.at(pc, jc);
            if (!packed_already) {
                T* buffer =
                    pack_buffer<T>(PackSide::B, blocking::round_up(nc, kernel.columns) * kc);
                pack_b_block(product, pc, kc, jc, nc, buffer, threads);
                packed = buffer;
            }
            multiply_k_block(product, PackedB<T>{packed, jc, nc, pc, kc}, threads);
        }
    }
}

template <Element T>
void multiply(const Product<T>& product, std::size_t threads) {
    blocking::split_columns_when_worth_it(
        product.kernel,
        product.rows,
        product.columns,
        threads,
        [&](std::size_t first, std::size_t count, std::size_t threads_each) {
            multiply_columns(product, first, count, threads_each);
        });
}

template <Element T>
void fill_zeros(GemmExtents e, MatrixTarget<T> c) {
    for (std::size_t batch = 0; batch < e.batches; ++batch) {
        for (std::size_t i = 0; i < e.rows; ++i) {
            T* row = c.data + static_cast<std::ptrdiff_t>(batch) * c.batch_stride +
                     static_cast<std::ptrdiff_t>(i) * c.row_stride;
            std::fill_n(row, e.columns, T{0});
        }
    }
}

// A product of at most row_sweep_rows rows whose B lies row-major: swept,
// each batch's columns split over the pool when the product is large enough.
template <Element T>
bool sweepable(GemmExtents e, MatrixView<T> b) {
    return e.rows <= row_sweep_rows && b.column_stride == 1;
}

template <Element T>
void sweep_product(GemmOptions options,
                   GemmExtents e,
                   MatrixView<T> a,
                   MatrixView<T> b,
                   MatrixTarget<T> c,
                   std::size_t threads) {
    const SweepFunction<T> sweep = row_sweep_for<T>(options.isa);
    const blocking::Partition columns =
        blocking::sweep_partition(e.columns, threads, sweep_part_columns<T>);
    for (std::size_t batch = 0; batch < e.batches; ++batch) {
        const auto at = static_cast<std::ptrdiff_t>(batch);
        const SweepOperands<T> operands{a.data + at * a.batch_stride,
                                        a.row_stride,
                                        a.column_stride,
                                        e.rows,
                                        b.data + at * b.batch_stride,
                                        b.row_stride,
                                        e.depth,
                                        c.data + at * c.batch_stride,
                                        c.row_stride,
                                        options.continue_sums};
        blocking::run_tasks(columns.parts, threads, [&](std::size_t part) {
            sweep(operands, columns.first(part), columns.count(part));
        });
    }
}

}  // namespace

template <Element T>
MicroKernel<T> blocking::micro_kernel_for(Isa isa, [[maybe_unused]] std::size_t columns) {
    switch (isa) {
        case Isa::Portable:
            return portable_micro_kernel<T>();
#if defined(__x86_64__)
        case Isa::Avx2: {
            const MicroKernel<T> narrow = avx2_narrow_micro_kernel<T>();
            return columns <= narrow.columns ? narrow : avx2_micro_kernel<T>();
        }
        case Isa::Avx512: {
            const MicroKernel<T> narrowest = avx2_narrow_micro_kernel<T>();
            const MicroKernel<T> narrow = avx512_narrow_micro_kernel<T>();
            return columns <= narrowest.columns ? narrowest
                   : columns <= narrow.columns  ? narrow
                                                : avx512_micro_kernel<T>();
        }
#else
        case Isa::Avx2:
        case Isa::Avx512:
            break;
#endif
    }
    return portable_micro_kernel<T>();
}

template MicroKernel<float> blocking::micro_kernel_for<float>(Isa, std::size_t);
template MicroKernel<double> blocking::micro_kernel_for<double>(Isa, std::size_t);

template <Element T>
void gemm_with(
    GemmOptions options, GemmExtents e, MatrixView<T> a, MatrixView<T> b, MatrixTarget<T> c) {
    if (e.batches == 0 || e.rows == 0 || e.columns == 0) {
        return;
    }
    if (e.depth == 0) {
        if (!options.continue_sums) {
            fill_zeros(e, c);
        }
        return;
    }
    const std::size_t multiply_adds = e.batches * e.rows * e.depth * e.columns;
    if (sweepable(e, b)) {
        sweep_product(options,
                      e,
                      a,
                      b,
                      c,
                      blocking::sweep_threads(multiply_adds, options.parallel_threshold));
        return;
    }
    const std::size_t threads =
        multiply_adds < options.parallel_threshold ? 1 : ThreadPool::instance().thread_count();
    const MicroKernel<T> kernel = blocking::micro_kernel_for<T>(options.isa, e.columns);
    const auto product_of = [&](std::size_t batch) {
        const auto at = static_cast<std::ptrdiff_t>(batch);
        return Product<T>{kernel,
                          plane_of(a, batch),
                          plane_of(b, batch),
                          c.data + at * c.batch_stride,
                          static_cast<std::size_t>(c.row_stride),
                          e.rows,
                          e.depth,
                          e.columns,
                          options.continue_sums};
    };
    const bool batches_in_parallel =
        threads > 1 && e.batches >= threads &&
        blocking::tile_grid(kernel, e.rows, e.columns, threads).rows.parts < threads;
    if (batches_in_parallel) {
        ThreadPool::instance().run(e.batches,
                                   [&](std::size_t batch) { multiply(product_of(batch), 1); });
        return;
    }
    for (std::size_t batch = 0; batch < e.batches; ++batch) {
        multiply(product_of(batch), threads);
    }
}

template <Element T>
void gemm(GemmExtents extents, MatrixView<T> a, MatrixView<T> b, MatrixTarget<T> c) {
    gemm_with(GemmOptions{}, extents, a, b, c);
}

template void gemm<float>(GemmExtents, MatrixView<float>, MatrixView<float>, MatrixTarget<float>);
template void gemm<double>(GemmExtents,
                           MatrixView<double>,
                           MatrixView<double>,
                           MatrixTarget<double>);
template void gemm_with<float>(
    GemmOptions, GemmExtents, MatrixView<float>, MatrixView<float>, MatrixTarget<float>);
template void gemm_with<double>(
    GemmOptions, GemmExtents, MatrixView<double>, MatrixView<double>, MatrixTarget<double>);

template <Element T>
void multiply_matrices(
    const T* a, const T* b, T* out, std::size_t rows, std::size_t depth, std::size_t columns) {
    const auto signed_size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    gemm<T>({1, rows, depth, columns},
            {a, signed_size(depth), 1, signed_size(rows * depth)},
            {b, signed_size(columns), 1, signed_size(depth * columns)},
            {out, signed_size(columns), signed_size(rows * columns)});
}

template <Element T>
void multiply_transposed_matrices(
    const T* a, const T* b, T* out, std::size_t rows, std::size_t depth, std::size_t columns) {
    const auto signed_size = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    gemm<T>({1, rows, depth, columns},
            {a, 1, signed_size(rows), signed_size(rows * depth)},
            {b, signed_size(columns), 1, signed_size(depth * columns)},
            {out, signed_size(columns), signed_size(rows * columns)});
}

template void multiply_matrices(
    const float*, const float*, float*, std::size_t, std::size_t, std::size_t);
template void multiply_matrices(
    const double*, const double*, double*, std::size_t, std::size_t, std::size_t);
template void multiply_transposed_matrices(
    const float*, const float*, float*, std::size_t, std::size_t, std::size_t);
template void multiply_transposed_matrices(
    const double*, const double*, double*, std::size_t, std::size_t, std::size_t);

}  // namespace topos::detail
