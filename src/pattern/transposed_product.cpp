// TransposedProduct: a MatMul that reads one or both operands through a
// Permute swapping their last two axes, as every recorded derivative of a
// product does (G B^T and A^T G). The fused kernel hands the exact GEMM the
// permute's operand with its strides swapped, so the transposed copy is never
// written; the GEMM reads elements, never their layout, into the same
// ascending-k accumulation, so every bit is the MatMul's. Its members emit
// their own operations (a transpose StableHLO compilers fold themselves).
#include "kernels/gemm.hpp"
#include "ops/movement.hpp"
#include "pattern/catalog.hpp"

#include <algorithm>
#include <array>
#include <cstddef>

namespace topos::detail {
namespace {

struct TransposedGeometry {
    GemmExtents extents;
    std::array<bool, 2> transposed{};  // by operand: read through a swap of its last two axes
};

// Whether `index` is a Permute that swaps the last two axes and keeps the others.
bool swaps_last_two_axes(const SpecView& spec, std::uint32_t index) {
    const Node* permute = spec.as(index, Opcode::Permute);
    if (permute == nullptr) {
        return false;
    }
    return is_batch_of_transposes(permute->attributes_as<PermuteAttributes>().order.values());
}

GemmExtents extents_of(const Shape& a, const Shape& b) {
    const std::size_t r = a.rank();
    std::size_t batches = 1;
    for (std::size_t axis = 0; axis + 2 < r; ++axis) {
        batches *= a[axis];
    }
    return {batches, a[r - 2], a[r - 1], b[r - 1]};
}

std::optional<Match> match_transposed_product(const SpecView& spec, std::uint32_t root) {
    const Node* product = spec.as(root, Opcode::MatMul);
    if (product == nullptr) {
        return std::nullopt;
    }
    TransposedGeometry geometry{
        extents_of(spec[product->operands()[0]].shape(), spec[product->operands()[1]].shape())};
    Match match{PatternKind::TransposedProduct, root, {root}, {root}, {}, {}};
    for (std::size_t i = 0; i < 2; ++i) {
        const std::uint32_t operand = product->operands()[i];
        geometry.transposed[i] = swaps_last_two_axes(spec, operand);
        match.inputs.push_back(geometry.transposed[i] ? spec[operand].operands()[0] : operand);
        if (geometry.transposed[i]) {
            match.nodes.push_back(operand);
        }
    }
    if (!geometry.transposed[0] && !geometry.transposed[1]) {
        return std::nullopt;
    }
    std::sort(match.nodes.begin(), match.nodes.end());
    match.nodes.erase(std::unique(match.nodes.begin(), match.nodes.end()), match.nodes.end());
    match.geometry = geometry;
    return match;
}

// A [rows, columns] operand of each batch, read in place: as stored, or from
// its [columns, rows] source with the strides swapped.
template <Element T>
MatrixView<T> operand_view(const T* data, std::size_t rows, std::size_t columns, bool transposed) {
    const auto stride = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    const std::ptrdiff_t batch = stride(rows * columns);
    return transposed ? MatrixView<T>{data, 1, stride(rows), batch}
                      : MatrixView<T>{data, stride(columns), 1, batch};
}

template <Element T>
void transposed_product_kernel(const Match& match,
                               std::span<const T* const> inputs,
                               std::span<T* const> results) {
    const auto& geometry = match.geometry_as<TransposedGeometry>();
    const GemmExtents& e = geometry.extents;
    const auto stride = [](std::size_t extent) { return static_cast<std::ptrdiff_t>(extent); };
    gemm<T>(e,
            operand_view(inputs[0], e.rows, e.depth, geometry.transposed[0]),
            operand_view(inputs[1], e.depth, e.columns, geometry.transposed[1]),
            {results[0], stride(e.columns), stride(e.rows * e.columns)});
}

}  // namespace

PatternRow transposed_product_row() {
    return {.kind = PatternKind::TransposedProduct,
            .match = match_transposed_product,
            .kernel_f32 = transposed_product_kernel<float>,
            .kernel_f64 = transposed_product_kernel<double>,
            .yields_to_a_device = true};
}

}  // namespace topos::detail
