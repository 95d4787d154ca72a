// Network::forward, the whole-spec oracle, and Network::parameters: the
// members of the spec's Network that the engine defines.
#include "graph/spec.hpp"
#include "run/access.hpp"
#include "run/interpreter.hpp"
#include "run/run_layout.hpp"
#include <topos/graph/network.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>

#include <memory>
#include <vector>

namespace topos {
namespace {

// Every node stored at its own index and readable.
std::shared_ptr<const detail::RunLayout> whole_spec_layout(std::size_t nodes) {
    auto layout = std::make_shared<detail::RunLayout>();
    layout->slot.resize(nodes);
    for (std::size_t index = 0; index < nodes; ++index) {
        layout->slot[index] = static_cast<std::int32_t>(index);
    }
    layout->readable.assign(nodes, true);
    layout->backward_ready = true;
    layout->declaration = "Network::forward";
    return layout;
}

}  // namespace

template <Element T>
Parameters<T> Network<T>::parameters() const {
    std::vector<Tensor<T>> values;
    values.reserve(state_->spec.parameters.size());
    for (std::uint32_t index : state_->spec.parameters) {
        values.push_back(state_->spec.payload(index));
    }
    return detail::RunAccess::parameters<T>(state_->parameter_layout, std::move(values));
}

template <Element T>
Run<T> Network<T>::forward(const Parameters<T>& parameters,
                           std::initializer_list<Feed<T>> feeds) const {
    return forward(parameters, std::span<const Feed<T>>(feeds.begin(), feeds.size()));
}

template <Element T>
Run<T> Network<T>::forward(const Parameters<T>& parameters, std::span<const Feed<T>> feeds) const {
    return detail::RunAccess::run<T>(
        state_,
        whole_spec_layout(state_->spec.nodes.size()),
        detail::interpret(state_->spec, *state_->parameter_layout, parameters, feeds, {}));
}

template Parameters<float> Network<float>::parameters() const;
template Parameters<double> Network<double>::parameters() const;
template Parameters<bf16> Network<bf16>::parameters() const;
template Run<float> Network<float>::forward(const Parameters<float>&,
                                            std::initializer_list<Feed<float>>) const;
template Run<double> Network<double>::forward(const Parameters<double>&,
                                              std::initializer_list<Feed<double>>) const;
template Run<bf16> Network<bf16>::forward(const Parameters<bf16>&,
                                          std::initializer_list<Feed<bf16>>) const;
template Run<float> Network<float>::forward(const Parameters<float>&,
                                            std::span<const Feed<float>>) const;
template Run<double> Network<double>::forward(const Parameters<double>&,
                                              std::span<const Feed<double>>) const;
template Run<bf16> Network<bf16>::forward(const Parameters<bf16>&,
                                          std::span<const Feed<bf16>>) const;

}  // namespace topos
