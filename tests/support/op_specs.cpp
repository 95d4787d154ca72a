// The table of opcode test specs (op_specs.hpp): one row per computed opcode,
// in opcode order, naming its domain, tolerance, record functions (by family in
// op_specs_*.cpp, declared in op_specs_records.hpp), rejection advice and, for
// the elementwise unary opcodes, what they compute.
#include "support/op_specs.hpp"

#include "support/op_specs_records.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace topos::test {
namespace {

using namespace records;

constexpr double default_tolerance = 1e-7;

constexpr const char* uniform_domain = "uniform in [-1, 1]: the operation is smooth everywhere";
constexpr const char* untied_domain =
    "b = a + s with |s| in [0.2, 1]: no ties, so no stencil "
    "point (2h = 2e-3) crosses the kink";

// The advice each rejection gives: enough of it to show it says how to fix the call.
constexpr const char* shapes_advice = "broadcast";
constexpr const char* arity_advice = "operands";
constexpr const char* axis_advice = "out of range";

// The spec of an elementwise unary opcode: one line of the table below.
template <Opcode op, Domain domain>
constexpr OpSpec unary_spec(UnaryReference reference) {
    return {op,
            describe(domain),
            default_tolerance,
            record_unary<op, domain>,
            invalid_unary<op>,
            arity_advice,
            reference};
}

// The C library's value in long double, which the kernel must match within the
// kernel reference test's tolerance.
constexpr UnaryReference libm(long double (*value)(long double)) {
    return {nullptr, value};
}

// The correctly rounded value, which the kernel must match bit for bit.
constexpr UnaryReference exact(double (*value)(double)) {
    return {value, nullptr};
}

const std::array specs{
    OpSpec{Opcode::Add,
           uniform_domain,
           default_tolerance,
           record_binary<Opcode::Add>,
           invalid_binary<Opcode::Add>,
           shapes_advice},
    OpSpec{Opcode::Sub,
           uniform_domain,
           default_tolerance,
           record_binary<Opcode::Sub>,
           invalid_binary<Opcode::Sub>,
           shapes_advice},
    OpSpec{Opcode::Mul,
           uniform_domain,
           default_tolerance,
           record_binary<Opcode::Mul>,
           invalid_binary<Opcode::Mul>,
           shapes_advice},
    OpSpec{Opcode::Div,
           "numerator in [-1, 1], denominator of magnitude in [0.5, 1.5]: away from the pole",
           default_tolerance,
           record_div,
           invalid_binary<Opcode::Div>,
           shapes_advice},
    OpSpec{Opcode::Maximum,
           untied_domain,
           default_tolerance,
           record_untied<Opcode::Maximum>,
           invalid_binary<Opcode::Maximum>,
           shapes_advice},
    OpSpec{Opcode::Minimum,
           untied_domain,
           default_tolerance,
           record_untied<Opcode::Minimum>,
           invalid_binary<Opcode::Minimum>,
           shapes_advice},
    OpSpec{Opcode::Pow,
           "base in [0.5, 2] (positive: the exponent's derivative takes log(base)), exponent "
           "in [-2, 2]",
           default_tolerance,
           record_pow,
           invalid_binary<Opcode::Pow>,
           shapes_advice},
    OpSpec{Opcode::Compare,
           "every direction on untied operands: away from the step, the derivative is 0",
           default_tolerance,
           record_compare,
           invalid_compare,
           shapes_advice},
    OpSpec{Opcode::Select,
           "a constant mask of 0, 1 and 2.5; branches uniform in [-1, 1]",
           default_tolerance,
           record_select,
           invalid_select,
           "broadcast them first"},
    // clang-format off
    unary_spec<Opcode::Neg, Domain::Unary>(exact([](double x) { return -x; })),
    unary_spec<Opcode::Abs, Domain::AwayFromZero>(exact([](double x) { return std::fabs(x); })),
    unary_spec<Opcode::Sign, Domain::AwayFromZero>(exact([](double x) { return x > 0 ? 1.0 : (x < 0 ? -1.0 : x); })),
    unary_spec<Opcode::Exp, Domain::Unary>(libm([](long double x) { return std::exp(x); })),
    unary_spec<Opcode::Expm1, Domain::Unary>(libm([](long double x) { return std::expm1(x); })),
    unary_spec<Opcode::Log, Domain::Positive>(libm([](long double x) { return std::log(x); })),
    unary_spec<Opcode::Log1p, Domain::AboveMinusOne>(libm([](long double x) { return std::log1p(x); })),
    unary_spec<Opcode::Sqrt, Domain::Positive>(exact([](double x) { return std::sqrt(x); })),
    unary_spec<Opcode::Rsqrt, Domain::Positive>(exact([](double x) { return 1.0 / std::sqrt(x); })),
    unary_spec<Opcode::Square, Domain::Unary>(exact([](double x) { return x * x; })),
    unary_spec<Opcode::Sin, Domain::Wide>(libm([](long double x) { return std::sin(x); })),
    unary_spec<Opcode::Cos, Domain::Wide>(libm([](long double x) { return std::cos(x); })),
    unary_spec<Opcode::Tanh, Domain::Unary>(libm([](long double x) { return std::tanh(x); })),
    unary_spec<Opcode::Sigmoid, Domain::Unary>(libm([](long double x) { return 1 / (1 + std::exp(-x)); })),
    unary_spec<Opcode::Erf, Domain::Unary>(libm([](long double x) { return std::erf(x); })),
    // x Phi(x) with Phi(x) = erfc(-x / sqrt 2) / 2: no cancellation for negative x.
    unary_spec<Opcode::Gelu, Domain::Wide>(libm([](long double x) { return x * std::erfc(-x / std::numbers::sqrt2_v<long double>) / 2; })),
    unary_spec<Opcode::Softplus, Domain::Wide>(libm([](long double x) { return std::log1p(std::exp(x)); })),
    unary_spec<Opcode::Silu, Domain::Wide>(libm([](long double x) { return x / (1 + std::exp(-x)); })),
    unary_spec<Opcode::Floor, Domain::OffIntegers>(exact([](double x) { return std::floor(x); })),
    unary_spec<Opcode::Hardtanh, Domain::OffIntegers>(exact([](double x) { return x < -1 ? -1.0 : (x > 1 ? 1.0 : x); })),
    // clang-format on
    OpSpec{Opcode::Convert,
           "uniform in [-2, 2], rounded to float: the rounding moves a value by at most half "
           "of float's unit in the last place, which central differences of step 1e-3 see as "
           "slope 1 within 1e-4",
           1e-4,
           record_convert,
           invalid_convert,
           "rounded_to"},
    OpSpec{Opcode::MatMul,
           "[..., m, k] x [..., k, n], extents 1 to 3, up to 2 batch axes, uniform in [-1, 1]",
           default_tolerance,
           record_matmul,
           invalid_matmul,
           "inner extents differ"},
    OpSpec{Opcode::Sum,
           "all axes or one; an axis of 15 to 20 crosses the 16 striped lanes",
           default_tolerance,
           record_sum,
           invalid_axis<Opcode::Sum>,
           axis_advice},
    OpSpec{Opcode::Max,
           "elements at least 0.25 apart: no ties along any axis, so no kink is crossed",
           default_tolerance,
           record_along_axis<Opcode::Max>,
           invalid_axis<Opcode::Max>,
           axis_advice},
    OpSpec{Opcode::LogSumExp,
           "uniform in [-2, 2] along one axis, sometimes longer than 16",
           default_tolerance,
           record_along_axis<Opcode::LogSumExp>,
           invalid_axis<Opcode::LogSumExp>,
           axis_advice},
    OpSpec{Opcode::LogSoftmax,
           "uniform in [-2, 2] along one axis, sometimes longer than 16",
           default_tolerance,
           record_along_axis<Opcode::LogSoftmax>,
           invalid_axis<Opcode::LogSoftmax>,
           axis_advice},
    OpSpec{Opcode::Reshape,
           "any refactorisation of the element count, rank 0 to 4",
           default_tolerance,
           record_reshape,
           invalid_reshape,
           "keep the element count"},
    OpSpec{Opcode::Permute,
           "a random permutation of rank 1 to 4",
           default_tolerance,
           record_permute,
           invalid_permute,
           "exactly once"},
    OpSpec{Opcode::BroadcastAlong,
           "any axis position 0 to rank, extent 1 to 3",
           default_tolerance,
           record_broadcast_along,
           invalid_broadcast_along,
           axis_advice},
    OpSpec{Opcode::Unfold,
           "extent 1 to 6, any valid size, step 1 to 3, dilation 1 or 2",
           default_tolerance,
           record_unfold,
           invalid_unfold,
           "smaller window"},
    OpSpec{Opcode::Fold,
           "the window axes of a random valid unfold",
           default_tolerance,
           record_fold,
           invalid_fold,
           "unfold's own attributes"},
    OpSpec{Opcode::Narrow,
           "any start and a length of at least 1",
           default_tolerance,
           record_narrow,
           invalid_narrow,
           "do not fit"},
    OpSpec{Opcode::Pad,
           "0 to 2 zeros before, after and between elements",
           default_tolerance,
           record_pad_interior,
           invalid_pad,
           axis_advice},
    OpSpec{Opcode::Slice,
           "any start, step 1 to 3, a length of at least 1",
           default_tolerance,
           record_slice,
           invalid_slice,
           "do not fit"},
    OpSpec{Opcode::Concat,
           "two operands that differ along the joined axis only",
           default_tolerance,
           record_concat,
           invalid_concat,
           "agree on every axis"},
    OpSpec{Opcode::Gather,
           "a table of 1 to 4 rows, indices of rank 0 to 2 with repeats",
           default_tolerance,
           record_gather,
           invalid_gather,
           "row axis"},
    OpSpec{Opcode::ScatterAdd,
           "indices of rank 0 to 2 with repeats into 1 to 4 rows",
           default_tolerance,
           record_scatter_add,
           invalid_scatter_add,
           "must start with the indices' shape"},
    OpSpec{Opcode::OneHot,
           "indices of rank 0 to 2 below a depth of 1 to 4: nothing to differentiate",
           default_tolerance,
           record_one_hot,
           invalid_one_hot,
           "tape.indices"},
};

}  // namespace

std::span<const OpSpec> op_specs() {
    return specs;
}

const OpSpec* find_op_spec(Opcode opcode) {
    const auto found = std::ranges::find(specs, opcode, &OpSpec::opcode);
    return found == specs.end() ? nullptr : &*found;
}

double bf16_tolerance(Opcode opcode) {
    switch (opcode) {
        // gelu'(x) = Phi(x) + x phi(x): for negative x its two terms, each
        // rounded to bf16, nearly cancel.
        case Opcode::Gelu:
            return 1.0 / 32;
        // Four of bf16's units in the last place: the output, the adjoint and
        // each product along the derivative round once.
        default:
            return 1.0 / 64;
    }
}

std::vector<Opcode> computed_opcodes() {
    std::vector<Opcode> opcodes;
    for (std::size_t i = 0; i < opcode_count; ++i) {
        if (!is_source(static_cast<Opcode>(i))) {
            opcodes.push_back(static_cast<Opcode>(i));
        }
    }
    return opcodes;
}

std::string opcode_name(const ::testing::TestParamInfo<Opcode>& info) {
    return std::string(name_of(info.param));
}

}  // namespace topos::test
