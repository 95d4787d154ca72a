// Permute: reorders axes; output axis i is operand axis order[i].
#include "hlo/builder.hpp"
#include "kernels/transpose_avx2.hpp"
#include "ops/common.hpp"
#include "ops/movement.hpp"
#include "ops/rows.hpp"

#include <algorithm>
#include <array>

namespace topos::detail {
namespace {
namespace permute_op {

Shape infer(const ShapeCheck& check) {
    const Axes& order = check.attributes<PermuteAttributes>().order;
    const Shape& shape = check.operand(0);
    check.require(order.size() == shape.rank(),
                  "the order names " + std::to_string(order.size()) + " axes but the operand has " +
                      std::to_string(shape.rank()) + "; list every axis exactly once");
    std::array<bool, Shape::max_rank> seen{};
    std::array<std::size_t, Shape::max_rank> extents{};
    for (std::size_t i = 0; i < order.size(); ++i) {
        check.require(order[i] < shape.rank() && !seen[order[i]],
                      "the order is not a permutation of the operand's axes; list every axis "
                      "from 0 to rank - 1 exactly once");
        seen[order[i]] = true;
        extents[i] = shape[order[i]];
    }
    return Shape(std::span<const std::size_t>(extents.data(), shape.rank()));
}

// A permute by the identity order is its operand; a permute that undoes the
// permute it reads is that permute's operand.
std::optional<std::uint32_t> identity(const NodeView& node, const IdentityFacts& facts) {
    const Axes& outer = node.attributes_as<PermuteAttributes>().order;
    const std::uint32_t operand = facts.operand(0);
    bool identity_order = true;
    for (std::size_t i = 0; i < outer.size(); ++i) {
        identity_order = identity_order && outer[i] == i;
    }
    if (identity_order) {
        return operand;
    }
    const NodeView inner = facts.view(operand);
    if (inner.opcode() != Opcode::Permute) {
        return std::nullopt;
    }
    const Axes& first = inner.attributes_as<PermuteAttributes>().order;
    for (std::size_t i = 0; i < outer.size(); ++i) {
        if (first[outer[i]] != i) {
            return std::nullopt;
        }
    }
    return facts.operand_of(operand, 0);
}

}  // namespace permute_op
}  // namespace

Movement simplify(const Shape& input, const Axes& order) {
    // Output axes that move data, as input axes; runs of consecutive input axes
    // become one group.
    std::array<std::size_t, Shape::max_rank> kept{};
    std::size_t kept_count = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        if (input[order[i]] != 1) {
            kept[kept_count++] = order[i];
        }
    }
    std::array<std::size_t, Shape::max_rank> group_first{};  // first input axis of each group
    std::array<std::size_t, Shape::max_rank> group_extent{};
    std::size_t groups = 0;
    for (std::size_t i = 0; i < kept_count; ++i) {
        const bool continues = i > 0 && [&] {
            for (std::size_t axis = kept[i - 1] + 1; axis < kept[i]; ++axis) {
                if (input[axis] != 1) {
                    return false;
                }
            }
            return kept[i] > kept[i - 1];
        }();
        if (continues) {
            group_extent[groups - 1] *= input[kept[i]];
        } else {
            group_first[groups] = kept[i];
            group_extent[groups] = input[kept[i]];
            ++groups;
        }
    }
    // Number the groups by their position in the input.
    Movement movement;
    movement.rank = groups;
    for (std::size_t g = 0; g < groups; ++g) {
        std::size_t position = 0;
        for (std::size_t other = 0; other < groups; ++other) {
            position += group_first[other] < group_first[g] ? 1 : 0;
        }
        movement.order[g] = position;
        movement.input[position] = group_extent[g];
    }
    return movement;
}

namespace {

// out[j][i] = in[i - first_row][j] for rows [first_row, last_row) of a [rows,
// columns] matrix, columns [first_column, columns); `in` holds those rows.
template <Element T>
void transpose_elements(const T* in,
                        T* out,
                        std::size_t rows,
                        std::size_t columns,
                        std::size_t first_row,
                        std::size_t last_row,
                        std::size_t first_column) {
    for (std::size_t i = first_row; i < last_row; ++i) {
        const T* row = in + (i - first_row) * columns;
        for (std::size_t j = first_column; j < columns; ++j) {
            out[j * rows + i] = row[j];
        }
    }
}

#if defined(TOPOS_HAS_AVX2_LOOPS)
// The same in square tiles moved through vector registers; the rows and
// columns past the last whole tile element by element. The tiles go a band of
// rows at a time, column after column, so that the output's lines a band
// writes fill up while they are cached (a band of one tile would write each
// line in pieces far apart).
template <Element T>
void transpose_rows_in_tiles(const T* in,
                             T* out,
                             std::size_t rows,
                             std::size_t columns,
                             std::size_t first_row,
                             std::size_t last_row) {
    constexpr std::size_t tile = transpose_tile<T>;
    constexpr std::size_t band = 8 * tile;
    const std::size_t whole_columns = columns / tile * tile;
    std::size_t i = first_row;
    while (i + tile <= last_row) {
        const std::size_t band_end = i + std::min(band, (last_row - i) / tile * tile);
        const T* band_rows = in + (i - first_row) * columns;
        for (std::size_t j = 0; j < whole_columns; j += tile) {
            for (std::size_t t = i; t < band_end; t += tile) {
                transpose_tile_avx2(
                    band_rows + (t - i) * columns + j, columns, out + j * rows + t, rows);
            }
        }
        transpose_elements(band_rows, out, rows, columns, i, band_end, whole_columns);
        i = band_end;
    }
    transpose_elements(in + (i - first_row) * columns, out, rows, columns, i, last_row, 0);
}
#endif

}  // namespace

template <Element T>
void transpose_rows(const T* in,
                    T* out,
                    std::size_t rows,
                    std::size_t columns,
                    std::size_t first_row,
                    std::size_t last_row) {
#if defined(TOPOS_HAS_AVX2_LOOPS)
    if (runs_avx2_fma()) {
        transpose_rows_in_tiles(in, out, rows, columns, first_row, last_row);
        return;
    }
#endif
    // Square blocks, so that both the reads and the writes stay within cache lines.
    constexpr std::size_t block = 16;
    for (std::size_t i0 = first_row; i0 < last_row; i0 += block) {
        const std::size_t i1 = std::min(last_row, i0 + block);
        for (std::size_t j0 = 0; j0 < columns; j0 += block) {
            const std::size_t j1 = std::min(columns, j0 + block);
            for (std::size_t i = i0; i < i1; ++i) {
                const T* row = in + (i - first_row) * columns;
                for (std::size_t j = j0; j < j1; ++j) {
                    out[j * rows + i] = row[j];
                }
            }
        }
    }
}

template void transpose_rows<float>(
    const float*, float*, std::size_t, std::size_t, std::size_t, std::size_t);
template void transpose_rows<double>(
    const double*, double*, std::size_t, std::size_t, std::size_t, std::size_t);
template void transpose_rows<bf16>(
    const bf16*, bf16*, std::size_t, std::size_t, std::size_t, std::size_t);

namespace {
namespace permute_op {

// Each of `batches` [rows, columns] matrices transposed; a long batch is
// shared among the pool's threads by blocks of rows (each writes its own
// output columns, so the split moves the same elements).
template <Element T>
void transpose_matrices(
    const T* in, T* out, std::size_t batches, std::size_t rows, std::size_t columns) {
    const std::size_t matrix = rows * columns;
    const std::size_t rows_per_task =
        std::max<std::size_t>(16, elementwise_chunk / columns) / 16 * 16;
    const std::size_t tasks_per_matrix = (rows + rows_per_task - 1) / rows_per_task;
    auto task = [&](std::size_t index) {
        const std::size_t b = index / tasks_per_matrix;
        const std::size_t first = index % tasks_per_matrix * rows_per_task;
        transpose_rows(in + b * matrix + first * columns,
                       out + b * matrix,
                       rows,
                       columns,
                       first,
                       std::min(rows, first + rows_per_task));
    };
    if (batches * matrix < 4 * elementwise_chunk) {
        for (std::size_t index = 0; index < batches * tasks_per_matrix; ++index) {
            task(index);
        }
        return;
    }
    ThreadPool::instance().run(batches * tasks_per_matrix, task);
}

// Any movement: an odometer over the output's outer axes, and a strided run
// along its last axis (a contiguous copy when that axis stays last), for the
// output's runs [first_run, last_run).
template <Element T>
void permute_runs(
    const T* in, T* out, const Movement& m, std::size_t first_run, std::size_t last_run) {
    const std::size_t rank = m.rank;
    std::array<std::size_t, Shape::max_rank> input_stride{};
    for (std::size_t axis = rank, stride = 1; axis-- > 0;) {
        input_stride[axis] = stride;
        stride *= m.input[axis];
    }
    std::array<std::size_t, Shape::max_rank> extent{};  // of each output axis
    std::array<std::size_t, Shape::max_rank> stride{};  // input stride of each output axis
    for (std::size_t i = 0; i < rank; ++i) {
        extent[i] = m.input[m.order[i]];
        stride[i] = input_stride[m.order[i]];
    }
    const std::size_t run = extent[rank - 1];
    const std::size_t step = stride[rank - 1];
    // The odometer at the first run: its outer output index, digit by digit.
    std::array<std::size_t, Shape::max_rank> counter{};
    std::size_t offset = 0;
    for (std::size_t axis = rank - 1, rest = first_run; axis-- > 0;) {
        counter[axis] = rest % extent[axis];
        offset += counter[axis] * stride[axis];
        rest /= extent[axis];
    }
    for (std::size_t r = first_run; r < last_run; ++r) {
        const std::size_t first = r * run;
        if (step == 1) {
            copy_run(in + offset, run, out + first);
        } else {
            for (std::size_t j = 0; j < run; ++j) {
                out[first + j] = in[offset + j * step];
            }
        }
        for (std::size_t axis = rank - 1; axis-- > 0;) {  // advance the odometer
            offset += stride[axis];
            if (++counter[axis] < extent[axis]) {
                break;
            }
            offset -= stride[axis] * extent[axis];
            counter[axis] = 0;
        }
    }
}

// Every run of the output; a long output is shared among the pool's threads
// by ranges of runs.
template <Element T>
void permute_rows(const T* in, T* out, const Movement& m, std::size_t count) {
    const std::size_t run = m.input[m.order[m.rank - 1]];
    const std::size_t runs = count / run;
    if (count < 4 * elementwise_chunk) {
        permute_runs(in, out, m, 0, runs);
        return;
    }
    const std::size_t runs_per_task = std::max<std::size_t>(1, elementwise_chunk / run);
    ThreadPool::instance().run((runs + runs_per_task - 1) / runs_per_task, [&](std::size_t task) {
        const std::size_t first = task * runs_per_task;
        permute_runs(in, out, m, first, std::min(runs, first + runs_per_task));
    });
}

template <Element T>
void kernel(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const Shape& input = *operands[0].shape;
    const std::size_t count = input.elements();
    if (count == 0) {
        return;
    }
    const Movement movement = simplify(input, node.attributes_as<PermuteAttributes>().order);
    if (movement.rank <= 1) {
        std::copy_n(operands[0].data, count, out);
    } else if (movement.is_transpose()) {
        const std::size_t rows = movement.input[movement.rank - 2];
        const std::size_t columns = movement.input[movement.rank - 1];
        transpose_matrices(operands[0].data, out, count / (rows * columns), rows, columns);
    } else {
        permute_rows(operands[0].data, out, movement, count);
    }
}

// The adjoint permutes back by the inverse order.
void vjp(const VjpContext& c, std::span<std::optional<Ref>> contributions) {
    const Axes& order = c.node.attributes_as<PermuteAttributes>().order;
    std::array<std::size_t, Shape::max_rank> inverse{};
    for (std::size_t i = 0; i < order.size(); ++i) {
        inverse[order[i]] = i;
    }
    contributions[0] = c.build.permute(
        c.adjoint, Axes(std::span<const std::size_t>(inverse.data(), order.size())));
}

HloValue lower(HloBuilder& build, const NodeView& node) {
    return build.transpose(build.operand(0),
                           node.attributes_as<PermuteAttributes>().order.values());
}

}  // namespace permute_op
}  // namespace

OpInfo permute_row() {
    using namespace permute_op;
    return {.opcode = Opcode::Permute,
            .kind = OpKind::Layout,
            .arity = 1,
            .infer = infer,
            .kernel_f32 = kernel<float>,
            .kernel_f64 = kernel<double>,
            .kernel_bf16 = kernel<bf16>,
            .vjp = vjp,
            .lower = lower,
            .identity = identity,
            .keeps_a_uniform_fill = true};
}

}  // namespace topos::detail
