// cuBLAS as a table of function pointers, loaded with dlopen at its first use
// instead of linked: the static initialisers of libcublas and libcublasLt cost
// every process that links them about 0.4 s and 200 MB at start-up, with or
// without a GPU, and most processes of a CUDA build never multiply on a
// device. The pointers have cuBLAS's own signatures, taken from its header.
#pragma once

#include <cublas_v2.h>

namespace topos::detail::cuda {

// The cuBLAS functions the CUDA backend calls (gemm.cu).
struct CublasLibrary {
    decltype(&cublasCreate_v2) create;
    decltype(&cublasDestroy_v2) destroy;
    decltype(&cublasSetMathMode) set_math_mode;
    decltype(&cublasGetStatusString) status_string;
    decltype(&cublasSgemmStridedBatched) sgemm_strided_batched;
    decltype(&cublasDgemmStridedBatched) dgemm_strided_batched;
};

// cuBLAS, loaded by the first call (once, thread-safe) and never unloaded:
// libcublas.so.<CUBLAS_VER_MAJOR of the headers compiled against>, else
// libcublas.so. Throws std::runtime_error naming each library tried and
// dlerror()'s reason when none loads or one lacks a function; the next call
// tries again. Constant time once loaded.
const CublasLibrary& cublas_library();

}  // namespace topos::detail::cuda
