// Contractions: MatMul with numpy's semantics (a vector operand on either side
// taken as a row or a column and its axis dropped again, batch axes
// broadcast) and Gemm, alpha op(A) op(B) + beta C. A transposed operand is
// recorded as a Permute of the value, so an initializer keeps ONNX's layout
// as a parameter under its ONNX name (PyTorch's Linear exports transB = 1).
#include "onnx/context.hpp"
#include "onnx/folding.hpp"
#include "onnx/rules.hpp"
#include <topos/onnx/errors.hpp>

#include <string>

namespace topos::onnx::detail {
namespace {

// numpy.matmul: a rank-1 left operand is a row [1, n], a rank-1 right operand
// a column [n, 1], and the axis each added is removed from the product.
template <Element T>
Value<T> numpy_matmul(const Value<T>& a, const Value<T>& b, const NodeDef& node) {
    const Shape a_shape = a.shape();
    const Shape b_shape = b.shape();
    if (a_shape.rank() == 0 || b_shape.rank() == 0) {
        contradiction(
            node, "MatMul of " + a_shape.str() + " and " + b_shape.str() + " (a scalar operand)");
    }
    const bool row = a_shape.rank() == 1;
    const bool column = b_shape.rank() == 1;
    const Value<T> left = row ? a.unsqueeze(0) : a;
    const Value<T> right = column ? b.unsqueeze(1) : b;
    if (left.shape()[left.shape().rank() - 1] != right.shape()[right.shape().rank() - 2]) {
        contradiction(
            node,
            "MatMul of " + a_shape.str() + " and " + b_shape.str() + ": the inner extents differ");
    }
    Value<T> product = left.matmul(right);
    if (column) {
        product = product.squeeze(product.shape().rank() - 1);
    }
    if (row) {
        product = product.squeeze(product.shape().rank() - (column ? 1 : 2));
    }
    return product;
}

// Gemm's operand `index` as a matrix, transposed when `transposed` is set.
template <Element T>
Value<T> gemm_operand(Context<T>& context,
                      const NodeDef& node,
                      std::size_t index,
                      bool transposed) {
    const Value<T> operand = context.real_value(node, index);
    if (operand.shape().rank() != 2) {
        contradiction(
            node,
            "operand " + std::to_string(index) + " is " + operand.shape().str() + ", not a matrix");
    }
    return transposed ? operand.transpose() : operand;
}

// C, checked to broadcast to the product's [M, N] (exactly [M, N] for opset 6
// without `broadcast`).
template <Element T>
Value<T> gemm_bias(Context<T>& context, const NodeDef& node, const Shape& product) {
    Value<T> bias = context.real_value(node, 2);
    const auto result = extents_of_shape(product);
    const auto extents = extents_of_shape(bias.shape());
    const bool legacy_exact = context.opset() < 7 && integer_attribute(node, "broadcast", 0) == 0;
    if (legacy_exact ? extents != result : broadcast_extents(result, extents, node) != result) {
        contradiction(node,
                      "C " + bias.shape().str() + " does not " +
                          (legacy_exact ? "equal" : "broadcast to") + " the product " +
                          product.str());
    }
    return bias;
}

template <Element T>
void record_gemm(Context<T>& context, const NodeDef& node) {
    const Value<T> a = gemm_operand(context, node, 0, integer_attribute(node, "transA", 0) != 0);
    const Value<T> b = gemm_operand(context, node, 1, integer_attribute(node, "transB", 0) != 0);
    if (a.shape()[1] != b.shape()[0]) {
        contradiction(node,
                      "op(A) " + a.shape().str() + " and op(B) " + b.shape().str() +
                          " have different inner extents");
    }
    Value<T> result = a.matmul(b);
    const double alpha = real_attribute(node, "alpha", 1.0);
    if (alpha != 1) {
        result = context.scalar(alpha) * result;
    }
    const double beta = real_attribute(node, "beta", 1.0);
    // As onnxruntime and torch.addmm: beta 0 ignores C (its infinities and NaNs too).
    if (Context<T>::has_input(node, 2) && beta != 0) {
        const Value<T> bias = gemm_bias(context, node, result.shape());
        result = result + (beta != 1 ? context.scalar(beta) * bias : bias);
    }
    context.define(node, 0, result, context.type_of(node.inputs[0]));
}

}  // namespace

void add_contraction_rules(RuleTable& table) {
    table.add("MatMul", {}, [](auto& context, const NodeDef& node) {
        context.define(node,
                       0,
                       numpy_matmul(context.real_value(node, 0), context.real_value(node, 1), node),
                       context.type_of(node.inputs.at(0)));
    });
    table.add("Gemm",
              {"alpha", "beta", "transA", "transB", "broadcast"},
              [](auto& context, const NodeDef& node) { record_gemm(context, node); });
}

}  // namespace topos::onnx::detail
