// Backends as data. A backend declares which formulas it serves, at which
// precision and with which fidelity; a plan assigns each step to the first
// backend that serves it under the entry's numerics (an Exact plan accepts
// only bit-identical servers) and to the reference kernels otherwise. Which
// backend actually served is run-time data: wrap a region in
// Backend::tallied and read the per-formula tally.
#pragma once

#include <topos/run/tally.hpp>

#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace topos {

// A backend compiled into this build.
struct BackendInfo {
    std::string name;
    Fidelity fidelity;
    std::vector<std::string> formulas;  // opcode names or pattern formulas it may serve
};

class Backend {
public:
    // The reference kernels first, then every optional backend compiled in,
    // less those the environment variable TOPOS_BACKENDS leaves out
    // (docs/guide/backends.md).
    static std::vector<BackendInfo> available();

    // Runs `region` on this thread and returns who served each formula of
    // the plan runs inside it.
    template <class Region>
    static Tally tallied(Region&& region) {
        using Callable = std::remove_reference_t<Region>;
        return tally_region([](void* callable) { (*static_cast<Callable*>(callable))(); },
                            const_cast<void*>(static_cast<const void*>(std::addressof(region))));
    }

private:
    static Tally tally_region(void (*run)(void* region), void* region);
};

}  // namespace topos
