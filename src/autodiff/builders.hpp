// The two AdjointBuilders: one computes tensors with the reference kernels (the
// engine's reverse scan over a run), one appends nodes to a tape (the recorded
// derivative). Forward values keep their node index as their Ref on both.
#pragma once

#include "graph/spec.hpp"
#include "ops/op_info.hpp"
#include "run/run_layout.hpp"
#include <topos/run/run.hpp>

#include <vector>

namespace topos::detail {

template <Element T>
class ComputingBuilder final : public AdjointBuilder {
public:
    // Forward values are read from a run's `values` through its layout.
    ComputingBuilder(const Spec<T>& spec,
                     const RunLayout& layout,
                     const std::vector<Tensor<T>>& values);

    Ref apply(Opcode opcode, std::span<const Ref> operands, const Attributes& attributes) override;
    Shape shape(Ref value) const override;
    Ref scalar(double value) override;

    // A forward value (ReadError unless retained) or a computed one.
    const Tensor<T>& value(Ref ref) const;

private:
    Ref keep(Tensor<T> tensor);

    std::size_t node_count() const { return spec_.nodes.size(); }

    const Spec<T>& spec_;
    const RunLayout& layout_;
    const std::vector<Tensor<T>>& forward_;
    std::vector<Tensor<T>> computed_;  // by Ref id - node count
};

template <Element T>
class RecordingBuilder final : public AdjointBuilder {
public:
    explicit RecordingBuilder(TapeState<T>& tape) : tape_(tape) {}

    Ref apply(Opcode opcode, std::span<const Ref> operands, const Attributes& attributes) override;
    Shape shape(Ref value) const override;
    Ref scalar(double value) override;

private:
    TapeState<T>& tape_;
};

}  // namespace topos::detail
