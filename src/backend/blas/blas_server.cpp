// The BLAS backend (TOPOS_ENABLE_BLAS): large matrix products under
// Numerics::Fast through cblas_sgemm / cblas_dgemm, which sum in their own
// order (blocked, vectorised, possibly split across threads). Its tolerance:
// each output within 2 k eps sum_p |a_ip b_pj| of the exact product (the
// classical bound for any summation order, doubled for the accumulation's
// rounding), checked against the reference in tests. It is timed: a Fast plan
// gives it a product only where it ran that product's shapes faster than the
// exact GEMM (plan/timed_election.hpp), which on a processor with AVX-512 under
// OPENBLAS_CORETYPE=Haswell, or for products of few rows, it often does not.
#include "core/thread_pool.hpp"
#include "plan/backend_seam.hpp"

#include <cblas.h>

namespace topos::detail {
namespace {

// Below this many multiply-adds the reference kernel is as fast.
constexpr std::size_t smallest_product = std::size_t{64} * 64 * 64;

struct Extents {
    std::size_t batches, rows, depth, columns;
};

Extents extents_of(std::span<const Shape> operands) {
    const Shape& a = operands[0];
    const std::size_t r = a.rank();
    std::size_t batches = 1;
    for (std::size_t axis = 0; axis + 2 < r; ++axis) {
        batches *= a[axis];
    }
    return {batches, a[r - 2], a[r - 1], operands[1][r - 1]};
}

bool serves(const Node& node, std::span<const Shape> operands, Precision) {
    if (!op_info(node.opcode()).matrix_product) {
        return false;
    }
    const Extents e = extents_of(operands);
    return e.rows * e.depth * e.columns >= smallest_product;
}

// OpenBLAS runs on as many threads as topos's pool (topos::set_threads): a
// product it serves uses the cores the user gave topos, no more, and its
// timed trial races the exact GEMM on the same cores.
void use_the_pools_threads() {
    const auto threads = static_cast<int>(ThreadPool::instance().thread_count());
    if (openblas_get_num_threads() != threads) {
        openblas_set_num_threads(threads);
    }
}

template <Element T>
void kernel(const NodeView&, std::span<const View<T>> operands, T* out) {
    use_the_pools_threads();
    const Shape shapes[] = {*operands[0].shape, *operands[1].shape};
    const Extents e = extents_of(shapes);
    const auto m = static_cast<blasint>(e.rows);
    const auto k = static_cast<blasint>(e.depth);
    const auto n = static_cast<blasint>(e.columns);
    for (std::size_t batch = 0; batch < e.batches; ++batch) {
        const T* a = operands[0].data + batch * e.rows * e.depth;
        const T* b = operands[1].data + batch * e.depth * e.columns;
        T* c = out + batch * e.rows * e.columns;
        if constexpr (std::same_as<T, float>) {
            cblas_sgemm(
                CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a, k, b, n, 0.0f, c, n);
        } else {
            cblas_dgemm(
                CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, a, k, b, n, 0.0, c, n);
        }
    }
}

}  // namespace

const Server& blas_server() {
    static const Server server{.name = "openblas",
                               .fidelity = Fidelity::Reordered,
                               .formulas = {"MatMul"},
                               .serves = serves,
                               .kernel_f32 = kernel<float>,
                               .kernel_f64 = kernel<double>,
                               .runs_own_threads = true,
                               .timed = true};
    return server;
}

}  // namespace topos::detail
