// Layout: the operators that give the same elements new extents or a new
// order of axes (Reshape, Flatten, Squeeze, Unsqueeze, Transpose, DepthToSpace,
// SpaceToDepth), or copy them (Expand, Tile, Identity, Dropout at inference).
// Each is written once over its data, a recorded value or an integer constant
// (moves.hpp): the same steps record the one and fold the other.
#include "onnx/context.hpp"
#include "onnx/folding.hpp"
#include "onnx/operators/moves.hpp"
#include "onnx/rules.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace topos::onnx::detail {
namespace {

using namespace moves;

// ---- Reshape, Flatten, Squeeze, Unsqueeze: new extents for the same elements.

Extents reshape_target(const Extents& input,
                       const Extents& shape,
                       bool allow_zero,
                       const NodeDef& node) {
    Extents target;
    std::optional<std::size_t> inferred;
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
        std::int64_t extent = shape[axis];
        if (extent == 0 && !allow_zero) {
            if (axis >= input.size()) {
                contradiction(node,
                              "the shape " + listed(shape) + " copies axis " +
                                  std::to_string(axis) + " of an input " + listed(input) +
                                  " that lacks it");
            }
            extent = input[axis];
        } else if (extent == -1 && !inferred) {
            inferred = axis;
            extent = 1;
        } else if (extent < 0) {
            contradiction(node, "the shape " + listed(shape) + " is not one Reshape reads");
        }
        target.push_back(extent);
    }
    const std::int64_t elements = product(input, 0, input.size());
    const std::int64_t known = product(target, 0, target.size());
    if (inferred && known != 0 && elements % known == 0) {
        target[*inferred] = elements / known;
    }
    if (product(target, 0, target.size()) != elements || (inferred && known == 0)) {
        contradiction(node, "cannot reshape " + listed(input) + " to " + listed(shape));
    }
    return target;
}

Extents squeezed(const Extents& extents, const std::optional<Extents>& axes, const NodeDef& node) {
    std::vector<bool> removed(extents.size(), false);
    for (std::size_t axis = 0; !axes && axis < extents.size(); ++axis) {
        removed[axis] = extents[axis] == 1;
    }
    for (std::int64_t given : axes.value_or(Extents{})) {
        const std::size_t axis = axis_in(given, extents.size(), node);
        if (extents[axis] != 1 || removed[axis]) {
            contradiction(
                node, "cannot squeeze axis " + std::to_string(given) + " of " + listed(extents));
        }
        removed[axis] = true;
    }
    Extents result;
    for (std::size_t axis = 0; axis < extents.size(); ++axis) {
        if (!removed[axis]) {
            result.push_back(extents[axis]);
        }
    }
    return result;
}

Extents unsqueezed(const Extents& extents, const Extents& axes, const NodeDef& node) {
    const std::size_t rank = extents.size() + axes.size();
    std::vector<bool> inserted(rank, false);
    for (std::int64_t given : axes) {
        const std::size_t axis = axis_in(given, rank, node);
        if (inserted[axis]) {
            contradiction(node, "the axes " + listed(axes) + " name an axis twice");
        }
        inserted[axis] = true;
    }
    Extents result;
    std::size_t next = 0;
    for (std::size_t axis = 0; axis < rank; ++axis) {
        result.push_back(inserted[axis] ? 1 : extents[next++]);
    }
    return result;
}

std::size_t flatten_axis(std::int64_t axis, std::size_t rank, const NodeDef& node) {
    const auto signed_rank = static_cast<std::int64_t>(rank);
    if (axis < -signed_rank || axis > signed_rank) {
        contradiction(node,
                      "axis " + std::to_string(axis) + " is outside [-" + std::to_string(rank) +
                          ", " + std::to_string(rank) + "]");
    }
    return static_cast<std::size_t>(axis < 0 ? axis + signed_rank : axis);
}

void add_reshaping_rules(RuleTable& table) {
    table.add(
        "Reshape",
        {"allowzero"},
        [](auto& context, const NodeDef& node) {
            const Extents shape = context.constant(node, 1).as_integers();
            const bool allow_zero = integer_attribute(node, "allowzero", 0) != 0;
            define_moved(context, node, 0, [&](const auto& data) {
                return reshaped(data, reshape_target(extents_of(data), shape, allow_zero, node));
            });
        },
        5);
    table.add(
        "Flatten",
        {"axis"},
        [](auto& context, const NodeDef& node) {
            define_moved(context, node, 0, [&](const auto& data) {
                const Extents extents = extents_of(data);
                const std::size_t axis =
                    flatten_axis(integer_attribute(node, "axis", 1), extents.size(), node);
                return reshaped(
                    data, {product(extents, 0, axis), product(extents, axis, extents.size())});
            });
        },
        1);
    table.add(
        "Squeeze",
        {"axes"},
        [](auto& context, const NodeDef& node) {
            const auto axes = attribute_or_input(context, node, "axes", 1, 13);
            define_moved(context, node, 0, [&](const auto& data) {
                return reshaped(data, squeezed(extents_of(data), axes, node));
            });
        },
        1);
    table.add(
        "Unsqueeze",
        {"axes"},
        [](auto& context, const NodeDef& node) {
            const Extents axes =
                required(attribute_or_input(context, node, "axes", 1, 13), node, "axes");
            define_moved(context, node, 0, [&](const auto& data) {
                return reshaped(data, unsqueezed(extents_of(data), axes, node));
            });
        },
        1);
}

// ---- Transpose, DepthToSpace, SpaceToDepth: axes reordered.

Order transpose_order(const NodeDef& node, std::size_t rank) {
    Order order;
    const auto perm = integers_attribute(node, "perm");
    if (!perm) {
        for (std::size_t axis = rank; axis-- > 0;) {
            order.push_back(axis);
        }
        return order;
    }
    std::vector<bool> seen(rank, false);
    for (std::int64_t given : *perm) {
        const std::size_t axis = axis_in(given, rank, node);
        if (seen[axis]) {
            break;
        }
        seen[axis] = true;
        order.push_back(axis);
    }
    if (order.size() != rank || perm->size() != rank) {
        contradiction(
            node,
            "perm " + listed(*perm) + " is not an order of " + std::to_string(rank) + " axes");
    }
    return order;
}

template <class Data>
Data depth_to_space(const Data& data,
                    std::int64_t block,
                    bool column_row_depth,
                    const NodeDef& node) {
    const Extents x = extents_of(data);
    if (x.size() != 4 || block <= 0 || x[1] % (block * block) != 0) {
        contradiction(node,
                      "blocksize " + std::to_string(block) + " does not divide the channels of " +
                          listed(x) + " (rank 4)");
    }
    const std::int64_t depth = x[1] / (block * block);
    const Extents split = column_row_depth ? Extents{x[0], depth, block, block, x[2], x[3]}
                                           : Extents{x[0], block, block, depth, x[2], x[3]};
    const Order order = column_row_depth ? Order{0, 1, 4, 2, 5, 3} : Order{0, 3, 4, 1, 5, 2};
    return reshaped(permuted(reshaped(data, split), order),
                    {x[0], depth, x[2] * block, x[3] * block});
}

template <class Data>
Data space_to_depth(const Data& data, std::int64_t block, const NodeDef& node) {
    const Extents x = extents_of(data);
    if (x.size() != 4 || block <= 0 || x[2] % block != 0 || x[3] % block != 0) {
        contradiction(node,
                      "blocksize " + std::to_string(block) +
                          " does not divide the height and width of " + listed(x) + " (rank 4)");
    }
    const Extents split{x[0], x[1], x[2] / block, block, x[3] / block, block};
    return reshaped(permuted(reshaped(data, split), {0, 3, 5, 1, 2, 4}),
                    {x[0], x[1] * block * block, x[2] / block, x[3] / block});
}

void add_reordering_rules(RuleTable& table) {
    table.add(
        "Transpose",
        {"perm"},
        [](auto& context, const NodeDef& node) {
            define_moved(context, node, 0, [&](const auto& data) {
                return permuted(data, transpose_order(node, extents_of(data).size()));
            });
        },
        1);
    table.add(
        "DepthToSpace",
        {"blocksize", "mode"},
        [](auto& context, const NodeDef& node) {
            const std::string mode = text_attribute(node, "mode", "DCR");
            if (mode != "DCR" && mode != "CRD") {
                contradiction(node, "mode " + mode + " is neither DCR nor CRD");
            }
            define_moved(context, node, 0, [&](const auto& data) {
                return depth_to_space(
                    data, integer_attribute(node, "blocksize", 0), mode == "CRD", node);
            });
        },
        1);
    table.add(
        "SpaceToDepth",
        {"blocksize"},
        [](auto& context, const NodeDef& node) {
            define_moved(context, node, 0, [&](const auto& data) {
                return space_to_depth(data, integer_attribute(node, "blocksize", 0), node);
            });
        },
        1);
}

// ---- Expand, Tile, Identity, Dropout.

template <Element T>
void record_tile(Context<T>& context, const NodeDef& node) {
    const Extents repeats = context.constant(node, 1).as_integers();
    define_moved(context, node, 0, [&](const auto& data) {
        if (repeats.size() != extents_of(data).size() ||
            std::any_of(repeats.begin(), repeats.end(), [](std::int64_t r) { return r < 0; })) {
            contradiction(node,
                          "repeats " + listed(repeats) + " do not fit " + listed(extents_of(data)));
        }
        auto result = data;
        for (std::size_t axis = 0; axis < repeats.size(); ++axis) {
            result = tiled(result, axis, repeats[axis]);
        }
        return result;
    });
}

// Dropout at inference copies its input; training mode (random) is refused.
template <Element T>
void record_dropout(Context<T>& context, const NodeDef& node) {
    if (context.opset() < 7 && integer_attribute(node, "is_test", 0) == 0) {
        not_handled("Dropout with is_test 0: training-mode dropout, which is random");
    }
    if (context.opset() >= 12 && Context<T>::has_input(node, 2)) {
        if (!context.is_constant(node.inputs[2])) {
            not_handled("a training_mode computed at run time (training-mode dropout is random)");
        }
        const auto training = context.constant(node, 2).as_integers();
        if (std::any_of(
                training.begin(), training.end(), [](std::int64_t on) { return on != 0; })) {
            not_handled("training_mode true: training-mode dropout, which is random");
        }
    }
    define_moved(context, node, 0, [](const auto& data) { return data; });
    if (node.outputs.size() < 2 || node.outputs[1].empty()) {
        return;  // no mask asked for
    }
    const Extents extents = input_extents(context, node, 0);
    const DataType mask_type =
        context.opset() < 10 ? context.type_of(node.inputs[0]) : DataType::Bool;
    context.define(node,
                   1,
                   Constant::of_reals(
                       mask_type,
                       extents,
                       std::vector<double>(
                           static_cast<std::size_t>(product(extents, 0, extents.size())), 1.0)));
}

void add_copying_rules(RuleTable& table) {
    table.add("Expand", {}, [](auto& context, const NodeDef& node) {
        const Extents shape = context.constant(node, 1).as_integers();
        define_moved(context, node, 0, [&](const auto& data) {
            return broadcast(data, broadcast_extents(extents_of(data), shape, node));
        });
    });
    table.add("Tile", {}, [](auto& context, const NodeDef& node) { record_tile(context, node); });
    table.add(
        "Identity",
        {},
        [](auto& context, const NodeDef& node) {
            define_moved(context, node, 0, [](const auto& data) { return data; });
        },
        1);
    table.add(
        "Dropout",
        {"is_test", "ratio", "seed"},
        [](auto& context, const NodeDef& node) { record_dropout(context, node); },
        1);
}

}  // namespace

void add_layout_rules(RuleTable& table) {
    add_reshaping_rules(table);
    add_reordering_rules(table);
    add_copying_rules(table);
}

}  // namespace topos::onnx::detail
