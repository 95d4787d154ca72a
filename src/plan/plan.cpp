// Plan<T>'s members: describe() (the scheduled nodes with their liveness and a
// summary), forward and forward_into, which gather a run's sources from
// parameters, feeds and payloads, execute the steps on the device executor or
// the host (concurrent groups as one region) over a per-thread arena, and
// return the stored values; forward_into reuses the unshared buffers of the
// run it replaces.
#include "core/tensor_access.hpp"
#include "graph/describe.hpp"
#include "plan/host_steps.hpp"
#include "plan/plan_state.hpp"
#include "run/access.hpp"
#include "run/interpreter.hpp"
#include <topos/core/error.hpp>
#include <topos/plan/plan.hpp>

#include <algorithm>
#include <sstream>

namespace topos {
namespace {

template <Element T>
std::string summary(const detail::PlanState<T>& plan) {
    const bool backward = plan.entry.keeps_backward();
    const auto node_at = [&](std::size_t position) { return plan.schedule.order[position]; };
    std::ostringstream out;
    out << "plan: " << (backward ? "retain" : "forward") << "; " << plan.schedule.order.size()
        << " of " << plan.network->spec.nodes.size() << " nodes evaluated, " << plan.readable
        << " readable\n";
    if (plan.entry.simplifies()) {
        out << "simplified: " << plan.identities_folded
            << (plan.identities_folded == 1 ? " identity" : " identities") << " folded, "
            << plan.duplicates_merged
            << (plan.duplicates_merged == 1 ? " duplicate" : " duplicates") << " merged\n";
    }
    if (!plan.elections.empty()) {
        out << "fused " << plan.elections.size()
            << (plan.elections.size() == 1 ? " group, " : " groups, ") << plan.fused_nodes
            << (plan.fused_nodes == 1 ? " node" : " nodes") << " replaced\n";
    }
    if (backward) {
        out << "live volume: retain-all " << plan.volume.retain_all << ", release floor "
            << plan.volume.peak << " at node " << node_at(plan.volume.peak_position) << '\n';
    } else {
        out << "live volume: peak " << plan.volume.peak << " elements at node "
            << node_at(plan.volume.peak_position) << ", retain-all " << plan.volume.retain_all
            << '\n';
    }
    return out.str();
}

// The tensors of the plan's scheduled sources for one run.
template <Element T>
std::vector<const Tensor<T>*> gather_sources(const detail::PlanState<T>& plan,
                                             const Parameters<T>& parameters,
                                             std::span<const Feed<T>> feeds) {
    const auto& spec = plan.network->spec;
    const auto& layout = *plan.network->parameter_layout;
    if (!detail::RunAccess::layout(parameters).same_slots(layout)) {
        throw SymbolError(
            "these parameters were made for another network (or for a version "
            "of this one with other parameter nodes); use network.parameters()");
    }
    std::vector<const Tensor<T>*> sources(plan.sources.size(), nullptr);
    for (const Feed<T>& feed : feeds) {
        detail::check_feed(spec, feed);
        const std::int32_t use = plan.source_of_node[feed.symbol.index()];
        if (use >= 0) {
            if (sources[static_cast<std::size_t>(use)] != nullptr) {
                throw FeedError("input node " + std::to_string(feed.symbol.index()) +
                                " is fed twice in one run");
            }
            sources[static_cast<std::size_t>(use)] = &feed.value;
        }
    }
    for (std::size_t i = 0; i < sources.size(); ++i) {
        const std::uint32_t node = plan.sources[i].node;
        if (spec.nodes[node].opcode() == Opcode::Parameter) {
            sources[i] = &parameters.values()[static_cast<std::size_t>(layout.slot_of_node[node])];
        } else if (sources[i] == nullptr) {
            sources[i] = &spec.payload(node);
        }
    }
    return sources;
}

// Tells a StepObserver, as the steps run, which declared values are final.
template <Element T>
class FinishReporter {
public:
    FinishReporter(const detail::HostMemory<T>& memory, const StepObserver<T>* observe)
        : memory_(memory), observe_(observe) {}

    // Reports the values final once the first `steps` steps have run.
    void after(std::size_t steps) {
        if (observe_ == nullptr || !*observe_) {
            return;
        }
        const detail::PlanState<T>& plan = memory_.plan;
        const std::size_t end = plan.finished_after[steps];
        finished_.clear();
        for (; reported_ < end; ++reported_) {
            finished_.push_back(value_of(plan.finish_order[reported_]));
        }
        (*observe_)(std::span<const FinishedValue<T>>(finished_));
    }

private:
    FinishedValue<T> value_of(std::uint32_t node) const {
        const detail::PlanState<T>& plan = memory_.plan;
        const auto slot = static_cast<std::size_t>(plan.run_layout->slot[node]);
        const std::size_t elements = plan.graph_nodes()[node].shape().elements();
        const Symbol symbol = plan.network->spec.nodes[node].symbol();
        if (memory_.stored[slot]) {
            return {symbol, std::span<const T>(memory_.stored[slot].get(), elements)};
        }
        const auto source = plan.source_of_node[plan.stored_nodes[slot]];
        return {symbol, memory_.sources[static_cast<std::size_t>(source)]->data()};
    }

    const detail::HostMemory<T>& memory_;
    const StepObserver<T>* observe_;
    std::size_t reported_ = 0;
    std::vector<FinishedValue<T>> finished_;
};

// Runs every step: on a backend's device when lowering chose one (the steps it
// declines still run on the host), else on the host, each group of steps that
// may run at once as one region on the library's threads.
template <Element T>
void execute(const detail::HostMemory<T>& memory, FinishReporter<T>& report) {
    const std::span<const detail::Step<T>> steps = memory.plan.steps;
    report.after(0);
    if constexpr (ComputeElement<T>) {
        if (memory.plan.executor != nullptr) {
            memory.plan.executor->execute(memory);
            report.after(steps.size());
            return;
        }
    }
    auto group = memory.plan.concurrent.begin();
    for (std::size_t s = 0; s < steps.size();) {
        if (group != memory.plan.concurrent.end() && group->first == s) {
            detail::run_host_steps_at_once(memory, steps.subspan(s, group->count));
            s += group->count;
            ++group;
        } else {
            detail::run_host_step(memory, steps[s]);
            ++s;
        }
        report.after(s);
    }
}

template <Element T>
std::span<T> arena_of(std::size_t elements) {
    thread_local std::vector<T> arena;
    if (arena.size() < elements) {
        arena.resize(elements);
    }
    return arena;
}

// The buffers of a run given up that no other tensor shares, sorted by
// element count: a later run of the same plan finds one for each of its
// values. One allocation, whatever the number of buffers.
template <Element T>
class SpareBuffers {
public:
    explicit SpareBuffers(const std::vector<Tensor<T>>& values) {
        spares_.reserve(values.size());
        for (const Tensor<T>& value : values) {
            if (std::shared_ptr<T[]> buffer = detail::TensorAccess::unshared_buffer(value)) {
                spares_.push_back({value.elements(), std::move(buffer)});
            }
        }
        std::sort(spares_.begin(), spares_.end(), [](const Spare& a, const Spare& b) {
            return a.elements < b.elements;
        });
    }

    // A spare buffer of `elements`, or a new one when none is left.
    std::shared_ptr<T[]> take(std::size_t elements) {
        auto spare = std::lower_bound(
            spares_.begin(),
            spares_.end(),
            elements,
            [](const Spare& candidate, std::size_t wanted) { return candidate.elements < wanted; });
        for (; spare != spares_.end() && spare->elements == elements; ++spare) {
            if (spare->buffer) {
                return std::move(spare->buffer);
            }
        }
        return detail::TensorAccess::allocate<T>(elements);
    }

private:
    struct Spare {
        std::size_t elements;
        std::shared_ptr<T[]> buffer;  // null once taken
    };

    std::vector<Spare> spares_;
};

// Runs the schedule over `sources`, storing each computed value the plan
// keeps in a buffer of `buffer_of(elements)`. Every buffer is in hand before
// the first step runs.
template <Element T, class BufferOf>
Run<T> evaluate(const detail::PlanState<T>& plan,
                const std::vector<const Tensor<T>*>& sources,
                BufferOf&& buffer_of,
                const StepObserver<T>* observe = nullptr) {
    const std::span<T> arena = arena_of<T>(plan.arena_elements);
    std::vector<std::shared_ptr<T[]>> stored(plan.stored_nodes.size());
    for (std::size_t slot = 0; slot < stored.size(); ++slot) {
        const Node& node = plan.network->spec.nodes[plan.stored_nodes[slot]];
        if (!is_source(node.opcode())) {
            stored[slot] = buffer_of(node.shape().elements());
        }
    }
    const detail::HostMemory<T> memory{plan, sources, arena, stored};
    FinishReporter<T> report(memory, observe);
    execute(memory, report);
    std::vector<Tensor<T>> values;
    values.reserve(stored.size());
    for (std::size_t slot = 0; slot < stored.size(); ++slot) {
        const std::uint32_t index = plan.stored_nodes[slot];
        const Node& node = plan.network->spec.nodes[index];
        values.push_back(stored[slot]
                             ? detail::TensorAccess::adopt<T>(node.shape(), std::move(stored[slot]))
                             : *sources[static_cast<std::size_t>(plan.source_of_node[index])]);
    }
    return detail::RunAccess::run<T>(plan.network, plan.run_layout, std::move(values));
}

}  // namespace

template <Element T>
std::string Plan<T>::describe() const {
    const detail::PlanState<T>& plan = *state_;
    std::vector<detail::DescribeRow> rows;
    rows.reserve(plan.nodes.size());
    for (std::size_t position = 0; position < plan.nodes.size(); ++position) {
        detail::DescribeRow row = detail::describe_row(plan.nodes[position]);
        row.tail = plan.liveness[position].describe();
        rows.push_back(std::move(row));
    }
    return detail::render_table(rows) + summary(plan);
}

template <Element T>
Run<T> Plan<T>::forward(const Parameters<T>& parameters,
                        std::initializer_list<Feed<T>> feeds) const {
    return forward(parameters, std::span<const Feed<T>>(feeds.begin(), feeds.size()));
}

std::string Liveness::describe() const {
    switch (kind) {
        case Kind::Freed:
            return "freed after " + std::to_string(after);
        case Kind::Kept:
            return "kept";
        case Kind::Retained:
            return "retained";
        case Kind::Releasable:
            return "releasable after " + std::to_string(after);
        case Kind::Fused:
            return "fused";
    }
    return {};
}

template <Element T>
Run<T> Plan<T>::forward() const {
    return forward(entry().network().parameters());
}

template <Element T>
Run<T> Plan<T>::forward(const Parameters<T>& parameters, std::span<const Feed<T>> feeds) const {
    const detail::PlanState<T>& plan = *state_;
    const std::vector<const Tensor<T>*> sources = gather_sources(plan, parameters, feeds);
    return evaluate(
        plan, sources, [](std::size_t count) { return detail::TensorAccess::allocate<T>(count); });
}

template <Element T>
Run<T> Plan<T>::forward(const Parameters<T>& parameters,
                        std::span<const Feed<T>> feeds,
                        const StepObserver<T>& observe) const {
    const detail::PlanState<T>& plan = *state_;
    const std::vector<const Tensor<T>*> sources = gather_sources(plan, parameters, feeds);
    return evaluate(
        plan,
        sources,
        [](std::size_t count) { return detail::TensorAccess::allocate<T>(count); },
        &observe);
}

template <Element T>
void Plan<T>::forward_into(Run<T>& run,
                           const Parameters<T>& parameters,
                           std::initializer_list<Feed<T>> feeds) const {
    forward_into(run, parameters, std::span<const Feed<T>>(feeds.begin(), feeds.size()));
}

template <Element T>
void Plan<T>::forward_into(Run<T>& run,
                           const Parameters<T>& parameters,
                           std::span<const Feed<T>> feeds) const {
    const detail::PlanState<T>& plan = *state_;
    const std::vector<const Tensor<T>*> sources = gather_sources(plan, parameters, feeds);
    SpareBuffers<T> spare(detail::RunAccess::values(run));
    run = evaluate(plan, sources, [&spare](std::size_t count) { return spare.take(count); });
}

template <Element T>
const std::vector<std::size_t>& Plan<T>::live_series() const {
    return state_->volume.series;
}

template <Element T>
std::span<const Node> Plan<T>::nodes() const {
    return state_->nodes;
}

template <Element T>
std::span<const Liveness> Plan<T>::liveness() const {
    return state_->liveness;
}

template <Element T>
std::span<const Pattern> Plan<T>::patterns() const {
    return state_->patterns;
}

template <Element T>
std::size_t Plan<T>::arena_elements() const {
    return state_->arena_elements;
}

template <Element T>
const Entry<T>& Plan<T>::entry() const {
    return state_->entry;
}

template <Element T>
Plan<T> Entry<T>::lower() const {
    return detail::PlanAccess::make(detail::lower_entry(*this));
}

template class Plan<float>;
template class Plan<double>;
template class Plan<bf16>;
template Plan<float> Entry<float>::lower() const;
template Plan<double> Entry<double>::lower() const;
template Plan<bf16> Entry<bf16>::lower() const;

}  // namespace topos
