// Backend::available (the reference kernels, then every backend compiled into
// this build, in the compiler's order) and Backend::tally_region, which counts
// the steps each backend serves while a region runs.
#include "plan/backend_seam.hpp"
#include "run/tally_scope.hpp"
#include <topos/backend/backend.hpp>

namespace topos {

std::vector<BackendInfo> Backend::available() {
    std::vector<BackendInfo> backends{
        {std::string(detail::reference_name), Fidelity::Exact, {"every opcode", "every pattern"}}};
    for (const detail::Server* server : detail::servers()) {
        backends.push_back({std::string(server->name), server->fidelity, server->formulas});
    }
    return backends;
}

Tally Backend::tally_region(void (*run)(void* region), void* region) {
    detail::TallyScope scope;
    run(region);
    return scope.take();
}

}  // namespace topos
