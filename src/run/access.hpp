// Runs, fields and parameters are made and read only inside the library: their
// constructors and internal layouts are private, and this is the one door.
#pragma once

#include "graph/parameter_layout.hpp"
#include "graph/spec.hpp"
#include "run/run_layout.hpp"
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>

#include <memory>
#include <utility>
#include <vector>

namespace topos::detail {

struct RunAccess {
    template <Element T>
    static Run<T> run(std::shared_ptr<const NetworkState<T>> network,
                      std::shared_ptr<const RunLayout> layout,
                      std::vector<Tensor<T>> values) {
        return Run<T>(std::move(network), std::move(layout), std::move(values));
    }

    template <Element T>
    static const std::shared_ptr<const NetworkState<T>>& network(const Run<T>& run) {
        return run.network_;
    }

    template <Element T>
    static const RunLayout& layout(const Run<T>& run) {
        return *run.layout_;
    }

    template <Element T>
    static const std::vector<Tensor<T>>& values(const Run<T>& run) {
        return run.values_;
    }

    template <Element T>
    static Field<T> field(std::shared_ptr<const NetworkState<T>> network,
                          std::vector<Tensor<T>> adjoints,
                          std::vector<bool> reached) {
        return Field<T>(std::move(network), std::move(adjoints), std::move(reached));
    }

    template <Element T>
    static Parameters<T> parameters(std::shared_ptr<const ParameterLayout> layout,
                                    std::vector<Tensor<T>> values) {
        return Parameters<T>(std::move(layout), std::move(values));
    }

    template <Element T>
    static const ParameterLayout& layout(const Parameters<T>& parameters) {
        return *parameters.layout_;
    }

    template <Element T>
    static std::vector<Tensor<T>>& values(Parameters<T>& parameters) {
        return parameters.values_;
    }
};

}  // namespace topos::detail
