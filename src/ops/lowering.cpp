// StableHLO compositions the op rows share (see lowering.hpp).
//
// erf follows src/core/exact_math/erf.hpp piece by piece, in plain arithmetic of the
// plan's type: erf(x) = x + x q(x^2) for |x| < 0.75; above, erfc(u) = exp(-u^2)
// R(u) with R the fit of exp(u^2) erfc(u) on [0.75, 2) and [2, 3) (polynomials
// in u - centre) and on [3, 28] (u R(u) a polynomial in 1/u^2 - centre). Each
// piece is computed everywhere and the right one selected, so no branch is
// needed; u is clamped from below so unused pieces stay finite.
//
// Every operation is its own statement: the order of a call's arguments is
// unspecified in C++, and the emitted text must not depend on the compiler.
#include "ops/lowering.hpp"

#include "core/exact_math.hpp"

#include <array>
#include <limits>

namespace topos::detail {
namespace {

constexpr double small_erf_bound = 0.75;
constexpr double near_tail_bound = 2.0;
constexpr double mid_tail_bound = 3.0;

template <std::size_t N>
HloValue horner(HloBuilder& build, HloValue x, const std::array<double, N>& c) {
    const Shape& shape = build.shape(x);
    HloValue acc = build.splat(c[N - 1], shape);
    for (std::size_t i = N - 1; i > 0; --i) {
        const HloValue scaled = build.multiply(acc, x);
        acc = build.add(scaled, build.splat(c[i - 1], shape));
    }
    return acc;
}

HloValue less_than(HloBuilder& build, HloValue x, double bound) {
    return build.compare(HloComparison::LT, x, build.splat(bound, build.shape(x)));
}

// x + x q(x^2): erf(x) for |x| < 0.75, keeping the sign of zero.
HloValue erf_small(HloBuilder& build, HloValue x) {
    const HloValue q = horner(build, build.multiply(x, x), exact::detail::erf_poly);
    return build.add(x, build.multiply(x, q));
}

// erfc(u) for u >= 0.75 (u is clamped to 0.75 from below).
HloValue erfc_tail(HloBuilder& build, HloValue magnitude) {
    const Shape& shape = build.shape(magnitude);
    const HloValue u =
        build.binary("stablehlo.maximum", magnitude, build.splat(small_erf_bound, shape));
    const HloValue square = build.multiply(u, u);
    const HloValue near =
        horner(build,
               build.subtract(u, build.splat(exact::detail::erfc_near_centre, shape)),
               exact::detail::erfc_near_poly);
    const HloValue mid =
        horner(build,
               build.subtract(u, build.splat(exact::detail::erfc_mid_centre, shape)),
               exact::detail::erfc_mid_poly);
    const HloValue inverse_square =
        build.binary("stablehlo.divide", build.splat(1.0, shape), square);
    const HloValue far = build.binary(
        "stablehlo.divide",
        horner(build,
               build.subtract(inverse_square, build.splat(exact::detail::erfc_far_centre, shape)),
               exact::detail::erfc_far_poly),
        u);
    const HloValue beyond_near = less_than(build, u, mid_tail_bound);
    const HloValue mid_or_far = build.select(beyond_near, mid, far);
    const HloValue near_piece = less_than(build, u, near_tail_bound);
    const HloValue smooth = build.select(near_piece, near, mid_or_far);
    return build.multiply(
        build.unary("stablehlo.exponential", build.unary("stablehlo.negate", square)), smooth);
}

}  // namespace

std::vector<std::size_t> axes_except(std::size_t rank, std::size_t axis) {
    std::vector<std::size_t> axes;
    for (std::size_t i = 0; i < rank; ++i) {
        if (i != axis) {
            axes.push_back(i);
        }
    }
    return axes;
}

HloValue log_sum_exp(HloBuilder& build, HloValue x, std::size_t axis) {
    const Shape& shape = build.shape(x);
    const HloValue top =
        build.reduce(x, -std::numeric_limits<double>::infinity(), "stablehlo.maximum", {axis});
    const HloValue spread = build.broadcast_in_dim(top, shape, axes_except(shape.rank(), axis));
    const HloValue terms = build.unary("stablehlo.exponential", build.subtract(x, spread));
    const HloValue total = build.reduce(terms, -0.0, "stablehlo.add", {axis});
    const HloValue stable = build.add(top, build.unary("stablehlo.log", total));
    return build.select(build.is_finite(top), stable, top);
}

HloValue erf(HloBuilder& build, HloValue x) {
    const Shape shape = build.shape(x);
    const HloValue u = build.unary("stablehlo.abs", x);
    const HloValue one = build.splat(1.0, shape);
    const HloValue complement = build.subtract(one, erfc_tail(build, u));
    const HloValue negative = less_than(build, x, 0.0);
    const HloValue flipped = build.unary("stablehlo.negate", complement);
    const HloValue large = build.select(negative, flipped, complement);
    const HloValue small = erf_small(build, x);
    return build.select(less_than(build, u, small_erf_bound), small, large);
}

HloValue erfc(HloBuilder& build, HloValue x) {
    const Shape shape = build.shape(x);
    const HloValue u = build.unary("stablehlo.abs", x);
    const HloValue tail = erfc_tail(build, u);
    const HloValue negative = less_than(build, x, 0.0);
    const HloValue two = build.splat(2.0, shape);
    const HloValue reflected = build.subtract(two, tail);
    const HloValue large = build.select(negative, reflected, tail);
    const HloValue one = build.splat(1.0, shape);
    const HloValue small = build.subtract(one, erf_small(build, x));
    return build.select(less_than(build, u, small_erf_bound), small, large);
}

}  // namespace topos::detail
