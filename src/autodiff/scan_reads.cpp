// values_read_by_scan: every scheduled node's derivative rule run once against
// a probe builder that only infers shapes and marks the forward values used as
// operands, so the backward posture knows which values to retain.
#include "autodiff/scan_reads.hpp"

#include "graph/node_view.hpp"

#include <array>
#include <optional>

namespace topos::detail {
namespace {

// Builds nothing: it infers shapes and notes which forward values are read.
class ProbeBuilder final : public AdjointBuilder {
public:
    ProbeBuilder(const std::vector<Node>& nodes, std::vector<bool>& read)
        : nodes_(nodes), read_(read) {}

    Ref apply(Opcode opcode, std::span<const Ref> operands, const Attributes& attributes) override {
        std::array<std::uint32_t, Node::max_operands> ids{};
        std::array<Shape, Node::max_operands> shapes;
        for (std::size_t i = 0; i < operands.size(); ++i) {
            ids[i] = operands[i].id;
            shapes[i] = shape(operands[i]);
            if (operands[i].id < nodes_.size()) {
                read_[operands[i].id] = true;
            }
        }
        return fresh(infer_shape(opcode,
                                 std::span<const std::uint32_t>(ids.data(), operands.size()),
                                 std::span<const Shape>(shapes.data(), operands.size()),
                                 attributes));
    }

    Shape shape(Ref value) const override {
        return value.id < nodes_.size() ? nodes_[value.id].shape()
                                        : made_[value.id - nodes_.size()];
    }

    Ref scalar(double) override { return fresh(Shape{}); }

    // What one derivative rule made is read by no other rule: dropping it
    // keeps the probe's memory to one node's worth however long the graph.
    void forget_made() { made_.clear(); }

    Ref fresh(Shape shape) {
        made_.push_back(std::move(shape));
        return Ref{static_cast<std::uint32_t>(nodes_.size() + made_.size() - 1)};
    }

private:
    const std::vector<Node>& nodes_;
    std::vector<bool>& read_;
    std::vector<Shape> made_;
};

}  // namespace

std::vector<bool> values_read_by_scan(const std::vector<Node>& nodes,
                                      const std::vector<bool>& scheduled) {
    std::vector<bool> read(nodes.size(), false);
    ProbeBuilder probe(nodes, read);
    std::array<Ref, Node::max_operands> operands{};
    std::array<std::optional<Ref>, Node::max_operands> contributions{};
    for (std::size_t index = 0; index < scheduled.size(); ++index) {
        const Node& node = nodes[index];
        if (!scheduled[index] || is_source(node.opcode())) {
            continue;
        }
        probe.forget_made();
        const std::size_t arity = node.operands().size();
        for (std::size_t i = 0; i < arity; ++i) {
            operands[i] = Ref{node.operands()[i]};
        }
        const Ref adjoint = probe.fresh(node.shape());
        const VjpContext context{view_of(node),
                                 std::span<const Ref>(operands.data(), arity),
                                 Ref{static_cast<std::uint32_t>(index)},
                                 adjoint,
                                 probe};
        op_info(node.opcode()).vjp(context, std::span(contributions.data(), arity));
    }
    return read;
}

}  // namespace topos::detail
