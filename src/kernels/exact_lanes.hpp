// The exact exp, tanh, sigmoid, erf, gelu, log and softplus of
// core/exact_math, written once over vector lanes of doubles: the same
// operations in the same order as the scalar functions (+, -, *, /, fma,
// comparisons and bit operations, each exactly rounded per lane), so every
// lane gets the scalar function's bits. A branch of the scalar code becomes a
// blend: every lane computes the common path (on a harmless stand-in where it
// does not take it), then the special cases are selected in. Where a lane
// needs a path the lanes do not compute (an exp whose scaling by 2^k takes two
// steps), the whole vector is left to the scalar code.
//
// `L` is a lane set (transcendental_avx2.cpp, transcendental_avx512.cpp):
//   L::V, L::M                       the lanes, a mask of lanes
//   L::splat(c); add sub mul div fma; xor_bits; magnitude; sign_of
//   lt le gt ge eq unordered -> M; both either -> M; all any -> bool; select(m, a, b)
//   pow2(k): 2^k for whole k in [-1022, 1023]
//   pick(piece, row): row[piece] in each lane, piece a whole double in [0, 3]
//   exponent_field(v): the biased exponent of v >= 0, a whole double
//   unit_mantissa(v): v's mantissa bits under the exponent of 1, in [1, 2)
//   low_bits_outside(v, mask, start, w): whether (bits of v & mask) - start, unsigned, >= 2^w
//     (the float shortcut's test of a lane's rounding to float)
// This header is included where the target of L is pushed, and only there.
#pragma once

#include "core/exact_math.hpp"

#include <array>
#include <cstddef>

// Every function here is inlined into the loop that calls it: a vector, or a
// struct of vectors, passed by value between functions whose target is pushed
// may be passed as if the file's default target held (g++ 12 then drops the
// upper halves of a struct of one 256-bit vector).
#define TOPOS_LANES_INLINE [[gnu::always_inline]] inline

namespace topos::detail::lanes {

namespace scalar = topos::exact::detail;

template <class L>
struct Pair {
    typename L::V hi;
    typename L::V lo;
};

template <class L>
TOPOS_LANES_INLINE typename L::V constant(double c) {
    return L::splat(c);
}

template <class L>
TOPOS_LANES_INLINE Pair<L> two_sum(typename L::V a, typename L::V b) {
    const auto s = L::add(a, b);
    const auto b_part = L::sub(s, a);
    return {s, L::add(L::sub(a, L::sub(s, b_part)), L::sub(b, b_part))};
}

template <class L>
TOPOS_LANES_INLINE Pair<L> fast_two_sum(typename L::V a, typename L::V b) {
    const auto s = L::add(a, b);
    return {s, L::sub(b, L::sub(s, a))};
}

template <class L>
TOPOS_LANES_INLINE Pair<L> two_prod(typename L::V a, typename L::V b) {
    const auto p = L::mul(a, b);
    return {p, L::fma(a, b, L::negate(p))};
}

template <class L>
TOPOS_LANES_INLINE typename L::V divide(Pair<L> n, Pair<L> d) {
    const auto q = L::div(n.hi, d.hi);
    const auto remainder = L::add(L::fma(L::negate(q), d.hi, n.hi), L::sub(n.lo, L::mul(q, d.lo)));
    return L::add(q, L::div(remainder, d.hi));
}

// scalar::horner: sum_{i >= first} c[i] x^(i - first).
template <class L, std::size_t N>
TOPOS_LANES_INLINE typename L::V horner(typename L::V x,
                                        const std::array<double, N>& c,
                                        std::size_t first = 0) {
    auto acc = constant<L>(c[N - 1]);
    for (std::size_t i = N - 1; i > first; --i) {
        acc = L::fma(acc, x, constant<L>(c[i - 1]));
    }
    return acc;
}

// scalar::mul: the product of two pairs, the product of the low parts dropped.
template <class L>
TOPOS_LANES_INLINE Pair<L> mul(Pair<L> a, Pair<L> b) {
    Pair<L> p = two_prod<L>(a.hi, b.hi);
    p.lo = L::add(p.lo, L::add(L::mul(a.hi, b.lo), L::mul(a.lo, b.hi)));
    return p;
}

template <class L>
TOPOS_LANES_INLINE typename L::V round_to_integer(typename L::V v) {
    const auto shifter = constant<L>(0x1.8p52);
    return L::sub(L::add(v, shifter), shifter);
}

template <class L>
struct Ln2Reduction {
    typename L::V r;
    typename L::V r_lo;
    typename L::V k;  // a whole number
};

// scalar::reduce_ln2: x + x_lo = k ln2 + r + r_lo.
template <class L>
TOPOS_LANES_INLINE Ln2Reduction<L> reduce_ln2(typename L::V x, typename L::V x_lo) {
    const auto k = round_to_integer<L>(L::mul(x, constant<L>(scalar::inv_ln2)));
    const auto a = L::sub(x, L::mul(k, constant<L>(scalar::ln2_hi)));
    const Pair<L> r = two_sum<L>(a, L::sub(x_lo, L::mul(k, constant<L>(scalar::ln2_lo))));
    return {r.hi, r.lo, k};
}

template <class L>
TOPOS_LANES_INLINE Pair<L> expm1_kernel(typename L::V r, typename L::V r_lo) {
    const auto half = constant<L>(0.5);
    const Pair<L> r2 = two_prod<L>(r, r);
    const Pair<L> s = two_sum<L>(r, L::mul(half, r2.hi));
    const auto tail = L::add(L::add(L::add(s.lo, L::mul(half, r2.lo)), L::fma(r_lo, r, r_lo)),
                             L::mul(L::mul(r, r2.hi), horner<L>(r, scalar::expm1_poly)));
    return fast_two_sum<L>(s.hi, tail);
}

template <class L>
struct Scaled {
    typename L::V hi;
    typename L::V lo;
    typename L::V k;
};

template <class L>
TOPOS_LANES_INLINE Scaled<L> exp_kernel(typename L::V x, typename L::V x_lo) {
    const Ln2Reduction<L> red = reduce_ln2<L>(x, x_lo);
    const Pair<L> m = expm1_kernel<L>(red.r, red.r_lo);
    const Pair<L> y = two_sum<L>(constant<L>(1.0), m.hi);
    return {y.hi, L::add(y.lo, m.lo), red.k};
}

// scalar::exp_pair, for |x| <= 45.
template <class L>
TOPOS_LANES_INLINE Pair<L> exp_pair(typename L::V x) {
    const Scaled<L> e = exp_kernel<L>(x, constant<L>(0.0));
    const Pair<L> y = fast_two_sum<L>(e.hi, e.lo);
    const auto s = L::pow2(e.k);
    return {L::mul(y.hi, s), L::mul(y.lo, s)};
}

// scalar::expm1_pair, for 0 <= x <= 45 (so 0 <= k <= 65: the k < -53 branch is not needed).
template <class L>
TOPOS_LANES_INLINE Pair<L> expm1_pair_of_nonnegative(typename L::V x) {
    const Ln2Reduction<L> red = reduce_ln2<L>(x, constant<L>(0.0));
    const Pair<L> m = expm1_kernel<L>(red.r, red.r_lo);
    const auto s = L::pow2(red.k);
    const auto beyond = L::gt(red.k, constant<L>(53.0));
    const auto a = L::select(beyond, s, L::sub(s, constant<L>(1.0)));
    const auto a_lo = L::select(beyond, constant<L>(-1.0), constant<L>(0.0));
    const Pair<L> sum = two_sum<L>(a, L::mul(s, m.hi));
    const Pair<L> e = fast_two_sum<L>(sum.hi, L::add(sum.lo, L::add(L::mul(s, m.lo), a_lo)));
    const auto k_zero = L::eq(red.k, constant<L>(0.0));
    return {L::select(k_zero, m.hi, e.hi), L::select(k_zero, m.lo, e.lo)};
}

// exact::tanh, lane by lane.
template <class L>
TOPOS_LANES_INLINE typename L::V tanh(typename L::V x) {
    const auto ax = L::magnitude(x);
    const auto common = L::lt(ax, constant<L>(22.0));
    const auto t = L::select(common, ax, constant<L>(1.0));
    const Pair<L> e = expm1_pair_of_nonnegative<L>(L::mul(constant<L>(2.0), t));
    const Pair<L> d = two_sum<L>(e.hi, constant<L>(2.0));
    const auto quotient = divide<L>(e, {d.hi, L::add(d.lo, e.lo)});
    auto r = L::select(common, quotient, constant<L>(1.0));
    r = L::xor_bits(r, L::sign_of(x));
    r = L::select(L::lt(ax, constant<L>(0x1p-27)), x, r);
    return L::select(L::unordered(x), constant<L>(scalar::quiet_nan), r);
}

// Whether lanes' exp of x is the single scaling of scalar exact::exp (and of
// the x < -40 branch of sigmoid): -708 <= x <= 709, where 2^k is one double.
template <class L>
TOPOS_LANES_INLINE typename L::M exp_scales_once(typename L::V x) {
    return L::both(L::ge(x, constant<L>(-708.0)), L::le(x, constant<L>(709.0)));
}

// exact::exp for lanes where exp_scales_once or the result is a special case
// (NaN, overflow above 709.79, underflow below -745.2); other lanes give
// garbage, and callers leave vectors holding them to the scalar code.
template <class L>
TOPOS_LANES_INLINE typename L::V exp(typename L::V x) {
    const auto once = exp_scales_once<L>(x);
    const Scaled<L> e = exp_kernel<L>(L::select(once, x, constant<L>(0.0)), constant<L>(0.0));
    auto r = L::mul(L::add(e.hi, e.lo), L::pow2(e.k));
    r = L::select(L::gt(x, constant<L>(709.79)), constant<L>(scalar::infinity), r);
    r = L::select(L::lt(x, constant<L>(-745.2)), constant<L>(0.0), r);
    return L::select(L::unordered(x), constant<L>(scalar::quiet_nan), r);
}

// Whether exp covers every lane of x.
template <class L>
TOPOS_LANES_INLINE bool exp_covers(typename L::V x) {
    const auto special = L::either(L::either(L::unordered(x), L::gt(x, constant<L>(709.79))),
                                   L::lt(x, constant<L>(-745.2)));
    return L::all(L::either(exp_scales_once<L>(x), special));
}

// exact::sigmoid, lane by lane, for lanes where sigmoid_covers holds.
template <class L>
TOPOS_LANES_INLINE typename L::V sigmoid(typename L::V x) {
    const auto forty = constant<L>(40.0);
    const auto common = L::le(L::magnitude(x), forty);
    const auto t = L::select(common, x, constant<L>(0.0));
    const Pair<L> e = exp_pair<L>(L::negate(L::magnitude(t)));
    const Pair<L> d = two_sum<L>(constant<L>(1.0), e.hi);
    const Pair<L> denominator{d.hi, L::add(d.lo, e.lo)};
    // 1 / (1 + e) where t >= 0, e / (1 + e) where not: one division of the
    // numerator each lane takes.
    const auto nonnegative = L::ge(t, constant<L>(0.0));
    const Pair<L> numerator{L::select(nonnegative, constant<L>(1.0), e.hi),
                            L::select(nonnegative, constant<L>(0.0), e.lo)};
    auto r = divide<L>(numerator, denominator);
    r = L::select(L::gt(x, forty), constant<L>(1.0), r);
    const auto far_below = L::lt(x, L::negate(forty));
    if (L::any(far_below)) {  // rare, and a second exp
        r = L::select(far_below, exp<L>(x), r);
    }
    return L::select(L::unordered(x), constant<L>(scalar::quiet_nan), r);
}

// Whether sigmoid covers every lane of x: its x < -40 branch is exp's.
template <class L>
TOPOS_LANES_INLINE bool sigmoid_covers(typename L::V x) {
    return exp_covers<L>(x);
}

// scalar::erf_small: erf(u) = u (1 + q(u^2)) as a pair, z = u^2 as a pair.
template <class L>
TOPOS_LANES_INLINE Pair<L> erf_small(typename L::V u, Pair<L> z) {
    const auto q =
        L::add(horner<L>(z.hi, scalar::erf_poly), L::mul(z.lo, constant<L>(scalar::erf_poly[1])));
    const Pair<L> p = two_prod<L>(u, q);
    const Pair<L> s = two_sum<L>(u, p.hi);
    return fast_two_sum<L>(s.hi, L::add(s.lo, p.lo));
}

// The three pieces of scalar::erfc_kernel's exp(u^2) erfc(u) (near, mid,
// far, and a fourth unused), each coefficient a row of four that a lane picks
// from by its piece. Mid's 16 coefficients are padded with zeros at the top:
// Horner's first steps then give +0 and then exactly its top coefficient, so
// every lane takes its own piece's operations.
inline constexpr std::size_t erfc_terms = scalar::erfc_near_poly.size();
static_assert(scalar::erfc_far_poly.size() == erfc_terms &&
              scalar::erfc_mid_poly.size() <= erfc_terms);

using PieceRow = std::array<double, 4>;

consteval std::array<PieceRow, erfc_terms> erfc_piece_coefficients() {
    std::array<PieceRow, erfc_terms> rows{};
    for (std::size_t i = 0; i < erfc_terms; ++i) {
        const double mid = i < scalar::erfc_mid_poly.size() ? scalar::erfc_mid_poly[i] : 0.0;
        rows[i] = {scalar::erfc_near_poly[i], mid, scalar::erfc_far_poly[i], 0.0};
    }
    return rows;
}

inline constexpr std::array<PieceRow, erfc_terms> erfc_pieces = erfc_piece_coefficients();
inline constexpr PieceRow erfc_piece_lows{
    scalar::erfc_near_lo, scalar::erfc_mid_lo, scalar::erfc_far_lo, 0.0};
inline constexpr PieceRow erfc_piece_centres{
    scalar::erfc_near_centre, scalar::erfc_mid_centre, scalar::erfc_far_centre, 0.0};

// scalar::horner_pair, c[0] + c0_lo + x (c[1] + x (c[2] + ...)) as a pair,
// with each lane's coefficients picked from rows by its piece.
template <class L, std::size_t N>
TOPOS_LANES_INLINE Pair<L> horner_pair_of_pieces(typename L::V x,
                                                 typename L::V piece,
                                                 const std::array<PieceRow, N>& rows,
                                                 const PieceRow& c0_lo) {
    auto acc = L::pick(piece, rows[N - 1]);
    for (std::size_t i = N - 1; i > 2; --i) {
        acc = L::fma(acc, x, L::pick(piece, rows[i - 1]));
    }
    const Pair<L> inner = two_sum<L>(L::pick(piece, rows[1]), L::mul(x, acc));
    Pair<L> p = two_prod<L>(x, inner.hi);
    p.lo = L::add(p.lo, L::mul(x, inner.lo));
    const Pair<L> sum = two_sum<L>(L::pick(piece, rows[0]), p.hi);
    return fast_two_sum<L>(sum.hi, L::add(sum.lo, L::add(p.lo, L::pick(piece, c0_lo))));
}

// scalar::erfc_kernel for lanes with 0.75 <= u <= 28 (others take a stand-in):
// erfc(u + u_lo) = 2^k (hi + lo). One polynomial evaluation serves the three
// pieces of exp(u^2) erfc(u), each lane with its piece's coefficients and
// argument (u - centre, or 1/u^2 - centre from 3 on, where u r comes out).
template <class L>
TOPOS_LANES_INLINE Scaled<L> erfc_kernel(typename L::V u, typename L::V u_lo, Pair<L> z) {
    const auto far = L::ge(u, constant<L>(3.0));
    const auto piece = L::select(L::lt(u, constant<L>(2.0)),
                                 constant<L>(0.0),
                                 L::select(far, constant<L>(2.0), constant<L>(1.0)));
    const bool some_far = L::any(far);
    auto argument = u;
    if (some_far) {
        argument = L::select(far, L::div(constant<L>(1.0), z.hi), u);
    }
    const auto h = L::sub(argument, L::pick(piece, erfc_piece_centres));  // exact below 3
    Pair<L> r = horner_pair_of_pieces<L>(h, piece, erfc_pieces, erfc_piece_lows);
    if (some_far) {
        const auto hi = L::div(r.hi, u);
        const auto lo = L::div(L::add(L::fma(L::negate(hi), u, r.hi), r.lo), u);
        r = {L::select(far, hi, r.hi), L::select(far, lo, r.lo)};
    }
    const auto slope =
        L::sub(L::mul(L::mul(constant<L>(2.0), u), r.hi), constant<L>(scalar::two_over_sqrt_pi_hi));
    r.lo = L::add(r.lo, L::mul(u_lo, slope));
    const Scaled<L> e = exp_kernel<L>(L::negate(z.hi), L::negate(z.lo));
    const Pair<L> p = mul<L>({e.hi, e.lo}, r);
    return {p.hi, p.lo, e.k};
}

// exact::erf, lane by lane.
template <class L>
TOPOS_LANES_INLINE typename L::V erf(typename L::V x) {
    const auto u = L::magnitude(x);
    const auto small = L::lt(u, constant<L>(0.75));
    const auto middle = L::both(L::ge(u, constant<L>(0.75)), L::lt(u, constant<L>(6.0)));
    auto r = constant<L>(1.0);
    if (L::any(small)) {
        const auto v = L::select(small, u, constant<L>(0.5));
        const Pair<L> e = erf_small<L>(v, two_prod<L>(v, v));
        r = L::select(small, L::add(e.hi, e.lo), r);
    }
    if (L::any(middle)) {
        const auto v = L::select(middle, u, constant<L>(1.0));
        const Scaled<L> c = erfc_kernel<L>(v, constant<L>(0.0), two_prod<L>(v, v));
        const auto s = L::pow2(c.k);
        const Pair<L> d = two_sum<L>(constant<L>(1.0), L::mul(L::negate(c.hi), s));
        r = L::select(middle, L::add(d.hi, L::sub(d.lo, L::mul(c.lo, s))), r);
    }
    r = L::xor_bits(r, L::sign_of(x));
    const auto tiny = L::fma(x,
                             constant<L>(scalar::two_over_sqrt_pi_hi),
                             L::mul(x, constant<L>(scalar::two_over_sqrt_pi_lo)));
    r = L::select(L::lt(u, constant<L>(0x1p-28)), tiny, r);
    return L::select(L::unordered(x), constant<L>(scalar::quiet_nan), r);
}

// exact::gelu, lane by lane, for lanes where gelu_covers holds.
template <class L>
TOPOS_LANES_INLINE typename L::V gelu(typename L::V x) {
    const auto half = constant<L>(0.5);
    const auto ax = L::magnitude(x);
    const auto inside = L::le(ax, constant<L>(40.0));
    const auto t = L::select(inside, x, constant<L>(1.0));
    const Pair<L> x2 = two_prod<L>(t, t);
    const Pair<L> z{L::mul(half, x2.hi), L::mul(half, x2.lo)};
    const auto polynomial = L::lt(z.hi, constant<L>(0.5625));
    auto r = constant<L>(0.0);
    if (L::any(polynomial)) {
        const auto q = L::add(horner<L>(z.hi, scalar::erf_poly),
                              L::mul(z.lo, constant<L>(scalar::erf_poly[1])));
        const Pair<L> one_q = two_sum<L>(constant<L>(1.0), q);
        const Pair<L> root_half{constant<L>(scalar::inv_sqrt2_hi),
                                constant<L>(scalar::inv_sqrt2_lo)};
        const Pair<L> product = mul<L>(mul<L>(z, root_half), one_q);
        const Pair<L> s = two_sum<L>(L::mul(half, t), product.hi);
        r = L::select(polynomial, L::add(s.hi, L::add(s.lo, product.lo)), r);
    }
    const auto tails = L::both(inside, L::ge(z.hi, constant<L>(0.5625)));
    if (L::any(tails)) {
        // Lanes on the polynomial take a stand-in beyond it (2).
        const auto w = L::select(tails, t, constant<L>(2.0));
        const Pair<L> w2 = two_prod<L>(w, w);
        const Pair<L> zw{L::mul(half, w2.hi), L::mul(half, w2.lo)};
        const auto aw = L::magnitude(w);
        const auto u = L::mul(aw, constant<L>(scalar::inv_sqrt2_hi));
        const auto u_lo = L::add(L::fma(aw, constant<L>(scalar::inv_sqrt2_hi), L::negate(u)),
                                 L::mul(aw, constant<L>(scalar::inv_sqrt2_lo)));
        const Scaled<L> c = erfc_kernel<L>(u, u_lo, zw);
        // x < 0: x erfc(u) / 2, scaled by 2^k (in one step for the lanes covered).
        const auto below = L::mul(L::mul(half, L::fma(w, c.hi, L::mul(w, c.lo))), L::pow2(c.k));
        // x > 0: x (1 - erfc(u) / 2), or x itself when 2^k is below 2^-60.
        const auto scale = L::pow2(L::sub(c.k, constant<L>(1.0)));
        const Pair<L> d = two_sum<L>(constant<L>(1.0), L::mul(L::negate(c.hi), scale));
        auto above = L::fma(w, d.hi, L::mul(w, L::sub(d.lo, L::mul(c.lo, scale))));
        above = L::select(L::lt(c.k, constant<L>(-60.0)), w, above);
        r = L::select(tails, L::select(L::lt(w, constant<L>(0.0)), below, above), r);
    }
    r = L::select(L::lt(ax, constant<L>(0x1p-60)), L::mul(half, x), r);
    r = L::select(L::gt(x, constant<L>(40.0)), x, r);
    r = L::select(L::lt(x, constant<L>(-40.0)), constant<L>(-0.0), r);
    return L::select(L::unordered(x), constant<L>(scalar::quiet_nan), r);
}

// Whether gelu covers every lane of x: below -37 the scaling of x erfc(u) / 2
// by 2^k can take two steps, which the scalar code does.
template <class L>
TOPOS_LANES_INLINE bool gelu_covers(typename L::V x) {
    return L::all(L::either(L::unordered(x),
                            L::either(L::ge(x, constant<L>(-37.0)), L::lt(x, constant<L>(-40.0)))));
}

template <class L>
struct LogArgument {
    typename L::V e;  // a whole number
    typename L::V m;
};

// scalar::split_log_argument: positive finite x as 2^e m, m in [sqrt(1/2), sqrt(2)).
template <class L>
TOPOS_LANES_INLINE LogArgument<L> split_log_argument(typename L::V x) {
    const auto subnormal = L::lt(x, constant<L>(0x1p-1022));
    const auto v = L::select(subnormal, L::mul(x, constant<L>(0x1p54)), x);
    const auto e = L::add(L::select(subnormal, constant<L>(-54.0), constant<L>(0.0)),
                          L::sub(L::exponent_field(v), constant<L>(1023.0)));
    const auto m = L::unit_mantissa(v);
    const auto above = L::ge(m, constant<L>(scalar::sqrt2));
    return {L::select(above, L::add(e, constant<L>(1.0)), e),
            L::select(above, L::mul(m, constant<L>(0.5)), m)};
}

// scalar::log_kernel: log(2^e (1 + f + f_lo)) as a pair.
template <class L>
TOPOS_LANES_INLINE Pair<L> log_kernel(typename L::V e, typename L::V f, typename L::V f_lo) {
    const auto zero = constant<L>(0.0);
    Pair<L> d = two_sum<L>(constant<L>(2.0), f);
    d.lo = L::add(d.lo, f_lo);
    const auto s = L::div(f, d.hi);
    const auto s_lo =
        L::div(L::sub(L::add(L::fma(L::negate(s), d.hi, f), f_lo), L::mul(s, d.lo)), d.hi);
    const Pair<L> z = two_prod<L>(s, s);
    const Pair<L> s3 = mul<L>({s, zero}, z);
    const Pair<L> s5 = mul<L>(s3, z);
    const Pair<L> t3 =
        mul<L>(s3, {constant<L>(scalar::two_thirds_hi), constant<L>(scalar::two_thirds_lo)});
    const Pair<L> t5 = mul<L>(s5, {constant<L>(scalar::log_poly[0]), zero});
    const Pair<L> sum1 =
        two_sum<L>(L::mul(e, constant<L>(scalar::ln2_hi)), L::mul(constant<L>(2.0), s));
    const Pair<L> sum3 = two_sum<L>(sum1.hi, t3.hi);
    const Pair<L> sum5 = two_sum<L>(sum3.hi, t5.hi);
    const auto one = constant<L>(1.0);
    const auto slope = L::mul(constant<L>(2.0), L::add(one, L::mul(z.hi, L::add(one, z.hi))));
    auto tail = L::add(sum1.lo, sum3.lo);
    tail = L::add(tail, sum5.lo);
    tail = L::add(tail, t3.lo);
    tail = L::add(tail, t5.lo);
    tail = L::add(tail, L::mul(e, constant<L>(scalar::ln2_lo)));
    tail = L::add(tail, L::mul(s_lo, slope));
    tail = L::add(tail, L::mul(L::mul(s5.hi, z.hi), horner<L>(z.hi, scalar::log_poly, 1)));
    return two_sum<L>(sum5.hi, tail);
}

// exact::log, lane by lane.
template <class L>
TOPOS_LANES_INLINE typename L::V log(typename L::V x) {
    const auto zero = constant<L>(0.0);
    const auto infinity = constant<L>(scalar::infinity);
    const auto positive_finite = L::both(L::gt(x, zero), L::lt(x, infinity));
    const LogArgument<L> a = split_log_argument<L>(L::select(positive_finite, x, constant<L>(1.0)));
    const Pair<L> p = log_kernel<L>(a.e, L::sub(a.m, constant<L>(1.0)), zero);
    auto r = L::add(p.hi, p.lo);
    r = L::select(L::eq(x, zero), L::negate(infinity), r);
    r = L::select(L::eq(x, infinity), infinity, r);
    return L::select(L::either(L::unordered(x), L::lt(x, zero)), constant<L>(scalar::quiet_nan), r);
}

// scalar::log1p_kernel for 0 < a <= 1: log_kernel's argument is a itself
// near 0, else 1 + a split as a log argument. (Both are computed: a vector
// assigned under a branch costs g++ more than the few operations saved.)
template <class L>
TOPOS_LANES_INLINE Pair<L> log1p_kernel_of_fraction(typename L::V a, typename L::V a_lo) {
    const auto near = L::both(L::gt(a, constant<L>(-0.2928)), L::lt(a, constant<L>(0.4142)));
    const Pair<L> u = two_sum<L>(constant<L>(1.0), a);
    const LogArgument<L> arg = split_log_argument<L>(u.hi);
    const auto e = L::select(near, constant<L>(0.0), arg.e);
    const auto f = L::select(near, a, L::sub(arg.m, constant<L>(1.0)));
    const auto f_lo = L::select(near, a_lo, L::mul(arg.m, L::div(L::add(u.lo, a_lo), u.hi)));
    return log_kernel<L>(e, f, f_lo);
}

// exact::softplus, lane by lane, for lanes where softplus_covers holds. One
// exp kernel serves both of its exps: exp_pair(-|x|) for |x| <= 40 and exp(x)
// below -40 (a second exp under a branch would cost more than it saves).
template <class L>
TOPOS_LANES_INLINE typename L::V softplus(typename L::V x) {
    const auto zero = constant<L>(0.0);
    const auto forty = constant<L>(40.0);
    const auto ax = L::magnitude(x);
    const auto common = L::le(ax, forty);
    const auto t = L::select(common, x, zero);
    const auto w = L::select(common, L::negate(ax), L::select(exp_scales_once<L>(x), x, zero));
    const Scaled<L> k = exp_kernel<L>(w, zero);
    const auto scale = L::pow2(k.k);
    const Pair<L> y = fast_two_sum<L>(k.hi, k.lo);
    const Pair<L> e{L::mul(y.hi, scale), L::mul(y.lo, scale)};  // exp_pair(-|x|)
    const Pair<L> l = log1p_kernel_of_fraction<L>(e.hi, e.lo);
    const Pair<L> s = two_sum<L>(t, l.hi);
    const auto above = L::add(s.hi, L::add(s.lo, l.lo));
    auto r = L::select(L::le(t, zero), L::add(l.hi, l.lo), above);
    r = L::select(L::gt(x, forty), x, r);
    r = L::select(L::lt(x, L::negate(forty)), L::mul(L::add(k.hi, k.lo), scale), r);  // exp(x)
    r = L::select(L::lt(x, constant<L>(-745.2)), zero, r);
    return L::select(L::unordered(x), constant<L>(scalar::quiet_nan), r);
}

// Whether softplus covers every lane of x: below -40 it is exp(x), whose
// scaling by 2^k takes two steps in [-745.2, -708).
template <class L>
TOPOS_LANES_INLINE bool softplus_covers(typename L::V x) {
    const auto outside = L::either(L::ge(x, constant<L>(-708.0)), L::lt(x, constant<L>(-745.2)));
    return L::all(L::either(L::unordered(x), outside));
}

}  // namespace topos::detail::lanes
