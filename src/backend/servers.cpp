#include "backend/server.hpp"
#include <topos/config.hpp>

namespace topos::detail {

#if TOPOS_HAS_BLAS
const Server& blas_server();
#endif

std::span<const Server* const> servers() {
    static const std::vector<const Server*> compiled_in = [] {
        std::vector<const Server*> list;
#if TOPOS_HAS_BLAS
        list.push_back(&blas_server());
#endif
        return list;
    }();
    return compiled_in;
}

}  // namespace topos::detail
