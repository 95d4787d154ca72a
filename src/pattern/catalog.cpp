#include "pattern/catalog.hpp"

namespace topos::detail {

std::vector<Match> find_matches(const std::vector<Node>& nodes,
                                const std::vector<bool>& scheduled) {
    const SpecView spec{nodes};
    std::vector<Match> matches;
    for (std::uint32_t index = 0; index < nodes.size(); ++index) {
        if (!scheduled[index]) {
            continue;
        }
        for (auto matcher : {match_window_product, match_reduce_window, match_batch_norm}) {
            if (std::optional<Match> match = matcher(spec, index)) {
                matches.push_back(std::move(*match));
                break;
            }
        }
    }
    return matches;
}

template <Element T>
void run_match(const Match& match, std::span<const T* const> inputs, std::span<T* const> results) {
    std::visit(
        [&](const auto& geometry) {
            using Geometry = std::decay_t<decltype(geometry)>;
            if constexpr (std::is_same_v<Geometry, WindowProductGeometry>) {
                window_product_kernel(geometry, inputs, results[0]);
            } else if constexpr (std::is_same_v<Geometry, MapGeometry>) {
                map_kernel(geometry, inputs, results[0]);
            } else if constexpr (std::is_same_v<Geometry, ReduceWindowGeometry>) {
                reduce_window_kernel(geometry, inputs, results[0]);
            } else {
                batch_norm_kernel(geometry, inputs, results);
            }
        },
        match.geometry);
}

template void run_match(const Match&, std::span<const float* const>, std::span<float* const>);
template void run_match(const Match&, std::span<const double* const>, std::span<double* const>);

}  // namespace topos::detail
