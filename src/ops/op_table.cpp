// Assembles the op table from the rows, once, in the order of the opcode list,
// and checks that every row is complete.
#include "core/shape_too_large.hpp"
#include "ops/rows.hpp"
#include <topos/core/error.hpp>

#include <array>
#include <sstream>
#include <string>
#include <string_view>

namespace topos::detail {
namespace {

// The name of the function that builds a row, for errors: "silu_row()".
constexpr std::array<std::string_view, opcode_count> row_functions = {
#define TOPOS_OPCODE(enumerator, row) #row "_row()",
#include <topos/ops/opcodes.def>
};

}  // namespace

void check_row(const OpInfo& row, Opcode expected) {
    const auto position = static_cast<std::size_t>(expected);
    const std::string where = std::string(name_of(expected)) + " (built by " +
                              std::string(row_functions[position]) + " in src/ops/)";
    const auto require = [&](bool holds, const std::string& problem) {
        if (!holds) {
            throw Error("the op table's row of " + where + ' ' + problem);
        }
    };
    require(row.opcode == expected,
            "is for " + std::string(name_of(row.opcode)) + "; the list puts it elsewhere");
    if (row.kind == OpKind::Source) {
        require(row.arity == 0 && row.infer == nullptr && row.kernel_f32 == nullptr &&
                    row.kernel_bf16 == nullptr && row.lower == nullptr,
                "is a source, which has no operands, shape rule, kernel or lowering");
        return;
    }
    require(row.arity >= 1 && row.arity <= max_operands, "has no arity (1 to 3 operands)");
    require(row.infer != nullptr, "has no shape rule (infer)");
    require(row.kernel_f32 != nullptr && row.kernel_f64 != nullptr,
            "has no reference kernel for float and double");
    require(row.vjp != nullptr,
            "has no derivative rule (vjp); a rule that contributes nothing marks an opcode "
            "that is not differentiable");
    require(row.lower != nullptr, "has no StableHLO lowering");
    require(row.kind != OpKind::Elementwise || row.index_operands == 0,
            "is elementwise but reads indices");
    require(!row.bf16_table ||
                (row.kind == OpKind::Elementwise && row.arity == 1 && row.kernel_bf16 == nullptr),
            "asks for a bf16 table but is not a unary elementwise row without a bf16 kernel");
}

namespace {

std::array<OpInfo, opcode_count> assemble() {
    std::array<OpInfo, opcode_count> rows = {
#define TOPOS_OPCODE(enumerator, row) row##_row(),
#include <topos/ops/opcodes.def>
    };
    for (std::size_t position = 0; position < rows.size(); ++position) {
        check_row(rows[position], static_cast<Opcode>(position));
    }
    return rows;
}

const std::array<OpInfo, opcode_count>& table() {
    static const std::array<OpInfo, opcode_count> rows = assemble();
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

std::size_t ShapeCheck::sum(std::size_t a, std::size_t b, const char* what) const {
    std::size_t result = 0;
    if (__builtin_add_overflow(a, b, &result)) {
        fail(std::string(what) + " overflows: " + std::to_string(a) + " + " + std::to_string(b) +
             " exceeds 2^64 - 1; check the attributes");
    }
    return result;
}

std::size_t ShapeCheck::product(std::size_t a, std::size_t b, const char* what) const {
    std::size_t result = 0;
    if (__builtin_mul_overflow(a, b, &result)) {
        fail(std::string(what) + " overflows: " + std::to_string(a) + " * " + std::to_string(b) +
             " exceeds 2^64 - 1; check the attributes");
    }
    return result;
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
    try {
        return row.infer(check);
    } catch (const ShapeTooLarge& too_large) {
        check.fail(too_large.what());
    }
}

Ref AdjointBuilder::broadcast_scalar(Ref a, const Shape& shape) {
    Ref result = a;
    for (std::size_t axis = 0; axis < shape.rank(); ++axis) {
        result = broadcast_along(result, axis, shape[axis]);
    }
    return result;
}

}  // namespace topos::detail
