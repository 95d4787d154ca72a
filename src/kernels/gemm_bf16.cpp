// The bf16 GEMM driver: the float GEMM's loop nest (gemm.cpp) over bf16
// operands. For each batch, column block and k block, B is packed once (over
// the pool when large), then independent output tiles run over the pool, each
// packing its own A block. Sums stay in float: in a scratch of the whole
// (tile-padded) output while a later k block will continue them, else in one
// tile on the stack. After a tile's last k block its sums round once into the
// bf16 result. Two schemes share the driver: the exact one (widened float
// panels, the float GEMM's tiles and its fma order) and the AVX-512 BF16 dot
// product (k-pair panels, vdpbf16ps).
#include "kernels/gemm_bf16.hpp"

#include "core/thread_pool.hpp"
#include "kernels/bf16_rows.hpp"
#include "kernels/gemm_blocking.hpp"
#include "kernels/micro_kernel_bf16.hpp"
#include "kernels/pack_bf16.hpp"
#include "kernels/row_sweep.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

#if defined(__x86_64__)
#include <cpuid.h>
#endif

namespace topos::detail {
namespace {
// Named, so that a unity build may compile this file beside gemm.cpp.
namespace bf16_gemm {

// How one kind of product packs and multiplies: its tile, its panels' element
// type, and how far each panel's depth is padded (2 for k pairs).
template <class Packed>
struct Scheme {
    SumMicroKernel<Packed> kernel;
    std::size_t depth_step;
    void (*pack)(Plane<bf16> plane, const PanelBlock& block, Packed* out);
};

// The largest tile of any scheme, in floats (12 x 32, 24 x 16).
constexpr std::size_t largest_tile = 384;

// Float sums of the output: element (i, j) at data[i * row_stride + j], with
// rows and columns padded to whole tiles so every tile is stored whole.
struct Sums {
    float* data;
    std::size_t row_stride;
};

// One matrix triple of a batch; sums.data is null when the depth is one k
// block (each tile then sums on the stack).
template <class Packed>
struct Product {
    const Scheme<Packed>& scheme;
    Plane<bf16> a;
    Plane<bf16> b;
    Sums sums;
    bf16* c;
    std::size_t c_row_stride;
    std::size_t rows;
    std::size_t depth;
    std::size_t columns;
};

// A packed k block of B: columns [first, first + count), depth [depth_first,
// depth_first + depth); `last` when it ends the product's depth.
template <class Packed>
struct PackedB {
    const Packed* data;
    std::size_t first;
    std::size_t count;
    std::size_t depth_first;
    std::size_t depth;
    bool last;
};

// The calling thread's float scratch of at least `elements` (64-byte aligned;
// valid until its next call).
float* sums_buffer(std::size_t elements) {
    struct Release {
        void operator()(float* data) const { ::operator delete (data, std::align_val_t{64}); }
    };

    thread_local std::unique_ptr<float, Release> buffer;
    thread_local std::size_t capacity = 0;
    if (elements > capacity) {
        buffer.reset(
            static_cast<float*>(::operator new (elements * sizeof(float), std::align_val_t{64})));
        capacity = elements;
    }
    return buffer.get();
}

// Rounds rows x columns float sums once each into the bf16 result.
void round_tile(const float* sums,
                std::size_t sums_row_stride,
                bf16* c,
                std::size_t c_row_stride,
                std::size_t rows,
                std::size_t columns) {
    for (std::size_t r = 0; r < rows; ++r) {
        round_row(sums + r * sums_row_stride, columns, c + r * c_row_stride);
    }
}

// Rows [row_first, row_first + row_count) times the packed B's columns
// [column_first, column_first + column_count) (relative to the block).
template <class Packed>
void multiply_tile(const Product<Packed>& product,
                   const PackedB<Packed>& b,
                   std::size_t row_first,
                   std::size_t row_count,
                   std::size_t column_first,
                   std::size_t column_count) {
    const Scheme<Packed>& scheme = product.scheme;
    const SumMicroKernel<Packed>& kernel = scheme.kernel;
    const PanelBlock a_block{
        PackSide::A, row_first, row_count, b.depth_first, b.depth, kernel.rows};
    Packed* packed_a =
        pack_buffer<Packed>(PackSide::A, packed_elements(a_block, scheme.depth_step));
    scheme.pack(product.a, a_block, packed_a);
    const std::size_t depth = blocking::round_up(b.depth, scheme.depth_step);
    const bool accumulate = b.depth_first > 0;
    std::array<float, largest_tile> stack_tile{};
    const std::size_t column_end = column_first + column_count;
    for (std::size_t j = column_first; j < column_end; j += kernel.columns) {
        const std::size_t columns = std::min(kernel.columns, column_end - j);
        for (std::size_t i = 0; i < row_count; i += kernel.rows) {
            const std::size_t row = row_first + i;
            const std::size_t column = b.first + j;
            const Sums tile = product.sums.data == nullptr
                                  ? Sums{stack_tile.data(), kernel.columns}
                                  : Sums{product.sums.data + row * product.sums.row_stride + column,
                                         product.sums.row_stride};
            kernel.tile(depth,
                        packed_a + i * depth,
                        b.data + j * depth,
                        tile.data,
                        tile.row_stride,
                        accumulate);
            if (b.last) {
                round_tile(tile.data,
                           tile.row_stride,
                           product.c + row * product.c_row_stride + column,
                           product.c_row_stride,
                           std::min(kernel.rows, row_count - i),
                           columns);
            }
        }
    }
}

template <class Packed>
void multiply_k_block(const Product<Packed>& product,
                      const PackedB<Packed>& b,
                      std::size_t threads) {
    blocking::for_each_tile(product.scheme.kernel,
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

// A k block of B at least this large is packed by all threads, each taking
// whole panels (as gemm.cpp does).
constexpr std::size_t shared_packing_elements = std::size_t{1} << 15;

// Packs depth [pc, pc + kc) and columns [jc, jc + nc) of B into `buffer`, each
// panel where a single pack would put it, over the pool when large enough.
template <class Packed>
void pack_b_block(const Product<Packed>& product,
                  std::size_t pc,
                  std::size_t kc,
                  std::size_t jc,
                  std::size_t nc,
                  Packed* buffer,
                  std::size_t threads) {
    const std::size_t panel = product.scheme.kernel.columns;
    const std::size_t parts =
        kc * nc < shared_packing_elements ? 1 : std::min(threads, blocking::divide_up(nc, panel));
    const blocking::Partition columns{nc, panel, parts};
    const std::size_t padded_depth = blocking::round_up(kc, product.scheme.depth_step);
    blocking::run_tasks(parts, parts, [&](std::size_t part) {
        const std::size_t first = columns.first(part);
        product.scheme.pack(product.b,
                            PanelBlock{PackSide::B, jc + first, columns.count(part), pc, kc, panel},
                            buffer + first * padded_depth);
    });
}

// Columns [first, first + count) of the product, each k block of B packed
// once and shared by `threads` threads.
template <class Packed>
void multiply_columns(const Product<Packed>& product,
                      std::size_t first,
                      std::size_t count,
                      std::size_t threads) {
    const Scheme<Packed>& scheme = product.scheme;
    const SumMicroKernel<Packed>& kernel = scheme.kernel;
    const std::size_t end = first + count;
    for (std::size_t jc = first; jc < end; jc += kernel.column_block) {
        const std::size_t nc = std::min(kernel.column_block, end - jc);
        for (std::size_t pc = 0; pc < product.depth; pc += kernel.depth_block) {
            const std::size_t kc = std::min(kernel.depth_block, product.depth - pc);
            const PanelBlock block{PackSide::B, jc, nc, pc, kc, kernel.columns};
            Packed* buffer =
                pack_buffer<Packed>(PackSide::B, packed_elements(block, scheme.depth_step));
            pack_b_block(product, pc, kc, jc, nc, buffer, threads);
            multiply_k_block(product,
                             PackedB<Packed>{buffer, jc, nc, pc, kc, pc + kc == product.depth},
                             threads);
        }
    }
}

template <class Packed>
void multiply(const Product<Packed>& product, std::size_t threads) {
    blocking::split_columns_when_worth_it(
        product.scheme.kernel,
        product.rows,
        product.columns,
        threads,
        [&](std::size_t first, std::size_t count, std::size_t threads_each) {
            multiply_columns(product, first, count, threads_each);
        });
}

void fill_zeros(GemmExtents e, MatrixTarget<bf16> c) {
    for (std::size_t batch = 0; batch < e.batches; ++batch) {
        for (std::size_t i = 0; i < e.rows; ++i) {
            bf16* row = c.data + static_cast<std::ptrdiff_t>(batch) * c.batch_stride +
                        static_cast<std::ptrdiff_t>(i) * c.row_stride;
            std::fill_n(row, e.columns, bf16{});
        }
    }
}

// One batch's product, with this thread's scratch for its sums when its depth
// spans several k blocks.
template <class Packed>
void multiply_batch(const Scheme<Packed>& scheme,
                    GemmExtents e,
                    MatrixView<bf16> a,
                    MatrixView<bf16> b,
                    MatrixTarget<bf16> c,
                    std::size_t batch,
                    std::size_t threads) {
    const SumMicroKernel<Packed>& kernel = scheme.kernel;
    Sums sums{nullptr, 0};
    if (e.depth > kernel.depth_block) {
        sums.row_stride = blocking::round_up(e.columns, kernel.columns);
        sums.data = sums_buffer(blocking::round_up(e.rows, kernel.rows) * sums.row_stride);
    }
    const Product<Packed> product{scheme,
                                  plane_of(a, batch),
                                  plane_of(b, batch),
                                  sums,
                                  c.data + static_cast<std::ptrdiff_t>(batch) * c.batch_stride,
                                  static_cast<std::size_t>(c.row_stride),
                                  e.rows,
                                  e.depth,
                                  e.columns};
    multiply(product, threads);
}

template <class Packed>
void run_product(const Scheme<Packed>& scheme,
                 std::size_t parallel_threshold,
                 GemmExtents e,
                 MatrixView<bf16> a,
                 MatrixView<bf16> b,
                 MatrixTarget<bf16> c) {
    if (e.batches == 0 || e.rows == 0 || e.columns == 0) {
        return;
    }
    if (e.depth == 0) {
        fill_zeros(e, c);
        return;
    }
    const std::size_t multiply_adds = e.batches * e.rows * e.depth * e.columns;
    const std::size_t threads =
        multiply_adds < parallel_threshold ? 1 : ThreadPool::instance().thread_count();
    const bool batches_in_parallel =
        threads > 1 && e.batches >= threads &&
        blocking::tile_grid(scheme.kernel, e.rows, e.columns, threads).rows.parts < threads;
    if (batches_in_parallel) {
        ThreadPool::instance().run(
            e.batches, [&](std::size_t batch) { multiply_batch(scheme, e, a, b, c, batch, 1); });
        return;
    }
    for (std::size_t batch = 0; batch < e.batches; ++batch) {
        multiply_batch(scheme, e, a, b, c, batch, threads);
    }
}

// Whether a product runs the row sweep: at most row_sweep_rows rows (and
// nothing empty) over a row-major B, a product bound by reading B once.
bool swept(GemmExtents e, MatrixView<bf16> b) {
    return e.batches > 0 && e.rows > 0 && e.columns > 0 && e.depth > 0 &&
           e.rows <= row_sweep_rows && b.column_stride == 1;
}

// A product of at most row_sweep_rows rows whose B lies row-major: A's rows
// widened once, B widened as the sweep reads it, the float sums rounded once
// each into C, part by part (each part's columns on the thread that sums them).
void sweep_product(Isa isa,
                   std::size_t threads,
                   GemmExtents e,
                   MatrixView<bf16> a,
                   MatrixView<bf16> b,
                   MatrixTarget<bf16> c) {
    thread_local std::vector<float> widened_rows;
    thread_local std::vector<float> sums;
    float* a_rows = float_scratch(widened_rows, e.rows * e.depth);
    float* c_sums = float_scratch(sums, e.rows * e.columns);
    const SweepFunction<float, bf16> sweep = widening_row_sweep_for(isa);
    const blocking::Partition columns =
        blocking::sweep_partition(e.columns, threads, sweep_part_columns<float>);
    for (std::size_t batch = 0; batch < e.batches; ++batch) {
        const Plane<bf16> a_plane = plane_of(a, batch);
        for (std::size_t r = 0; r < e.rows; ++r) {
            for (std::size_t p = 0; p < e.depth; ++p) {
                a_rows[r * e.depth + p] = widened_from_bf16(*a_plane.at(r, p));
            }
        }
        const auto at = static_cast<std::ptrdiff_t>(batch);
        const SweepOperands<float, bf16> operands{a_rows,
                                                  static_cast<std::ptrdiff_t>(e.depth),
                                                  1,
                                                  e.rows,
                                                  b.data + at * b.batch_stride,
                                                  b.row_stride,
                                                  e.depth,
                                                  c_sums,
                                                  static_cast<std::ptrdiff_t>(e.columns),
                                                  false};
        bf16* c_batch = c.data + at * c.batch_stride;
        blocking::run_tasks(columns.parts, threads, [&](std::size_t part) {
            const std::size_t first = columns.first(part);
            const std::size_t count = columns.count(part);
            sweep(operands, first, count);
            for (std::size_t r = 0; r < e.rows; ++r) {
                round_row(c_sums + r * e.columns + first,
                          count,
                          c_batch + static_cast<std::ptrdiff_t>(r) * c.row_stride + first);
            }
        });
    }
}

Scheme<float> exact_scheme(Isa isa, std::size_t columns) {
    const MicroKernel<float> tile = blocking::micro_kernel_for<float>(isa, columns);
    return {
        {tile.tile, tile.rows, tile.columns, tile.depth_block, tile.row_block, tile.column_block},
        1,
        pack_widened};
}

bool processor_has_avx512_bf16() {
#if defined(__x86_64__)
    unsigned int eax = 0;
    unsigned int ebx = 0;
    unsigned int ecx = 0;
    unsigned int edx = 0;
    // Leaf 7, subleaf 0 gives the last subleaf in EAX; subleaf 1's EAX bit 5 is AVX512_BF16.
    if (__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx) == 0 || eax < 1) {
        return false;
    }
    __get_cpuid_count(7, 1, &eax, &ebx, &ecx, &edx);
    // The pair packing's word permutes are AVX-512BW's (every processor with
    // AVX512_BF16 so far has it).
    return ((eax >> 5U) & 1U) != 0 && __builtin_cpu_supports("avx512bw") != 0;
#else
    return false;
#endif
}

}  // namespace bf16_gemm
}  // namespace

void gemm_bf16_with(Bf16GemmOptions options,
                    GemmExtents extents,
                    MatrixView<bf16> a,
                    MatrixView<bf16> b,
                    MatrixTarget<bf16> c) {
    using namespace bf16_gemm;
    const GemmExtents& e = extents;
    if (swept(e, b)) {
        const std::size_t multiply_adds = e.batches * e.rows * e.depth * e.columns;
        sweep_product(options.isa,
                      blocking::sweep_threads(multiply_adds, options.parallel_threshold),
                      e,
                      a,
                      b,
                      c);
        return;
    }
    run_product(
        exact_scheme(options.isa, extents.columns), options.parallel_threshold, extents, a, b, c);
}

void gemm_bf16(GemmExtents extents, MatrixView<bf16> a, MatrixView<bf16> b, MatrixTarget<bf16> c) {
    gemm_bf16_with(Bf16GemmOptions{}, extents, a, b, c);
}

bool runs_avx512_bf16(Isa isa) {
    static const bool has_bf16 = bf16_gemm::processor_has_avx512_bf16();
    return has_bf16 && isa == Isa::Avx512;
}

void gemm_bf16_dot_with(Bf16GemmOptions options,
                        GemmExtents extents,
                        MatrixView<bf16> a,
                        MatrixView<bf16> b,
                        MatrixTarget<bf16> c) {
#if defined(__x86_64__)
    using namespace bf16_gemm;
    // Packing B into pairs would read it twice where the exact sweep reads it
    // once.
    if (runs_avx512_bf16(options.isa) && !swept(extents, b)) {
        const SumMicroKernel<bf16> narrow = avx512_bf16_dot_narrow_micro_kernel();
        const Scheme<bf16> scheme{
            extents.columns <= narrow.columns ? narrow : avx512_bf16_dot_micro_kernel(),
            2,
            [](Plane<bf16> plane, const PanelBlock& block, bf16* out) {
                pack_pairs(avx512_interleave_pairs, plane, block, out);
            }};
        run_product(scheme, options.parallel_threshold, extents, a, b, c);
        return;
    }
#endif
    gemm_bf16_with(options, extents, a, b, c);
}

void gemm_bf16_dot(GemmExtents extents,
                   MatrixView<bf16> a,
                   MatrixView<bf16> b,
                   MatrixTarget<bf16> c) {
    gemm_bf16_dot_with(Bf16GemmOptions{}, extents, a, b, c);
}

}  // namespace topos::detail
