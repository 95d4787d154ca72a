// servers(): the backends compiled into this build, in the order a plan offers
// them each step: CUDA first (a plan it serves keeps its arena on the device),
// then BLAS, oneDNN, the Fast lanes and the bf16 dot product (which serves
// only where the processor runs AVX512_BF16). Only this file names the
// backends. The environment variable TOPOS_BACKENDS narrows the list for a
// process: `none`, or the names of the backends to keep, comma-separated.
#include "plan/backend_seam.hpp"
#include <topos/config.hpp>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <string>
#include <string_view>

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

namespace {

std::vector<const Server*> servers_compiled_in() {
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
}

std::vector<std::string_view> requested_names(std::string_view list) {
    std::vector<std::string_view> names;
    while (!list.empty()) {
        const std::size_t comma = std::min(list.find(','), list.size());
        if (comma > 0) {
            names.push_back(list.substr(0, comma));
        }
        list.remove_prefix(std::min(comma + 1, list.size()));
    }
    return names;
}

std::string server_names(std::span<const Server* const> list) {
    std::string names;
    for (const Server* server : list) {
        names += (names.empty() ? "" : ", ") + std::string(server->name);
    }
    return names.empty() ? "none" : names;
}

}  // namespace

// A name this build does not hold is reported and ignored, as TOPOS_MAX_ISA's are.
std::vector<const Server*> servers_named(std::span<const Server* const> all,
                                         std::string_view wanted) {
    if (wanted == "none") {
        return {};
    }
    const auto names = requested_names(wanted);
    for (const std::string_view name : names) {
        if (std::none_of(
                all.begin(), all.end(), [&](const Server* s) { return s->name == name; })) {
            std::cerr << "topos: TOPOS_BACKENDS names " << name
                      << ", which this build does not hold (it holds: " << server_names(all)
                      << "); it is ignored\n";
        }
    }
    std::vector<const Server*> list;
    std::copy_if(all.begin(), all.end(), std::back_inserter(list), [&](const Server* server) {
        return std::find(names.begin(), names.end(), server->name) != names.end();
    });
    return list;
}

std::span<const Server* const> servers() {
    static const std::vector<const Server*> on = [] {
        const char* wanted = std::getenv("TOPOS_BACKENDS");
        return wanted == nullptr ? servers_compiled_in()
                                 : servers_named(servers_compiled_in(), wanted);
    }();
    return on;
}

}  // namespace topos::detail
