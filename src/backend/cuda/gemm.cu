// Row-major products through cuBLAS, which is column-major: a row-major
// [rows, columns] matrix is its column-major transpose, so out = a b is
// computed as out^T = b^T a^T with the operands swapped and nothing
// transposed. Batches go to one strided batched call. The math mode is
// cuBLAS's default: full f32 or f64 arithmetic, never TF32. cuBLAS itself is
// loaded by the first handle made (cublas_library.hpp).
#include "backend/cuda/cublas_library.hpp"
#include "backend/cuda/device_kernels.hpp"
#include "backend/cuda/launch.cuh"

#include <climits>

namespace topos::detail::cuda {
namespace {

void check_blas(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS) {
        throw std::runtime_error(std::string("CUDA backend: ") + what + ": " +
                                 cublas_library().status_string(status));
    }
}

// This thread's cuBLAS handle, on the default stream.
class Handle {
public:
    Handle() {
        check_blas(cublas_library().create(&handle_), "cublasCreate");
        check_blas(cublas_library().set_math_mode(handle_, CUBLAS_DEFAULT_MATH),
                   "cublasSetMathMode");
    }

    ~Handle() { cublas_library().destroy(handle_); }

    Handle(const Handle&) = delete;
    Handle& operator=(const Handle&) = delete;

    cublasHandle_t get() const { return handle_; }

private:
    cublasHandle_t handle_{};
};

cublasHandle_t this_threads_handle() {
    thread_local Handle handle;
    return handle.get();
}

int as_int(std::size_t extent) {
    if (extent > static_cast<std::size_t>(INT_MAX)) {
        throw std::runtime_error("CUDA backend: a product extent exceeds cuBLAS's int range");
    }
    return static_cast<int>(extent);
}

cublasStatus_t batched(cublasHandle_t handle,
                       int m,
                       int n,
                       int k,
                       const float* a,
                       long long sa,
                       const float* b,
                       long long sb,
                       float* c,
                       long long sc,
                       int batches) {
    const float one = 1.0f, zero = 0.0f;
    return cublas_library().sgemm_strided_batched(handle,
                                                  CUBLAS_OP_N,
                                                  CUBLAS_OP_N,
                                                  m,
                                                  n,
                                                  k,
                                                  &one,
                                                  a,
                                                  m,
                                                  sa,
                                                  b,
                                                  k,
                                                  sb,
                                                  &zero,
                                                  c,
                                                  m,
                                                  sc,
                                                  batches);
}

cublasStatus_t batched(cublasHandle_t handle,
                       int m,
                       int n,
                       int k,
                       const double* a,
                       long long sa,
                       const double* b,
                       long long sb,
                       double* c,
                       long long sc,
                       int batches) {
    const double one = 1.0, zero = 0.0;
    return cublas_library().dgemm_strided_batched(handle,
                                                  CUBLAS_OP_N,
                                                  CUBLAS_OP_N,
                                                  m,
                                                  n,
                                                  k,
                                                  &one,
                                                  a,
                                                  m,
                                                  sa,
                                                  b,
                                                  k,
                                                  sb,
                                                  &zero,
                                                  c,
                                                  m,
                                                  sc,
                                                  batches);
}

}  // namespace

template <class T>
void gemm(const T* a,
          const T* b,
          T* out,
          std::size_t batches,
          std::size_t rows,
          std::size_t depth,
          std::size_t columns) {
    if (batches * rows * columns == 0) {
        return;
    }
    if (depth == 0) {  // an empty sum: zeros
        check(cudaMemset(out, 0, batches * rows * columns * sizeof(T)), "cudaMemset");
        return;
    }
    // Column-major: out^T (columns x rows) = b^T (columns x depth) a^T (depth x rows).
    check_blas(batched(this_threads_handle(),
                       as_int(columns),
                       as_int(rows),
                       as_int(depth),
                       b,
                       static_cast<long long>(depth * columns),
                       a,
                       static_cast<long long>(rows * depth),
                       out,
                       static_cast<long long>(rows * columns),
                       as_int(batches)),
               "strided batched gemm");
}

template void gemm(
    const float*, const float*, float*, std::size_t, std::size_t, std::size_t, std::size_t);
template void gemm(
    const double*, const double*, double*, std::size_t, std::size_t, std::size_t, std::size_t);

}  // namespace topos::detail::cuda
