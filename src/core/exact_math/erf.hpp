// Exact math, erf and the erfc kernel (which gelu also uses): erf(u) = u (1 + q(u^2)) below 0.75;
// above, erfc(u) = exp(-u^2) R(u) with R = exp(u^2) erfc(u) smooth, fitted piecewise on [0.75, 2],
// [2, 3] and (as u R(u) in 1/u^2) [3, 28], and exp(-u^2) from the exp pair kernel with u^2 as an
// exact pair. erf is odd and is +/-1 from 6 on.
#pragma once

#include "core/exact_math/basics.hpp"
#include "core/exact_math/exp.hpp"

namespace topos::exact {

namespace detail {

// erf(u) = u (1 + q(u^2)) on u^2 <= 0.5626; relative error of 1 + q below 2^-56.3.
inline constexpr std::array<double, 11> erf_poly{0x1.06eba8214db69p-3,
                                                 -0x1.812746b0379ffp-2,
                                                 0x1.ce2f21a0436dap-4,
                                                 -0x1.b82ce312a5b6dp-6,
                                                 0x1.565bcd0f1b1cbp-8,
                                                 -0x1.c02db33cb0b04p-11,
                                                 0x1.f9a2ec61bec7fp-14,
                                                 -0x1.f4ca333afa288p-17,
                                                 0x1.b93f4b377f9e7p-20,
                                                 -0x1.577f9fc8795d1p-23,
                                                 0x1.9095c8f85a8cbp-27};

// exp(u^2) erfc(u) = p(u - centre) on [0.75, 2] (centre 1.375) and [2, 3] (centre 2.5), and
// u exp(u^2) erfc(u) = p(1/u^2 - centre) on [3, 28]; the constant terms are pairs (c[0] + lo).
// Relative errors below 2^-59.1, 2^-60.2 and 2^-59.7.
inline constexpr double erfc_near_centre = 0x1.6p+0;
inline constexpr double erfc_near_lo = -0x1.b67db268d2e1dp-57;
inline constexpr std::array<double, 19> erfc_near_poly{0x1.5f88f52f3c76bp-2,
                                                       -0x1.797a639d8129dp-3,
                                                       0x1.701342cbcea78p-4,
                                                       -0x1.4bcdb9d9083cep-5,
                                                       0x1.17eba60d322d3p-6,
                                                       -0x1.bdf24bccb06d3p-8,
                                                       0x1.51ab9ffcc0e1ap-9,
                                                       -0x1.e8ae68afb0a15p-11,
                                                       0x1.535f580c8da2bp-12,
                                                       -0x1.c5fa6cfc296f1p-14,
                                                       0x1.254ecefcef43dp-15,
                                                       -0x1.6f05b2863ff8dp-17,
                                                       0x1.bdb7d2825f081p-19,
                                                       -0x1.0735fe63872ffp-20,
                                                       0x1.2e9b077d7b89ep-22,
                                                       -0x1.5109e7cfbee58p-24,
                                                       0x1.734c4e40dfe56p-26,
                                                       -0x1.c1682a575f891p-28,
                                                       0x1.c422b79536b31p-30};
inline constexpr double erfc_mid_centre = 0x1.4p+1;
inline constexpr double erfc_mid_lo = -0x1.a66ec42e7de2bp-58;
inline constexpr std::array<double, 16> erfc_mid_poly{0x1.afbb3f3b7343bp-3,
                                                      -0x1.3086d7f01ac85p-4,
                                                      0x1.98958a7a8e4b1p-6,
                                                      -0x1.0632076809e61p-7,
                                                      0x1.435c04e2057b1p-9,
                                                      -0x1.809ce8ab459d9p-11,
                                                      0x1.ba8a67d465665p-13,
                                                      -0x1.edd423a80a503p-15,
                                                      0x1.0bcba0d4a7195p-16,
                                                      -0x1.1ad108e44ffe2p-18,
                                                      0x1.235128ba37d7ep-20,
                                                      -0x1.25168071a0924p-22,
                                                      0x1.2000ae3e2dfb6p-24,
                                                      -0x1.155b25db7309dp-26,
                                                      0x1.14741443613d2p-28,
                                                      -0x1.0146221f25f38p-30};
inline constexpr double erfc_far_centre = 0x1.cc55e9f0e8331p-5;
inline constexpr double erfc_far_lo = 0x1.e147115f9d9cdp-57;
inline constexpr std::array<double, 19> erfc_far_poly{0x1.195a2612cbb84p-1,
                                                      -0x1.f0bb4a910f7f3p-3,
                                                      0x1.2da110c4050fcp-2,
                                                      -0x1.1a8f03981c8a1p-1,
                                                      0x1.5987713ef16f9p+0,
                                                      -0x1.fd9521dd37612p+1,
                                                      0x1.b0f3870241ad3p+3,
                                                      -0x1.9b8ccb28e1f5cp+5,
                                                      0x1.ace1e75752be2p+7,
                                                      -0x1.e2d52fe75bb63p+9,
                                                      0x1.2254c40cc088ap+12,
                                                      -0x1.70d52ea113498p+14,
                                                      0x1.ed059621645a3p+16,
                                                      -0x1.6743288acfc52p+19,
                                                      0x1.0ac36aa77f31dp+22,
                                                      -0x1.0ed334dac59a9p+24,
                                                      0x1.6f61a20768560p+26,
                                                      -0x1.e9ca34bbc4ea2p+30,
                                                      0x1.b629265c6328fp+33};

inline constexpr double two_over_sqrt_pi_hi = 0x1.20dd750429b6dp+0;
inline constexpr double two_over_sqrt_pi_lo = 0x1.1ae3a914fed8p-56;

// ---- erf and erfc.

// erf(u) = u (1 + q(u^2)) as a pair, for 0 <= u < 0.75 and z = u^2 as a pair.
inline Pair erf_small(double u, Pair z) {
    const double q = horner(z.hi, erf_poly) + z.lo * erf_poly[1];
    const Pair p = two_prod(u, q);
    const Pair s = two_sum(u, p.hi);
    return fast_two_sum(s.hi, s.lo + p.lo);
}

// erfc(u + u_lo) = 2^k (hi + lo) for 0.75 <= u <= 28, |u_lo| <= 2^-52 u, z = (u + u_lo)^2 as a
// pair: exp(-z) times the smooth factor exp(u^2) erfc(u) from the piecewise polynomials.
inline Scaled erfc_kernel(double u, double u_lo, Pair z) {
    Pair r{};  // exp(u^2) erfc(u)
    if (u < 3.0) {
        const bool near = u < 2.0;
        const double h = u - (near ? erfc_near_centre : erfc_mid_centre);  // exact
        r = near ? horner_pair(h, erfc_near_poly, erfc_near_lo)
                 : horner_pair(h, erfc_mid_poly, erfc_mid_lo);
    } else {
        const double h = 1.0 / z.hi - erfc_far_centre;
        const Pair g = horner_pair(h, erfc_far_poly, erfc_far_lo);  // u r
        r.hi = g.hi / u;
        r.lo = (std::fma(-r.hi, u, g.hi) + g.lo) / u;
    }
    // First order in u_lo, with r' = 2 u r - 2 / sqrt(pi).
    r.lo += u_lo * (2.0 * u * r.hi - two_over_sqrt_pi_hi);
    const Scaled e = exp_kernel(-z.hi, -z.lo);
    const Pair p = mul({e.hi, e.lo}, r);
    return {p.hi, p.lo, e.k};
}

}  // namespace detail

// erf: a polynomial below 0.75, 1 - erfc above, 1 from 6 on (erfc(6) < 2^-55).
inline double erf(double x) {
    if (detail::is_nan(x)) {
        return detail::quiet_nan;
    }
    const double u = detail::magnitude(x);
    if (u < 0x1p-28) {
        return std::fma(x, detail::two_over_sqrt_pi_hi, x * detail::two_over_sqrt_pi_lo);
    }
    double r = 1.0;
    if (u < 0.75) {
        const detail::Pair e = detail::erf_small(u, detail::two_prod(u, u));
        r = e.hi + e.lo;
    } else if (u < 6.0) {
        const detail::Scaled c = detail::erfc_kernel(u, 0.0, detail::two_prod(u, u));
        const double s = detail::pow2(c.k);
        const detail::Pair d = detail::two_sum(1.0, -c.hi * s);
        r = d.hi + (d.lo - c.lo * s);
    }
    return detail::negate_if(detail::sign_bit(x), r);
}

// Float: the double version rounded once (nearly always correctly rounded).
inline float erf(float x) {
    return static_cast<float>(exact::erf(static_cast<double>(x)));
}

}  // namespace topos::exact
