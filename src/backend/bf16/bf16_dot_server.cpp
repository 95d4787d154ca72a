// The bf16 dot-product backend (TOPOS_ENABLE_BF16_DOT): bf16 matrix products
// under Numerics::Fast by gemm_bf16_dot (vdpbf16ps, AVX-512 BF16), which sums
// each output's k pairs in float in the instruction's order and rounds once
// to bf16. Its tolerance (kernels/gemm_bf16.hpp): before that rounding, each
// output within gamma_k sum_p |a_ip b_pj| of the exact sum; denormal inputs
// read as zero and denormal sums flushed. It serves only where the processor
// has AVX512_BF16 and topos::isa() is Avx512; elsewhere it declines and the
// exact bf16 GEMM runs.
#include "kernels/gemm_bf16.hpp"
#include "plan/backend_seam.hpp"

namespace topos::detail {
namespace {

bool serves(const Node& node, std::span<const Shape>, Precision precision) {
    return precision == Precision::BF16 && op_info(node.opcode()).matrix_product &&
           runs_avx512_bf16();
}

// [..., m, k] x [..., k, n], one product per batch index, operands read in place.
void kernel(const NodeView&, std::span<const View<bf16>> operands, bf16* out) {
    const RowMajorProduct<bf16> product = row_major_product(
        operands[0].data, *operands[0].shape, operands[1].data, *operands[1].shape, out);
    gemm_bf16_dot(product.extents, product.a, product.b, product.c);
}

}  // namespace

const Server& bf16_dot_server() {
    static const Server server{.name = "bf16-dot",
                               .fidelity = Fidelity::Reordered,
                               .formulas = {"MatMul"},
                               .serves = serves,
                               .kernel_f32 = nullptr,
                               .kernel_f64 = nullptr,
                               .kernel_bf16 = kernel};
    return server;
}

}  // namespace topos::detail
