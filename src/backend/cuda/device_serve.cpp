// The CUDA backend's choice of nodes and its launches: which opcodes have a
// device kernel (elementwise formulas, Compare, Select, and the products,
// reductions and layout moves), the sizes below which the reference kernel is
// cheaper, and the dispatch of one node to device_kernels.hpp's launches.
#include "backend/cuda/device_serve.hpp"

#include "backend/cuda/device_kernels.hpp"
#include "ops/common.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <optional>
#include <vector>

namespace topos::detail::cuda {
namespace {

static_assert(Shape::max_rank <= max_rank, "a permutation's walk holds every axis");

// The structured kernels of the device: products, reductions along an axis,
// and moves of elements. Elementwise opcodes are served when the device has
// their formula (has_device_formula), Compare and Select always.
constexpr std::array structured = {
    Opcode::MatMul,
    Opcode::Sum,
    Opcode::Max,
    Opcode::LogSoftmax,
    Opcode::Reshape,
    Opcode::Permute,
    Opcode::BroadcastAlong,
};

bool computes(Opcode opcode) {
    if (op_info(opcode).kind == OpKind::Elementwise) {
        return opcode == Opcode::Compare || opcode == Opcode::Select || has_device_formula(opcode);
    }
    return std::find(structured.begin(), structured.end(), opcode) != structured.end();
}

// Walks the op table once.
std::vector<Opcode> served_opcodes() {
    std::vector<Opcode> served;
    for (std::size_t i = 0; i < opcode_count; ++i) {
        if (computes(static_cast<Opcode>(i))) {
            served.push_back(static_cast<Opcode>(i));
        }
    }
    return served;
}

// Below these sizes a launch (and the transfers around a mixed plan) costs more
// than the reference kernel, and small plans keep the reference's bits.
constexpr std::size_t smallest_product = 64 * 64 * 64;  // multiply-adds
constexpr std::size_t smallest_map = 1 << 14;           // elements read or written

std::size_t multiply_adds(std::span<const Shape> operands) {
    const Shape& a = operands[0];
    return a.elements() * operands[1][a.rank() - 1];
}

// The most elements the node reads from one operand or writes.
std::size_t elements_touched(const NodeView& node, std::span<const Shape> operands) {
    std::size_t most = node.shape().elements();
    for (const Shape& operand : operands) {
        most = std::max(most, operand.elements());
    }
    return most;
}

Split split_of(AxisSplit split) {
    return {split.outer, split.extent, split.inner};
}

// The axis a reduction or LogSoftmax works along, as a split of `shape`;
// Sum without an axis sums everything.
Split reduction_split(const NodeView& node, const Shape& shape) {
    if (const auto* along = std::get_if<AxisAttributes>(&node.attributes())) {
        return split_of(split_at(shape, along->axis));
    }
    return {1, shape.elements(), 1};
}

PermuteWalk permute_walk(const NodeView& node, const Shape& input) {
    const Axes& order = node.attributes_as<PermuteAttributes>().order;
    const auto input_strides = input.strides();
    PermuteWalk walk{node.shape().rank(), {}, {}};
    for (std::size_t axis = 0; axis < walk.rank; ++axis) {
        walk.extents[axis] = node.shape()[axis];
        walk.strides[axis] = input_strides[order[axis]];
    }
    return walk;
}

// cuBLAS takes int extents and batch counts.
bool fits_cublas(std::span<const Shape> operands) {
    const Shape& a = operands[0];
    const std::size_t r = a.rank();
    const std::size_t batches = a.elements() / std::max<std::size_t>(1, a[r - 2] * a[r - 1]);
    const std::size_t limit = INT_MAX;
    return a[r - 2] <= limit && a[r - 1] <= limit && operands[1][r - 1] <= limit &&
           batches <= limit;
}

template <Element T>
void product(std::span<const View<T>> operands, T* out) {
    const Shape& a = *operands[0].shape;
    const std::size_t r = a.rank();
    std::size_t batches = 1;
    for (std::size_t axis = 0; axis + 2 < r; ++axis) {
        batches *= a[axis];
    }
    gemm(operands[0].data,
         operands[1].data,
         out,
         batches,
         a[r - 2],
         a[r - 1],
         (*operands[1].shape)[r - 1]);
}

}  // namespace

std::span<const Opcode> device_opcodes() {
    static const std::vector<Opcode> served = served_opcodes();
    return served;
}

bool worth_serving(const NodeView& node, std::span<const Shape> operands) {
    if (!computes(node.opcode())) {
        return false;
    }
    if (node.opcode() == Opcode::MatMul) {
        return fits_cublas(operands) && multiply_adds(operands) >= smallest_product;
    }
    return elements_touched(node, operands) >= smallest_map;
}

template <Element T>
void run_on_device(const NodeView& node, std::span<const View<T>> operands, T* out) {
    const T* x = operands[0].data;
    const std::size_t count = node.shape().elements();
    if (has_device_formula(node.opcode())) {
        std::array<const T*, max_operands> pointers{};
        for (std::size_t i = 0; i < operands.size(); ++i) {
            pointers[i] = operands[i].data;
        }
        return map(node.opcode(), pointers.data(), out, count);
    }
    switch (node.opcode()) {
        case Opcode::Compare:
            return compare(
                node.attributes_as<CompareAttributes>().direction, x, operands[1].data, out, count);
        case Opcode::Select:
            return select(x, operands[1].data, operands[2].data, out, count);
        case Opcode::MatMul:
            return product(operands, out);
        case Opcode::Sum:
            return sum_along(x, reduction_split(node, *operands[0].shape), out);
        case Opcode::Max:
            return max_along(x, reduction_split(node, *operands[0].shape), out);
        case Opcode::LogSoftmax:
            return log_softmax_along(x, reduction_split(node, *operands[0].shape), out);
        case Opcode::BroadcastAlong:
            return broadcast_along(
                x,
                split_of(split_at(node.shape(), node.attributes_as<BroadcastAttributes>().axis)),
                out);
        case Opcode::Reshape:
            return copy(x, out, count);
        case Opcode::Permute:
            return permute(x, permute_walk(node, *operands[0].shape), out);
        default:
            throw std::logic_error("CUDA backend: asked to run an opcode it does not serve");
    }
}

template void run_on_device(const NodeView&, std::span<const View<float>>, float*);
template void run_on_device(const NodeView&, std::span<const View<double>>, double*);

}  // namespace topos::detail::cuda
