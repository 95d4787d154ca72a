// Plan<T>: what lowering an entry derives: the schedule of the declared values'
// ancestors, what happens to each value once computed (its liveness), and the
// offset of every intermediate buffer in one arena. A plan holds no state: it
// takes Parameters per call, serves every training step and any number of
// threads at once, and outlives a reopen of its network.
#pragma once

#include <topos/core/tensor.hpp>
#include <topos/graph/node.hpp>
#include <topos/pattern/pattern.hpp>
#include <topos/run/entry.hpp>
#include <topos/run/parameters.hpp>
#include <topos/run/run.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace topos {

namespace detail {
template <Element T>
struct PlanState;
struct PlanAccess;
}  // namespace detail

// The two spellings of an emitted module; defined in <topos/emit/stablehlo.hpp>.
enum class MlirForm : std::uint8_t;

// What a plan does with one scheduled value once it is computed.
struct Liveness {
    // What becomes of the value once computed (see each kind).
    enum class Kind : std::uint8_t {
        Freed,       // released after node `after`, its last reader
        Kept,        // declared: readable after the run
        Retained,    // backward posture: the reverse scan reads it
        Releasable,  // backward posture: could be released after node `after`
        Fused,       // interior of an elected pattern: never materialised
    };
    Kind kind = Kind::Freed;
    std::uint32_t after = 0;  // a node index, for Freed and Releasable

    // The words Plan::describe writes: "freed after 2", "kept", "retained",
    // "releasable after 5", "fused".
    std::string describe() const;
};

// A declared value of a run in progress, the moment the step that computes it
// has run: its node and its elements (valid during the observer's call only).
template <Element T>
struct FinishedValue {
    Symbol node;
    std::span<const T> elements;
};

// What Plan::forward calls, on the thread that called forward, before the
// first step and after each step (a group of steps run at once counts as
// one) with the declared values that step made final: often none. A value
// taken from a parameter, an input or a leaf is final before the first step.
// Data-parallel training starts sending a gradient here while the plan
// computes the others, and the calls with none let it move its messages on.
template <Element T>
using StepObserver = std::function<void(std::span<const FinishedValue<T>> finished)>;

template <Element T>
class Plan {
public:
    // One line per scheduled node with its liveness, then the summary lines.
    std::string describe() const;

    // Runs the schedule. The run reads only the declared values (ReadError
    // otherwise); feeds and parameters are checked as in Network::forward.
    Run<T> forward(const Parameters<T>& parameters,
                   std::initializer_list<Feed<T>> feeds = {}) const;
    Run<T> forward(const Parameters<T>& parameters, std::span<const Feed<T>> feeds) const;
    // Runs the schedule on the network's recorded parameters and inputs.
    Run<T> forward() const;
    // forward, telling `observe` as the steps run which declared values are
    // final (see StepObserver). On a device executor, which runs the plan as a
    // whole, every value is reported after the last step.
    Run<T> forward(const Parameters<T>& parameters,
                   std::span<const Feed<T>> feeds,
                   const StepObserver<T>& observe) const;

    // forward, into `run`, a run the caller gives up (typically this plan's
    // previous one): each computed value goes into a buffer of `run` of its
    // size that no other tensor shares, so a training loop allocates no tensor
    // after its first step. A buffer still shared (a tensor read from `run` and
    // kept) is left to its holder and a new one taken, so no value the caller
    // holds changes. The values and errors are forward's; feeds and parameters
    // are checked before anything is written, so on such an error `run` is unchanged.
    void forward_into(Run<T>& run,
                      const Parameters<T>& parameters,
                      std::initializer_list<Feed<T>> feeds = {}) const;
    void forward_into(Run<T>& run,
                      const Parameters<T>& parameters,
                      std::span<const Feed<T>> feeds) const;

    // Elements alive at each scheduled position (see docs/guide/entries-and-plans.md).
    const std::vector<std::size_t>& live_series() const;

    // The scheduled nodes, in schedule order, and their liveness.
    std::span<const Node> nodes() const;
    std::span<const Liveness> liveness() const;

    // The elected patterns, in root order.
    std::span<const Pattern> patterns() const;

    // The size of the arena that holds every intermediate value, in elements.
    std::size_t arena_elements() const;

    // The entry this plan was lowered from.
    const Entry<T>& entry() const;

    // The plan as a StableHLO module (docs/guide/emission.md), in MLIR's pretty
    // form: @main takes the scheduled parameters and inputs in node order and
    // returns the declared values in declaration order. Throws EmitError naming
    // the first node that cannot be written as StableHLO. Linear in the
    // scheduled nodes and the elements of the leaves it writes as constants.
    // Defined by the emission layer (<topos/emit/stablehlo.hpp>).
    std::string emit_stablehlo() const;
    // The same module in the form `form` names.
    std::string emit_stablehlo(MlirForm form) const;

private:
    friend struct detail::PlanAccess;

    explicit Plan(std::shared_ptr<const detail::PlanState<T>> state) : state_(std::move(state)) {}

    std::shared_ptr<const detail::PlanState<T>> state_;
};

extern template class Plan<float>;
extern template class Plan<double>;
extern template class Plan<bf16>;

}  // namespace topos
