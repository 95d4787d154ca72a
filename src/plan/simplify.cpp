// simplify: one pass in node order over the considered nodes, each operand
// replaced by its stand-in, identities folded as each opcode's row declares
// them (OpInfo::identity: multiplying or dividing by a constant 1, adding -0,
// subtracting +0, a reshape to the same shape, an identity or undone
// permute), and a repeated computation merged into its first occurrence
// through a hash of opcode, operands and size.
#include "plan/simplify.hpp"

#include "core/arithmetic.hpp"
#include "core/bit_cast.hpp"
#include "graph/node_view.hpp"
#include "ops/op_info.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <type_traits>
#include <unordered_map>

namespace topos::detail {
namespace {

// Whether two elements are the same bits (-0 is not +0; NaNs compare by payload).
template <Element T>
bool same_bits(T a, T b) {
    if constexpr (std::same_as<T, bf16>) {
        return a.bits() == b.bits();
    } else {
        using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
        return bit_cast<Bits>(a) == bit_cast<Bits>(b);
    }
}

template <Element T>
bool same_elements(std::span<const T> a, std::span<const T> b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(), same_bits<T>);
}

// The one value every element of a node holds, when the node is a constant:
// a leaf whose elements are all the same bits, or a node whose row keeps its
// first operand's uniform fill (a broadcast, reshape or permute of such a node).
template <Element T>
class Constants {
public:
    explicit Constants(const Spec<T>& spec) : spec_(spec), fill_(spec.nodes.size()) {}

    void note(const Node& node) {
        const std::uint32_t index = node.index();
        if (node.opcode() == Opcode::Leaf) {
            fill_[index] = uniform_payload(index);
        } else if (op_info(node.opcode()).keeps_a_uniform_fill) {
            fill_[index] = fill_[node.operands()[0]];
        }
    }

    bool is_one(std::uint32_t node) const { return fill_[node] && widen(*fill_[node]) == 1; }

    bool is_zero(std::uint32_t node, bool negative) const {
        return fill_[node] && widen(*fill_[node]) == 0 &&
               std::signbit(widen(*fill_[node])) == negative;
    }

private:
    std::optional<T> uniform_payload(std::uint32_t node) const {
        const std::span<const T> values = spec_.payload(node).data();
        if (values.empty()) {
            return std::nullopt;
        }
        if (!std::all_of(values.begin(), values.end(), [&](T value) {
                return same_bits(value, values.front());
            })) {
            return std::nullopt;
        }
        return values.front();
    }

    const Spec<T>& spec_;
    std::vector<std::optional<T>> fill_;  // by node index
};

// What the rows' identity rules read: the simplified nodes so far and their constants.
template <Element T>
class Facts final : public IdentityFacts {
public:
    Facts(const Node& node, const std::vector<Node>& nodes, const Constants<T>& constants)
        : node_(node), nodes_(nodes), constants_(constants) {}

    std::uint32_t operand(std::size_t position) const override {
        return node_.operands()[position];
    }

    bool is_one(std::uint32_t node) const override { return constants_.is_one(node); }

    bool is_zero(std::uint32_t node, bool negative) const override {
        return constants_.is_zero(node, negative);
    }

    NodeView view(std::uint32_t node) const override { return view_of(nodes_[node]); }

    std::uint32_t operand_of(std::uint32_t node, std::size_t position) const override {
        return nodes_[node].operands()[position];
    }

private:
    const Node& node_;
    const std::vector<Node>& nodes_;
    const Constants<T>& constants_;
};

// The node `node` is exactly equal to, when its row's identity rule finds one
// of the same shape and element type.
template <Element T>
std::optional<std::uint32_t> identity_operand(const Node& node,
                                              const std::vector<Node>& nodes,
                                              const Constants<T>& constants) {
    const IdentityRule rule = op_info(node.opcode()).identity;
    if (rule == nullptr) {
        return std::nullopt;
    }
    const std::optional<std::uint32_t> kept = rule(view_of(node), Facts<T>(node, nodes, constants));
    if (!kept || !(nodes[*kept].shape() == node.shape()) || nodes[*kept].dtype() != node.dtype()) {
        return std::nullopt;
    }
    return kept;
}

// Whether two nodes compute the same value: same opcode, operands, attributes,
// shape and type, and for leaves the same payload bits. Parameters and inputs
// are never the same value as another node.
template <Element T>
bool same_computation(const Node& a, const Node& b, const Spec<T>& spec) {
    if (a.opcode() != b.opcode() || a.dtype() != b.dtype() || !(a.shape() == b.shape()) ||
        !std::equal(
            a.operands().begin(), a.operands().end(), b.operands().begin(), b.operands().end()) ||
        !(a.attributes() == b.attributes())) {
        return false;
    }
    if (a.opcode() == Opcode::Parameter || a.opcode() == Opcode::Input) {
        return false;
    }
    if (a.opcode() == Opcode::Leaf) {
        return same_elements(spec.payload(a.index()).data(), spec.payload(b.index()).data());
    }
    return true;
}

std::size_t computation_hash(const Node& node) {
    std::size_t hash = std::hash<int>{}(static_cast<int>(node.opcode()));
    for (std::uint32_t operand : node.operands()) {
        hash = hash * 1000003U ^ std::hash<std::uint32_t>{}(operand);
    }
    return hash * 1000003U ^ std::hash<std::size_t>{}(node.shape().elements());
}

Node with_operands(const Node& node, std::span<const std::uint32_t> operands) {
    return Node(
        node.symbol(), node.opcode(), operands, node.attributes(), node.shape(), node.dtype());
}

}  // namespace

template <Element T>
Simplified simplify(const Spec<T>& spec, const std::vector<bool>& considered) {
    Simplified result;
    result.nodes.reserve(spec.nodes.size());
    result.stand_in.resize(spec.nodes.size());
    Constants<T> constants(spec);
    std::unordered_multimap<std::size_t, std::uint32_t> computed;
    for (const Node& original : spec.nodes) {
        const std::uint32_t index = original.index();
        std::array<std::uint32_t, Node::max_operands> operands{};
        std::transform(original.operands().begin(),
                       original.operands().end(),
                       operands.begin(),
                       [&](std::uint32_t operand) { return result.stand_in[operand]; });
        result.nodes.push_back(with_operands(
            original, std::span<const std::uint32_t>(operands.data(), original.operands().size())));
        const Node& node = result.nodes.back();
        result.stand_in[index] = index;
        if (!considered[index]) {
            continue;
        }
        constants.note(node);
        if (const auto kept = identity_operand(node, result.nodes, constants)) {
            result.stand_in[index] = *kept;
            ++result.identities_folded;
            continue;
        }
        const std::size_t hash = computation_hash(node);
        const auto [first, last] = computed.equal_range(hash);
        const auto earlier = std::find_if(first, last, [&](const auto& entry) {
            return same_computation(result.nodes[entry.second], node, spec);
        });
        if (earlier != last) {
            result.stand_in[index] = earlier->second;
            ++result.duplicates_merged;
        } else {
            computed.emplace(hash, index);
        }
    }
    return result;
}

template Simplified simplify(const Spec<float>&, const std::vector<bool>&);
template Simplified simplify(const Spec<double>&, const std::vector<bool>&);
template Simplified simplify(const Spec<bf16>&, const std::vector<bool>&);

}  // namespace topos::detail
