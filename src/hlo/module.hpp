// The module an emission builds before it prints: values (a name and a tensor
// type each), operations (name, operands, their results, attributes, regions) and the @main
// function's results. Both printers read this one structure, so the pretty and the generic form are
// the same module by construction. Attributes are kept in their generic-form spelling; an operation
// also says how the pretty form spells it (PrettySyntax).
#pragma once

#include <topos/core/shape.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace topos::detail {

// Element kinds: the type the plan computes in (f32 or f64), the type it
// stores values in where that differs (bf16, widened to f32 for every
// operation and rounded back after it), i1 for masks, i64 for indices
// StableHLO needs as integers, and the real types a Convert rounds through
// whatever the plan's own.
enum class HloElement : std::uint8_t {
    Real,
    Stored,
    Bool,
    Integer,
    F32,
    F64,
    BF16,
};

struct HloType {
    Shape shape;
    HloElement element = HloElement::Real;
};

// An SSA value of the module: an index into its value table.
struct HloValue {
    std::uint32_t id = 0;
    friend bool operator==(const HloValue&, const HloValue&) = default;
};

struct HloAttribute {
    std::string name;
    std::string value;  // MLIR attribute syntax, e.g. `array<i64: 1, 0>`
};

// How the pretty form writes an operation (the generic form never reads it):
//   Generic        the generic syntax (for ops with intricate custom syntax)
//   SameType       `name before operands after : type`           (add, negate)
//   Functional     `name before operands after : (types) -> type` (reshape, slice)
//   Select         `name operands : predicate type, result type`
//   ResultOnly     `name before : type`                           (constant, iota)
//   ReduceApplies  `name(operand init: init) after : (types) -> type`
struct PrettySyntax {
    enum class Kind : std::uint8_t {
        Generic,
        SameType,
        Functional,
        Select,
        ResultOnly,
        ReduceApplies,
    };
    Kind kind = Kind::Generic;
    std::string before;
    std::string after;  // written right after the operands: it carries its own separator
};

struct HloBlock;

struct HloOperation {
    std::string name;  // `stablehlo.add`
    std::vector<HloValue> operands;
    // None, one, or several (`%v29:3 = ...`, used as `%v29#0`, `%v29#1`, ...).
    std::vector<HloValue> results;
    std::vector<HloAttribute> attributes;
    std::vector<HloBlock> regions;  // one block each
    PrettySyntax pretty;
};

struct HloBlock {
    std::vector<HloValue> arguments;
    std::vector<HloOperation> operations;
};

struct HloModule {
    std::string real_type;           // `f32` or `f64`
    std::string stored_type;         // `bf16`, or empty where values are stored as computed
    std::vector<std::string> names;  // by value id, without the `%`
    std::vector<HloType> types;      // by value id
    HloBlock main;                   // @main's arguments and operations
    std::vector<HloValue> results;   // what @main returns, in order

    HloValue add_value(HloType type, std::string name = {});

    const HloType& type_of(HloValue value) const { return types[value.id]; }

    // `tensor<2x3xf32>`, `tensor<f64>`, `tensor<4xi1>`.
    std::string type_text(const HloType& type) const;

    std::string type_text(HloValue value) const { return type_text(type_of(value)); }

    std::string name_of(HloValue value) const { return '%' + names[value.id]; }
};

// The module in MLIR's pretty form: custom StableHLO syntax where StableHLO has
// one that this emitter uses, the generic syntax elsewhere (gather, scatter).
std::string print_pretty(const HloModule& module);

// The module in MLIR's generic operation form (attribute dictionaries, no
// properties syntax), which MLIR 16 parses with --allow-unregistered-dialect.
std::string print_generic(const HloModule& module);

// `[1, 0]` and `array<i64: 1, 0>` (`array<i64>` when empty).
std::string bracketed(const std::vector<std::size_t>& values);
std::string i64_array(const std::vector<std::size_t>& values);

}  // namespace topos::detail
