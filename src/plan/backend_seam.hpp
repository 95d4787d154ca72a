// The seam between the compiler and the backends. A backend implements a
// Server: which nodes it serves and the kernel that serves them; one that keeps
// a whole plan's buffers on a device also implements a DeviceExecutor, which
// runs every step of the plans it takes. The compiler asks servers() which
// backends this build holds; the backend layer defines that list
// (src/backend/servers.cpp), so the compiler names no backend. The reference
// kernels (the op table and the pattern catalog) serve whatever a backend
// declines.
#pragma once

#include "ops/op_info.hpp"
#include "pattern/row.hpp"
#include "run/tally_scope.hpp"
#include <topos/graph/node.hpp>

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace topos::detail {

template <Element T>
struct PlanState;
template <Element T>
struct HostMemory;

// Runs whole plans on a device. It takes a plan when it serves some of its
// steps, and then runs every step: on the device where its server serves the
// step, on the host reference kernel (with the operands brought back) where
// not.
class DeviceExecutor {
public:
    virtual ~DeviceExecutor() = default;

    virtual bool takes(const PlanState<float>& plan) const = 0;
    virtual bool takes(const PlanState<double>& plan) const = 0;

    // Runs every step of memory.plan; the stored values end in memory.stored.
    virtual void execute(const HostMemory<float>& memory) const = 0;
    virtual void execute(const HostMemory<double>& memory) const = 0;
};

struct Server {
    std::string_view name;
    Fidelity fidelity;
    std::vector<std::string> formulas;
    // Whether it serves `node` (operand shapes included) at this precision;
    // null for a backend that serves elected patterns only.
    bool (*serves)(const Node& node, std::span<const Shape> operands, Precision precision);
    // The kernel over host memory.
    Kernel<float> kernel_f32;
    Kernel<double> kernel_f64;
    // Null for a backend whose kernels work in host memory.
    const DeviceExecutor* device = nullptr;
    // Whether its kernels start threads of their own (a library such as
    // OpenBLAS): its steps never run beside others (plan/concurrent_steps.hpp).
    bool runs_own_threads = false;
    // Elected patterns it computes in the catalog kernel's stead (a library's
    // convolution): whether it serves `match` at this precision, and the
    // kernels, with the catalog's inputs and results. Null: none.
    bool (*serves_match)(const Match& match, Precision precision) = nullptr;
    FusedKernel<float> match_kernel_f32 = nullptr;
    FusedKernel<double> match_kernel_f64 = nullptr;
    // The kernel of bf16 nodes over host memory; null for a backend without.
    Kernel<bf16> kernel_bf16 = nullptr;
    // Whether a Fast plan gives it a step only where it ran the step's shapes
    // faster than the reference kernel in a trial (plan/timed_election.hpp): a
    // library whose speed this build cannot know in advance.
    bool timed = false;

    // Null where it has none of this element type.
    template <Element T>
    Kernel<T> kernel() const {
        if constexpr (std::same_as<T, float>) {
            return kernel_f32;
        } else if constexpr (std::same_as<T, double>) {
            return kernel_f64;
        } else {
            return kernel_bf16;
        }
    }

    template <Element T>
    FusedKernel<T> match_kernel() const {
        if constexpr (std::same_as<T, float>) {
            return match_kernel_f32;
        } else if constexpr (std::same_as<T, double>) {
            return match_kernel_f64;
        } else {
            return nullptr;
        }
    }
};

// The optional backends compiled into this build, in priority order, less
// those the environment variable TOPOS_BACKENDS leaves out. Declared here,
// defined by the backend layer.
std::span<const Server* const> servers();

// The servers of `all` that `wanted` names (`none`, or names separated by
// commas), in the order of `all`; a name `all` lacks is reported on stderr
// and ignored.
std::vector<const Server*> servers_named(std::span<const Server* const> all,
                                         std::string_view wanted);

}  // namespace topos::detail
