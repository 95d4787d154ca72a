// Assembles the op table from the rows, once, indexed by opcode.
#include "ops/rows.hpp"
#include <topos/core/error.hpp>

#include <array>
#include <sstream>
#include <utility>

namespace topos::detail {
namespace {

OpInfo row_of(Opcode opcode) {
    switch (opcode) {
        case Opcode::Parameter:
            return parameter_row();
        case Opcode::Input:
            return input_row();
        case Opcode::Leaf:
            return leaf_row();
        case Opcode::Add:
            return add_row();
        case Opcode::Sub:
            return sub_row();
        case Opcode::Mul:
            return mul_row();
        case Opcode::Div:
            return div_row();
        case Opcode::Maximum:
            return maximum_row();
        case Opcode::Neg:
            return neg_row();
        case Opcode::Exp:
            return exp_row();
        case Opcode::Log:
            return log_row();
        case Opcode::Tanh:
            return tanh_row();
        case Opcode::Sigmoid:
            return sigmoid_row();
        case Opcode::MatMul:
            return matmul_row();
        case Opcode::Sum:
            return sum_row();
        case Opcode::Reshape:
            return reshape_row();
        case Opcode::Permute:
            return permute_row();
        case Opcode::BroadcastAlong:
            return broadcast_along_row();
        case Opcode::Unfold:
            return unfold_row();
        case Opcode::Fold:
            return fold_row();
        case Opcode::Narrow:
            return narrow_row();
        case Opcode::Pad:
            return pad_row();
        case Opcode::Minimum:
            return minimum_row();
        case Opcode::Pow:
            return pow_row();
        case Opcode::Compare:
            return compare_row();
        case Opcode::Select:
            return select_row();
        case Opcode::Abs:
            return abs_row();
        case Opcode::Sign:
            return sign_row();
        case Opcode::Expm1:
            return expm1_row();
        case Opcode::Log1p:
            return log1p_row();
        case Opcode::Sqrt:
            return sqrt_row();
        case Opcode::Rsqrt:
            return rsqrt_row();
        case Opcode::Square:
            return square_row();
        case Opcode::Sin:
            return sin_row();
        case Opcode::Cos:
            return cos_row();
        case Opcode::Erf:
            return erf_row();
        case Opcode::Gelu:
            return gelu_row();
        case Opcode::Softplus:
            return softplus_row();
        case Opcode::Max:
            return max_row();
        case Opcode::LogSumExp:
            return log_sum_exp_row();
        case Opcode::LogSoftmax:
            return log_softmax_row();
        case Opcode::Slice:
            return slice_row();
        case Opcode::Concat:
            return concat_row();
        case Opcode::Gather:
            return gather_row();
        case Opcode::ScatterAdd:
            return scatter_add_row();
        case Opcode::OneHot:
            return one_hot_row();
    }
    throw Error("unknown opcode " + std::to_string(static_cast<int>(opcode)));
}

template <std::size_t... I>
std::array<OpInfo, opcode_count> assemble(std::index_sequence<I...>) {
    return {row_of(static_cast<Opcode>(I))...};
}

const std::array<OpInfo, opcode_count>& table() {
    static const std::array<OpInfo, opcode_count> rows =
        assemble(std::make_index_sequence<opcode_count>());
    return rows;
}

}  // namespace

const OpInfo& op_info(Opcode opcode) {
    return table()[static_cast<std::size_t>(opcode)];
}

void ShapeCheck::require_axis(std::size_t operand, std::size_t axis, bool inclusive) const {
    const std::size_t rank = operand_shapes_[operand].rank();
    if (inclusive ? axis > rank : axis >= rank) {
        fail("axis " + std::to_string(axis) + " is out of range for rank " + std::to_string(rank) +
             " (valid: 0 to " + std::to_string(inclusive ? rank : rank - 1) + ")");
    }
}

void ShapeCheck::fail(const std::string& problem) const {
    std::ostringstream message;
    message << name_of(opcode_);
    for (std::size_t i = 0; i < operand_shapes_.size(); ++i) {
        message << (i ? ", node " : " of node ") << operand_nodes_[i] << ' ' << operand_shapes_[i];
    }
    if (attributes_.index() != 0) {
        message << " with " << attributes_;
    }
    message << ": " << problem;
    throw ShapeError(message.str());
}

Shape infer_shape(Opcode opcode,
                  std::span<const std::uint32_t> operand_nodes,
                  std::span<const Shape> operand_shapes,
                  const Attributes& attributes) {
    const OpInfo& row = op_info(opcode);
    const ShapeCheck check(opcode, operand_nodes, operand_shapes, attributes);
    if (row.infer == nullptr) {
        check.fail("a source is recorded with tape.parameter, tape.input or tape.leaf");
    }
    if (operand_shapes.size() != row.arity) {
        check.fail("takes " + std::to_string(row.arity) + " operands, " +
                   std::to_string(operand_shapes.size()) + " were given");
    }
    return row.infer(check);
}

Ref AdjointBuilder::broadcast_scalar(Ref a, const Shape& shape) {
    Ref result = a;
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
        result = broadcast_along(result, axis, shape[axis]);
    }
    return result;
}

}  // namespace topos::detail
