// Tape::differentiate and Tape::vjp: the reverse scan with a builder that
// records, so the derivative becomes ordinary nodes of the tape.
#include "autodiff/builders.hpp"
#include "autodiff/reverse_scan.hpp"
#include "graph/record.hpp"
#include "graph/spec.hpp"
#include <topos/autodiff/adjoints.hpp>
#include <topos/autodiff/grad.hpp>
#include <topos/core/error.hpp>
#include <topos/graph/tape.hpp>

#include <optional>
#include <utility>
#include <vector>

namespace topos {
namespace {

template <Element T>
Adjoints<T> record_adjoints(detail::TapeState<T>& tape,
                            const Value<T>& target,
                            std::optional<detail::Ref> seed,
                            const std::vector<Symbol>& wrt) {
    tape.check_open("differentiate");
    if (detail::GraphAccess::state(target).get() != &tape) {
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
    if (detail::GraphAccess::state(seed) != state_ || !(seed.shape() == target.shape())) {
        throw GradientError("vjp needs a seed recorded on this tape with the target's shape " +
                            target.shape().str() + "; got shape " + seed.shape().str());
    }
    return record_adjoints<T>(*state_, target, detail::Ref{seed.index()}, wrt);
}

template Adjoints<float> Tape<float>::differentiate(const Value<float>&,
                                                    std::initializer_list<Symbol>);
template Adjoints<double> Tape<double>::differentiate(const Value<double>&,
                                                      std::initializer_list<Symbol>);
template Adjoints<bf16> Tape<bf16>::differentiate(const Value<bf16>&,
                                                  std::initializer_list<Symbol>);
template Adjoints<float> Tape<float>::differentiate(const Value<float>&,
                                                    const std::vector<Symbol>&);
template Adjoints<double> Tape<double>::differentiate(const Value<double>&,
                                                      const std::vector<Symbol>&);
template Adjoints<bf16> Tape<bf16>::differentiate(const Value<bf16>&, const std::vector<Symbol>&);
template Adjoints<float> Tape<float>::vjp(const Value<float>&,
                                          const Value<float>&,
                                          std::initializer_list<Symbol>);
template Adjoints<double> Tape<double>::vjp(const Value<double>&,
                                            const Value<double>&,
                                            std::initializer_list<Symbol>);
template Adjoints<bf16> Tape<bf16>::vjp(const Value<bf16>&,
                                        const Value<bf16>&,
                                        std::initializer_list<Symbol>);
template Adjoints<float> Tape<float>::vjp(const Value<float>&,
                                          const Value<float>&,
                                          const std::vector<Symbol>&);
template Adjoints<double> Tape<double>::vjp(const Value<double>&,
                                            const Value<double>&,
                                            const std::vector<Symbol>&);
template Adjoints<bf16> Tape<bf16>::vjp(const Value<bf16>&,
                                        const Value<bf16>&,
                                        const std::vector<Symbol>&);

template <Element T>
Value<T> grad(const Value<T>& target, const Value<T>& wrt) {
    Tape<T> tape = target.tape();
    return tape.value(tape.differentiate(target, {wrt.symbol()}).of(wrt.symbol()));
}

template Value<float> grad(const Value<float>&, const Value<float>&);
template Value<double> grad(const Value<double>&, const Value<double>&);
template Value<bf16> grad(const Value<bf16>&, const Value<bf16>&);

}  // namespace topos
