// The row type of the pattern catalog: everything topos knows about one
// pattern, written in one file under src/pattern/ and assembled by catalog.cpp
// in the order of <topos/pattern/patterns.def>. A row matches its structure at
// a root of the frozen spec, runs its fused kernel (which must give the
// interpreter's bits for every value it writes), and says whether and how an
// election of it is written as one named StableHLO operation.
#pragma once

#include "hlo/builder.hpp"
#include "pattern/match.hpp"
#include "pattern/structure.hpp"
#include <topos/core/tensor.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <vector>

namespace topos::detail {

// Runs a match's fused kernel: `inputs` in the match's input order, `results`
// in its result order, null where a result is not written.
template <Element T>
using FusedKernel = void (*)(const Match& match,
                             std::span<const T* const> inputs,
                             std::span<T* const> results);

// What raising reads of the network beyond the match.
struct RaiseContext {
    // The value every element of `node` holds, when it is a Leaf whose
    // elements all agree.
    std::function<std::optional<double>(std::uint32_t node)> uniform_leaf;
    // Whether the plan computes in float.
    bool single_precision = false;

    // `value` rounded to the plan's element type.
    double rounded(double value) const {
        return single_precision ? static_cast<double>(static_cast<float>(value)) : value;
    }
};

// The `raises` of a row whose every match is raised.
inline bool raises_every_match(const Match&, const RaiseContext&) {
    return true;
}

struct PatternRow {
    PatternKind kind{};
    // The structure rooted at `root`, if it is there. Null for a pattern the
    // plan grows instead (Map).
    std::optional<Match> (*match)(const SpecView& spec, std::uint32_t root) = nullptr;
    FusedKernel<float> kernel_f32 = nullptr;
    FusedKernel<double> kernel_f64 = nullptr;
    // A kernel over bf16 values that rounds each covered node's value where
    // the bf16 contract does (a map region's members, block by block); null
    // for the rows whose kernels keep interior values in float.
    FusedKernel<bf16> kernel_bf16 = nullptr;
    // For a row whose kernel keeps interior values in float: the float kernel
    // over a bf16 plan's widened inputs, each interior value rounded to bf16
    // (and kept in float) where the contract rounds its node's value, so that
    // its results, rounded once more as they are written, are the contract's.
    // Null where no such kernel exists; a bf16 plan then elects the row only
    // where every value inside its matches is exact in bf16 (lower.cpp).
    FusedKernel<float> kernel_bf16_in_float = nullptr;
    // Whether an election of the match is written as one named StableHLO
    // operation (raise); null: never, its members emit their own operations.
    bool (*raises)(const Match& match, const RaiseContext& context) = nullptr;
    // Emits the named operation at the match's root. Returns the values of the
    // match's results, in Match::results order.
    std::vector<HloValue> (*raise)(HloBuilder& build,
                                   const Match& match,
                                   const RaiseContext& context) = nullptr;
    // The match's inputs the named operation takes as operands (the others
    // become attributes or are implied); null: all of them.
    std::vector<std::uint32_t> (*raised_operands)(const Match& match) = nullptr;
    // Whether the kernel cuts its work among the pool's threads by itself, at
    // any size (a convolution and its gradients, by images or by channels), so
    // a plan runs no independent step beside it.
    bool splits_the_pool = false;
    // Whether its nodes are products a device backend runs itself under
    // Numerics::Fast (reading a transposed operand through its own flags): a
    // plan whose build holds a device leaves such a match unelected there.
    bool yields_to_a_device = false;

    template <Element T>
    FusedKernel<T> kernel() const {
        if constexpr (std::same_as<T, float>) {
            return kernel_f32;
        } else if constexpr (std::same_as<T, double>) {
            return kernel_f64;
        } else {
            return kernel_bf16;
        }
    }
};

}  // namespace topos::detail
