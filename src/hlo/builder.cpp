// HloBuilder: one StableHLO operation per call, each with the result type the
// StableHLO specification infers, its generic attributes and its pretty syntax.
#include "hlo/builder.hpp"

#include "core/divide_rounding_up.hpp"
#include "hlo/literals.hpp"
#include <topos/core/error.hpp>

#include <algorithm>

namespace topos::detail {
namespace {

std::string_view comparison_name(HloComparison direction) {
    switch (direction) {
        case HloComparison::EQ:
            return "EQ";
        case HloComparison::NE:
            return "NE";
        case HloComparison::LT:
            return "LT";
        case HloComparison::LE:
            return "LE";
        case HloComparison::GT:
            return "GT";
        case HloComparison::GE:
            return "GE";
    }
    return {};
}

// The same value on every axis but `axis`, which gets `value`.
std::vector<std::size_t> along(std::size_t rank,
                               std::size_t axis,
                               std::size_t value,
                               std::size_t elsewhere) {
    std::vector<std::size_t> values(rank, elsewhere);
    values[axis] = value;
    return values;
}

std::vector<std::size_t> extents_of(const Shape& shape) {
    return {shape.extents().begin(), shape.extents().end()};
}

std::vector<std::size_t> counting(std::size_t from, std::size_t to) {
    std::vector<std::size_t> values;
    for (std::size_t i = from; i < to; ++i) {
        values.push_back(i);
    }
    return values;
}

HloOperation operation(std::string_view name,
                       std::vector<HloValue> operands,
                       PrettySyntax::Kind kind,
                       std::string before = {},
                       std::string after = {}) {
    HloOperation op;
    op.name = name;
    op.operands = std::move(operands);
    op.pretty = {kind, std::move(before), std::move(after)};
    return op;
}

}  // namespace

void HloBuilder::begin(const HloSite& site) {
    site_ = site;
    widened_.clear();
    made_.clear();
    made_inside_.clear();
    made_together_.clear();
    widen_operands();
}

HloValue HloBuilder::operand(std::size_t i) const {
    const HloValue value = node_values_[site_.operands[i]];
    for (const auto& [stored, widened] : widened_) {
        if (stored == value) {
            return widened;
        }
    }
    return value;
}

void HloBuilder::widen_operands() {
    for (std::size_t i = 0; i < site_.operands.size(); ++i) {
        const HloValue value = node_values_[site_.operands[i]];
        const bool reads_indices = ((site_.index_operands >> i) & 1U) != 0;
        if (reads_indices || module_.type_of(value).element != HloElement::Stored ||
            operand(i) != value) {
            continue;
        }
        widened_.emplace_back(value, convert(value, HloElement::Real));
    }
}

HloValue HloBuilder::finish(HloValue result) {
    if (std::find(made_.begin(), made_.end(), result) == made_.end()) {
        fail("the lowering returned a value it did not make");
    }
    const HloType& type = module_.type_of(result);
    const bool stored = type.element == HloElement::Stored;
    if (!(type.shape == site_.shape) || !(type.element == HloElement::Real || stored)) {
        fail("the lowering made " + module_.type_text(type) + " for a node of shape " +
             site_.shape.str());
    }
    if (!stored && !module_.stored_type.empty()) {
        result = convert(result, HloElement::Stored);
    }
    const std::string name = 'v' + std::to_string(site_.node);
    std::size_t intermediate = 0;
    for (HloValue value : made_) {
        module_.names[value.id] =
            value == result ? name : name + '_' + std::to_string(intermediate++);
        for (const std::vector<HloValue>& together : made_together_) {
            if (together.front() == value) {
                const std::string base = module_.names[value.id];
                for (std::size_t i = 0; i < together.size(); ++i) {
                    module_.names[together[i].id] = base + '#' + std::to_string(i);
                }
            }
        }
    }
    for (HloValue value : made_inside_) {
        module_.names[value.id] = name + '_' + std::to_string(intermediate++);
    }
    return result;
}

void HloBuilder::fail(const std::string& problem) const {
    throw EmitError("cannot emit node " + std::to_string(site_.node) + " (" +
                    std::string(site_.label) + ") as StableHLO: " + problem);
}

HloValue HloBuilder::append(HloOperation op, HloType result) {
    const HloValue value = module_.add_value(std::move(result));
    made_.push_back(value);
    op.results = {value};
    module_.main.operations.push_back(std::move(op));
    return value;
}

// The first result stands for the operation in made_; finish() names the
// others after it.
std::vector<HloValue> HloBuilder::append_results(HloOperation op,
                                                 const std::vector<HloType>& results) {
    for (const HloType& type : results) {
        op.results.push_back(module_.add_value(type));
    }
    made_.push_back(op.results.front());
    made_together_.push_back(op.results);
    module_.main.operations.push_back(op);
    return op.results;
}

HloValue HloBuilder::unary(std::string_view name, HloValue a) {
    return append(operation(name, {a}, PrettySyntax::Kind::SameType), module_.type_of(a));
}

HloValue HloBuilder::binary(std::string_view name, HloValue a, HloValue b) {
    return append(operation(name, {a, b}, PrettySyntax::Kind::SameType), module_.type_of(a));
}

HloValue HloBuilder::splat(double value, const Shape& shape) {
    const std::string literal =
        module_.real_type == "f32" ? real_literal(static_cast<float>(value)) : real_literal(value);
    return constant(literal, shape);
}

HloValue HloBuilder::constant(const std::string& literal, const Shape& shape, HloElement element) {
    const HloType type{shape, element};
    const std::string dense = "dense<" + literal + '>';
    HloOperation op = operation("stablehlo.constant", {}, PrettySyntax::Kind::ResultOnly, dense);
    op.attributes.push_back({"value", dense + " : " + module_.type_text(type)});
    return append(std::move(op), type);
}

HloValue HloBuilder::compare(HloComparison direction, HloValue a, HloValue b) {
    const std::string name(comparison_name(direction));
    HloOperation op = operation(
        "stablehlo.compare", {a, b}, PrettySyntax::Kind::Functional, name + ',', ", FLOAT");
    op.attributes.push_back(
        {"comparison_direction", "#stablehlo<comparison_direction " + name + '>'});
    op.attributes.push_back({"compare_type", "#stablehlo<comparison_type FLOAT>"});
    return append(std::move(op), {shape(a), HloElement::Bool});
}

HloValue HloBuilder::select(HloValue predicate, HloValue on_true, HloValue on_false) {
    return append(
        operation("stablehlo.select", {predicate, on_true, on_false}, PrettySyntax::Kind::Select),
        module_.type_of(on_true));
}

HloValue HloBuilder::convert(HloValue a, HloElement element) {
    return append(operation("stablehlo.convert", {a}, PrettySyntax::Kind::Functional),
                  {shape(a), element});
}

HloValue HloBuilder::is_finite(HloValue a) {
    return append(operation("stablehlo.is_finite", {a}, PrettySyntax::Kind::Functional),
                  {shape(a), HloElement::Bool});
}

HloValue HloBuilder::iota(const Shape& shape, std::size_t axis) {
    HloOperation op = operation(
        "stablehlo.iota", {}, PrettySyntax::Kind::ResultOnly, "dim = " + std::to_string(axis));
    op.attributes.push_back({"iota_dimension", std::to_string(axis) + " : i64"});
    return append(std::move(op), {shape, HloElement::Real});
}

HloValue HloBuilder::reshape(HloValue a, const Shape& shape) {
    return append(operation("stablehlo.reshape", {a}, PrettySyntax::Kind::Functional),
                  {shape, module_.type_of(a).element});
}

HloValue HloBuilder::transpose(HloValue a, std::span<const std::size_t> order) {
    const std::vector<std::size_t> permutation(order.begin(), order.end());
    std::vector<std::size_t> extents;
    extents.reserve(permutation.size());
    for (std::size_t axis : permutation) {
        extents.push_back(shape(a)[axis]);
    }
    HloOperation op = operation("stablehlo.transpose",
                                {a},
                                PrettySyntax::Kind::Functional,
                                {},
                                ", dims = " + bracketed(permutation));
    op.attributes.push_back({"permutation", i64_array(permutation)});
    return append(std::move(op), {Shape(extents), module_.type_of(a).element});
}

HloValue HloBuilder::broadcast_in_dim(HloValue a,
                                      const Shape& shape,
                                      const std::vector<std::size_t>& dims) {
    HloOperation op = operation("stablehlo.broadcast_in_dim",
                                {a},
                                PrettySyntax::Kind::Functional,
                                {},
                                ", dims = " + bracketed(dims));
    op.attributes.push_back({"broadcast_dimensions", i64_array(dims)});
    return append(std::move(op), {shape, module_.type_of(a).element});
}

HloValue HloBuilder::slice(
    HloValue a, std::size_t axis, std::size_t start, std::size_t limit, std::size_t stride) {
    const Shape& input = shape(a);
    const std::vector<std::size_t> starts = along(input.rank(), axis, start, 0);
    std::vector<std::size_t> limits = extents_of(input);
    limits[axis] = limit;
    const std::vector<std::size_t> strides = along(input.rank(), axis, stride, 1);
    std::string ranges;
    for (std::size_t i = 0; i < input.rank(); ++i) {
        ranges += (i == 0 ? "" : ", ") + std::to_string(starts[i]) + ':' +
                  std::to_string(limits[i]) +
                  (strides[i] == 1 ? "" : ':' + std::to_string(strides[i]));
    }
    HloOperation op =
        operation("stablehlo.slice", {a}, PrettySyntax::Kind::Functional, {}, " [" + ranges + ']');
    op.attributes.push_back({"start_indices", i64_array(starts)});
    op.attributes.push_back({"limit_indices", i64_array(limits)});
    op.attributes.push_back({"strides", i64_array(strides)});
    const std::size_t extent = limit > start ? divide_rounding_up(limit - start, stride) : 0;
    return append(std::move(op), {input.with_extent(axis, extent), module_.type_of(a).element});
}

HloValue HloBuilder::pad(
    HloValue a, std::size_t axis, std::size_t low, std::size_t high, std::size_t interior) {
    const HloValue zero = splat(0.0, Shape{});
    const Shape& input = shape(a);
    const std::vector<std::size_t> lows = along(input.rank(), axis, low, 0);
    const std::vector<std::size_t> highs = along(input.rank(), axis, high, 0);
    const std::vector<std::size_t> interiors = along(input.rank(), axis, interior, 0);
    HloOperation op = operation("stablehlo.pad",
                                {a, zero},
                                PrettySyntax::Kind::Functional,
                                {},
                                ", low = " + bracketed(lows) + ", high = " + bracketed(highs) +
                                    ", interior = " + bracketed(interiors));
    op.attributes.push_back({"edge_padding_low", i64_array(lows)});
    op.attributes.push_back({"edge_padding_high", i64_array(highs)});
    op.attributes.push_back({"interior_padding", i64_array(interiors)});
    const std::size_t n = input[axis];
    const std::size_t extent = low + high + n + (n > 0 ? (n - 1) * interior : 0);
    return append(std::move(op), {input.with_extent(axis, extent), module_.type_of(a).element});
}

HloValue HloBuilder::concatenate(const std::vector<HloValue>& parts, std::size_t axis) {
    std::size_t extent = 0;
    for (HloValue part : parts) {
        extent += shape(part)[axis];
    }
    HloOperation op = operation("stablehlo.concatenate",
                                parts,
                                PrettySyntax::Kind::Functional,
                                {},
                                ", dim = " + std::to_string(axis));
    op.attributes.push_back({"dimension", std::to_string(axis) + " : i64"});
    const HloType& first = module_.type_of(parts.front());
    return append(std::move(op), {first.shape.with_extent(axis, extent), first.element});
}

HloValue HloBuilder::dot_general(HloValue lhs, HloValue rhs, const DotDimensions& dimensions) {
    // Result axes: the batching axes, then the lhs's free axes, then the rhs's.
    std::vector<std::size_t> extents;
    for (std::size_t axis : dimensions.lhs_batching) {
        extents.push_back(shape(lhs)[axis]);
    }
    const auto free_axes = [&](HloValue operand,
                               const std::vector<std::size_t>& batching,
                               const std::vector<std::size_t>& contracting) {
        for (std::size_t axis = 0; axis < shape(operand).rank(); ++axis) {
            const auto used = [axis](const std::vector<std::size_t>& list) {
                return std::find(list.begin(), list.end(), axis) != list.end();
            };
            if (!used(batching) && !used(contracting)) {
                extents.push_back(shape(operand)[axis]);
            }
        }
    };
    free_axes(lhs, dimensions.lhs_batching, dimensions.lhs_contracting);
    free_axes(rhs, dimensions.rhs_batching, dimensions.rhs_contracting);
    std::string pretty;
    std::string numbers;
    if (!dimensions.lhs_batching.empty()) {
        pretty += ", batching_dims = " + bracketed(dimensions.lhs_batching) + " x " +
                  bracketed(dimensions.rhs_batching);
        numbers += "lhs_batching_dimensions = " + bracketed(dimensions.lhs_batching) +
                   ", rhs_batching_dimensions = " + bracketed(dimensions.rhs_batching) + ", ";
    }
    pretty += ", contracting_dims = " + bracketed(dimensions.lhs_contracting) + " x " +
              bracketed(dimensions.rhs_contracting) + ", precision = [HIGHEST, HIGHEST]";
    numbers += "lhs_contracting_dimensions = " + bracketed(dimensions.lhs_contracting) +
               ", rhs_contracting_dimensions = " + bracketed(dimensions.rhs_contracting);
    HloOperation op =
        operation("stablehlo.dot_general", {lhs, rhs}, PrettySyntax::Kind::Functional, {}, pretty);
    op.attributes.push_back({"dot_dimension_numbers", "#stablehlo.dot<" + numbers + '>'});
    op.attributes.push_back(
        {"precision_config", "[#stablehlo<precision HIGHEST>, #stablehlo<precision HIGHEST>]"});
    return append(std::move(op), {Shape(extents), HloElement::Real});
}

HloBlock HloBuilder::binary_body(std::string_view body) {
    const HloType scalar{Shape{}, HloElement::Real};
    HloBlock block;
    block.arguments = {module_.add_value(scalar), module_.add_value(scalar)};
    made_inside_.insert(made_inside_.end(), block.arguments.begin(), block.arguments.end());
    HloOperation combine = operation(body, block.arguments, PrettySyntax::Kind::SameType);
    const HloValue combined = module_.add_value(scalar);
    combine.results = {combined};
    made_inside_.push_back(combined);
    HloOperation done = operation("stablehlo.return", {combined}, PrettySyntax::Kind::SameType);
    block.operations = {std::move(combine), std::move(done)};
    return block;
}

HloValue HloBuilder::reduce(HloValue a,
                            double init,
                            std::string_view body,
                            const std::vector<std::size_t>& dims) {
    const HloValue start = splat(init, Shape{});
    std::vector<std::size_t> kept;
    for (std::size_t axis = 0; axis < shape(a).rank(); ++axis) {
        if (std::find(dims.begin(), dims.end(), axis) == dims.end()) {
            kept.push_back(shape(a)[axis]);
        }
    }
    HloOperation op =
        operation("stablehlo.reduce",
                  {a, start},
                  PrettySyntax::Kind::ReduceApplies,
                  {},
                  "applies " + std::string(body) + " across dimensions = " + bracketed(dims));
    op.regions.push_back(binary_body(body));
    op.attributes.push_back({"dimensions", i64_array(dims)});
    return append(std::move(op), {Shape(kept), HloElement::Real});
}

HloValue HloBuilder::gather_rows(HloValue table, HloValue indices) {
    const Shape& rows = shape(table);
    if (rows.rank() == 0 || rows[0] == 0) {
        fail("stablehlo.gather slices one row of the table at a time, and this table has none");
    }
    const std::size_t picks = shape(indices).rank();
    std::vector<std::size_t> sizes = extents_of(rows);
    sizes[0] = 1;
    std::vector<std::size_t> extents = extents_of(shape(indices));
    extents.insert(extents.end(), sizes.begin() + 1, sizes.end());
    HloOperation op = operation("stablehlo.gather", {table, indices}, PrettySyntax::Kind::Generic);
    op.attributes.push_back(
        {"dimension_numbers",
         "#stablehlo.gather<offset_dims = " + bracketed(counting(picks, picks + rows.rank() - 1)) +
             ", collapsed_slice_dims = [0], start_index_map = [0], "
             "index_vector_dim = " +
             std::to_string(picks) + '>'});
    op.attributes.push_back({"slice_sizes", i64_array(sizes)});
    op.attributes.push_back({"indices_are_sorted", "false"});
    return append(std::move(op), {Shape(extents), HloElement::Real});
}

HloValue HloBuilder::scatter_add_rows(HloValue target, HloValue indices, HloValue updates) {
    const Shape& rows = shape(target);
    if (rows.rank() == 0 || rows[0] == 0) {
        fail("stablehlo.scatter adds one row of the target at a time, and this target has none");
    }
    const std::size_t picks = shape(indices).rank();
    HloOperation op =
        operation("stablehlo.scatter", {target, indices, updates}, PrettySyntax::Kind::Generic);
    op.regions.push_back(binary_body("stablehlo.add"));
    op.attributes.push_back({"scatter_dimension_numbers",
                             "#stablehlo.scatter<update_window_dims = " +
                                 bracketed(counting(picks, picks + rows.rank() - 1)) +
                                 ", inserted_window_dims = [0], scatter_dims_to_operand_dims = "
                                 "[0], index_vector_dim = " +
                                 std::to_string(picks) + '>'});
    op.attributes.push_back({"indices_are_sorted", "false"});
    op.attributes.push_back({"unique_indices", "false"});
    return append(std::move(op), module_.type_of(target));
}

}  // namespace topos::detail
