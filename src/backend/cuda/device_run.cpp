// The device executor (device_run.hpp): a plan's arena, stored values and
// sources laid out in one aligned, per-thread device buffer; the sources
// uploaded once, each step the CUDA backend serves launched on the device, each
// declined step run on the host between a download of its operands and an
// upload of its results, and the stored values downloaded at the end.
#include "backend/cuda/device_run.hpp"

#include "backend/cuda/device.hpp"
#include "backend/cuda/device_serve.hpp"
#include "graph/node_view.hpp"
#include "ops/op_info.hpp"

#include <algorithm>
#include <array>
#include <vector>

namespace topos::detail {

const Server& cuda_server();

namespace cuda {
namespace {

// 256 bytes for f32: what cuBLAS and coalesced loads like.
constexpr std::size_t alignment_elements = 64;

std::size_t aligned(std::size_t elements) {
    return (elements + alignment_elements - 1) / alignment_elements * alignment_elements;
}

// One run's values on the device: the arena at offset 0, then every stored
// value, then every source.
template <Element T>
class DeviceMemory {
public:
    explicit DeviceMemory(const PlanState<T>& plan) {
        const std::vector<Node>& nodes = plan.network->spec.nodes;
        std::size_t end = aligned(plan.arena_elements);
        for (std::uint32_t node : plan.stored_nodes) {
            stored_offsets_.push_back(end);
            end += aligned(nodes[node].shape().elements());
        }
        for (const SourceUse& source : plan.sources) {
            source_offsets_.push_back(end);
            end += aligned(nodes[source.node].shape().elements());
        }
        thread_local DeviceBuffer<T> memory;
        base_ = memory.reserve(end);
    }

    T* address(const Location& location) const {
        switch (location.kind) {
            case Location::Kind::Arena:
                return base_ + location.index;
            case Location::Kind::Stored:
                return base_ + stored_offsets_[location.index];
            case Location::Kind::Source:
                return base_ + source_offsets_[location.index];
        }
        return nullptr;
    }

private:
    T* base_ = nullptr;
    std::vector<std::size_t> stored_offsets_;  // by run slot
    std::vector<std::size_t> source_offsets_;  // by source index
};

template <Element T>
std::size_t elements_of(const PlanState<T>& plan, std::uint32_t node) {
    return plan.network->spec.nodes[node].shape().elements();
}

// Host memory to device, for a value a host step wrote.
template <Element T>
void to_device(const HostMemory<T>& host,
               const DeviceMemory<T>& device,
               const Location& location,
               std::size_t count) {
    upload(host.read_address(location), device.address(location), count);
}

// Device memory to host, for a value a host step reads (sources are there already).
template <Element T>
void to_host(const HostMemory<T>& host,
             const DeviceMemory<T>& device,
             const Location& location,
             std::size_t count) {
    if (location.kind != Location::Kind::Source) {
        download(device.address(location), host.address(location), count);
    }
}

template <Element T>
void upload_sources(const HostMemory<T>& host, const DeviceMemory<T>& device) {
    for (std::size_t i = 0; i < host.plan.sources.size(); ++i) {
        const Location location{Location::Kind::Source, i};
        to_device(host, device, location, elements_of(host.plan, host.plan.sources[i].node));
    }
}

template <Element T>
void run_served_step(const HostMemory<T>& host,
                     const DeviceMemory<T>& device,
                     const Step<T>& step) {
    // An empty result: nothing to write, and no launch of zero blocks.
    if (!op_info(step.node->opcode()).kernel_runs_for(step.node->shape())) {
        tally_kernel_step(step);
        return;
    }
    const std::vector<Node>& nodes = host.plan.graph_nodes();
    const std::span<const std::uint32_t> operands = step.node->operands();
    std::array<View<T>, Node::max_operands> views{};
    for (std::size_t i = 0; i < operands.size(); ++i) {
        views[i] = {device.address(step.operands[i]), &nodes[operands[i]].shape()};
    }
    run_on_device<T>(view_of(*step.node),
                     std::span<const View<T>>(views.data(), operands.size()),
                     device.address(step.output));
    tally_kernel_step(step);
}

// A declined step: its operands come down, the reference runs, its results go up.
template <Element T>
void run_declined_step(const HostMemory<T>& host,
                       const DeviceMemory<T>& device,
                       const Step<T>& step) {
    const PlanState<T>& plan = host.plan;
    if (step.election < 0) {
        const std::span<const std::uint32_t> operands = step.node->operands();
        for (std::size_t i = 0; i < operands.size(); ++i) {
            to_host(host, device, step.operands[i], elements_of(plan, operands[i]));
        }
        run_host_step(host, step);
        to_device(host, device, step.output, step.node->shape().elements());
        return;
    }
    const auto e = static_cast<std::size_t>(step.election);
    const Match& match = plan.elections[e].match;
    const ElectionLocations& locations = plan.election_locations[e];
    for (std::size_t i = 0; i < locations.inputs.size(); ++i) {
        to_host(host, device, locations.inputs[i], elements_of(plan, match.inputs[i]));
    }
    run_host_step(host, step);
    for (std::size_t i = 0; i < locations.results.size(); ++i) {
        if (locations.results[i]) {
            to_device(host, device, *locations.results[i], elements_of(plan, match.results[i]));
        }
    }
}

template <Element T>
void download_stored(const HostMemory<T>& host, const DeviceMemory<T>& device) {
    for (std::size_t slot = 0; slot < host.stored.size(); ++slot) {
        if (host.stored[slot]) {
            const Location location{Location::Kind::Stored, slot};
            to_host(host, device, location, elements_of(host.plan, host.plan.stored_nodes[slot]));
        }
    }
}

template <Element T>
bool runs_on_device(const PlanState<T>& plan) {
    return std::any_of(plan.steps.begin(), plan.steps.end(), [](const Step<T>& step) {
        return step.server == &cuda_server();
    });
}

template <Element T>
void execute_on_device(const HostMemory<T>& host) {
    const DeviceMemory<T> device(host.plan);
    upload_sources(host, device);
    for (const Step<T>& step : host.plan.steps) {
        if (step.server == &cuda_server()) {
            run_served_step(host, device, step);
        } else {
            run_declined_step(host, device, step);
        }
    }
    download_stored(host, device);
}

class CudaExecutor final : public DeviceExecutor {
public:
    bool takes(const PlanState<float>& plan) const override { return runs_on_device(plan); }

    bool takes(const PlanState<double>& plan) const override { return runs_on_device(plan); }

    void execute(const HostMemory<float>& memory) const override { execute_on_device(memory); }

    void execute(const HostMemory<double>& memory) const override { execute_on_device(memory); }
};

}  // namespace

const DeviceExecutor& device_executor() {
    static const CudaExecutor executor;
    return executor;
}

}  // namespace cuda
}  // namespace topos::detail
