// servers(): the backends compiled into this build, in the order a plan offers
// them each step: CUDA first (a plan it serves keeps its arena on the device),
// then BLAS, oneDNN, the Fast lanes and the bf16 dot product (which serves
// only where the processor runs AVX512_BF16). Only this file names the
// backends.
#include "plan/backend_seam.hpp"
#include <topos/config.hpp>

namespace topos::detail {

#if TOPOS_HAS_FAST_LANES
const Server& fast_lanes_server();
#endif
#if TOPOS_HAS_BF16_DOT
const Server& bf16_dot_server();
#endif

#if TOPOS_HAS_BLAS
const Server& blas_server();
#endif
#if TOPOS_HAS_ONEDNN
const Server& onednn_server();
#endif
#if TOPOS_HAS_CUDA
const Server& cuda_server();
#endif

std::span<const Server* const> servers() {
    static const std::vector<const Server*> compiled_in = [] {
        std::vector<const Server*> list;
#if TOPOS_HAS_CUDA
        list.push_back(&cuda_server());  // first: a plan it serves stays on the device
#endif
#if TOPOS_HAS_BLAS
        list.push_back(&blas_server());
#endif
#if TOPOS_HAS_ONEDNN
        list.push_back(&onednn_server());
#endif
#if TOPOS_HAS_FAST_LANES
        list.push_back(&fast_lanes_server());
#endif
#if TOPOS_HAS_BF16_DOT
        list.push_back(&bf16_dot_server());
#endif
        return list;
    }();
    return compiled_in;
}

}  // namespace topos::detail
