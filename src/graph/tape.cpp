#include "autodiff/builders.hpp"
#include "autodiff/reverse_scan.hpp"
#include "graph/describe.hpp"
#include "graph/record.hpp"
#include "graph/spec.hpp"
#include <topos/core/error.hpp>
#include <topos/graph/tape.hpp>

namespace topos {

template <Element T>
Tape<T>::Tape() : state_(std::make_shared<detail::TapeState<T>>()) {
    state_->spec.lineage.push_back(detail::next_tape_id());
}

template <Element T>
Value<T> Tape<T>::parameter(Tensor<T> initial) {
    return Value<T>(state_, detail::append_source(*state_, Opcode::Parameter, std::move(initial)));
}

template <Element T>
Value<T> Tape<T>::input(Tensor<T> default_value) {
    return Value<T>(state_,
                    detail::append_source(*state_, Opcode::Input, std::move(default_value)));
}

template <Element T>
Value<T> Tape<T>::leaf(Tensor<T> constant) {
    return Value<T>(state_, detail::append_source(*state_, Opcode::Leaf, std::move(constant)));
}

template <Element T>
Value<T> Tape<T>::indices(Tensor<T> default_indices) {
    detail::check_indices(default_indices, "tape.indices");
    return Value<T>(
        state_,
        detail::append_source(*state_, Opcode::Input, std::move(default_indices), DType::Index));
}

template <Element T>
Value<T> Tape<T>::indices(const Shape& shape, std::initializer_list<std::int64_t> values) {
    std::vector<T> converted;
    for (std::int64_t value : values) {
        converted.push_back(static_cast<T>(value));
    }
    return indices(Tensor<T>(shape, converted));
}

template <Element T>
Value<T> Tape<T>::value(Symbol symbol) const {
    return Value<T>(state_, state_->spec.node(symbol, "Tape::value").index());
}

template <Element T>
std::span<const Node> Tape<T>::nodes() const {
    return state_->spec.nodes;
}

template <Element T>
std::string Tape<T>::describe() const {
    std::vector<detail::DescribeRow> rows;
    rows.reserve(state_->spec.nodes.size());
    for (const Node& node : state_->spec.nodes) {
        rows.push_back(detail::describe_row(node));
    }
    return detail::render_table(rows) + "tape: " + detail::count_summary(state_->spec.nodes) + '\n';
}

template <Element T>
Network<T> Tape<T>::into_network() && {
    state_->check_open("seal the tape");
    auto network = std::make_shared<detail::NetworkState<T>>();
    network->spec = state_->spec;  // the tape keeps its copy, so its values stay readable
    state_->sealed = true;
    auto layout = std::make_shared<detail::ParameterLayout>();
    layout->lineage = network->spec.lineage;
    layout->slot_of_node.assign(network->spec.nodes.size(), -1);
    for (std::size_t slot = 0; slot < network->spec.parameters.size(); ++slot) {
        const std::uint32_t index = network->spec.parameters[slot];
        layout->symbols.push_back(network->spec.nodes[index].symbol());
        layout->slot_of_node[index] = static_cast<std::int32_t>(slot);
    }
    network->parameter_layout = std::move(layout);
    auto whole = std::make_shared<detail::RunLayout>();
    whole->slot.resize(network->spec.nodes.size());
    for (std::size_t index = 0; index < whole->slot.size(); ++index) {
        whole->slot[index] = static_cast<std::int32_t>(index);
    }
    whole->readable.assign(network->spec.nodes.size(), true);
    whole->backward_ready = true;
    whole->declaration = "Network::forward";
    network->whole_spec = std::move(whole);
    return Network<T>(std::move(network));
}

namespace {

template <Element T>
Adjoints<T> record_adjoints(detail::TapeState<T>& tape,
                            const Value<T>& target,
                            std::optional<detail::Ref> seed,
                            const std::vector<Symbol>& wrt) {
    tape.check_open("differentiate");
    if (target.tape_state().get() != &tape) {
        throw TapeError("the target was recorded on another tape");
    }
    for (const Symbol& value : wrt) {
        tape.spec.node(value, "differentiate");
    }
    detail::RecordingBuilder<T> build(tape);
    const detail::Ref start = seed ? *seed : build.scalar(1.0);
    const auto adjoints = detail::reverse_scan(tape.spec.nodes, target.index(), start, build);
    std::vector<std::pair<Symbol, Symbol>> gradients;
    for (const Symbol& value : wrt) {
        const std::size_t index = value.index();
        const bool reached = index < adjoints.size() && adjoints[index];
        const std::uint32_t gradient =
            reached
                ? adjoints[index]->id
                : detail::append_source(
                      tape, Opcode::Leaf, Tensor<T>::filled(tape.spec.nodes[index].shape(), T{0}));
        gradients.emplace_back(value, tape.spec.nodes[gradient].symbol());
    }
    return Adjoints<T>(target.symbol(), std::move(gradients));
}

}  // namespace

template <Element T>
Adjoints<T> Tape<T>::differentiate(const Value<T>& target, std::initializer_list<Symbol> wrt) {
    return differentiate(target, std::vector<Symbol>(wrt));
}

template <Element T>
Adjoints<T> Tape<T>::differentiate(const Value<T>& target, const std::vector<Symbol>& wrt) {
    if (target.shape().rank() != 0) {
        throw GradientError("differentiate needs a rank-0 target, but node " +
                            std::to_string(target.index()) + " has shape " + target.shape().str() +
                            "; reduce it (e.g. sum()) or use tape.vjp with a seed");
    }
    return record_adjoints<T>(*state_, target, std::nullopt, wrt);
}

template <Element T>
Adjoints<T> Tape<T>::vjp(const Value<T>& target,
                         const Value<T>& seed,
                         std::initializer_list<Symbol> wrt) {
    return vjp(target, seed, std::vector<Symbol>(wrt));
}

template <Element T>
Adjoints<T> Tape<T>::vjp(const Value<T>& target,
                         const Value<T>& seed,
                         const std::vector<Symbol>& wrt) {
    if (seed.tape_state() != state_ || !(seed.shape() == target.shape())) {
        throw GradientError("vjp needs a seed recorded on this tape with the target's shape " +
                            target.shape().str() + "; got shape " + seed.shape().str());
    }
    return record_adjoints<T>(*state_, target, detail::Ref{seed.index()}, wrt);
}

template class Tape<float>;
template class Tape<double>;

}  // namespace topos
