#!/usr/bin/env python3
"""Fits and prints the polynomials of src/kernels/float_shortcut.hpp.

Needs Python 3 and mpmath (pip's or Debian's python3-mpmath). Each polynomial
is mpmath's Chebyshev fit, its coefficients rounded to doubles; the script
measures the rounded polynomial's largest relative error on 20,001 points of
its interval and prints it beside the coefficients. The float functions'
shortcut needs about 2^-44 in all, so each fit is chosen a few bits better.
"""
import textwrap

import mpmath as mp

mp.mp.dps = 50


def fit(name, f, a, b, terms, centre, comment):
    g = lambda h: f(h + centre)
    c, _ = mp.chebyfit(g, [a - centre, b - centre], terms, error=True)
    doubles = [float(v) for v in reversed(c)]  # constant term first
    worst = mp.mpf(0)
    for i in range(20001):
        h = mp.mpf(a - centre) + (mp.mpf(b) - a) * i / 20000
        p = mp.mpf(0)
        for coefficient in reversed(doubles):
            p = p * h + coefficient
        worst = max(worst, abs(p - g(h)) / abs(g(h)))
    print("\n".join(textwrap.wrap(comment, 96, initial_indent="// ", subsequent_indent="// ")))
    print(f"// Relative error of the rounded coefficients: 2^{float(mp.log(worst, 2)):.1f}.")
    print(f"inline constexpr std::array<double, {terms}> {name}{{")
    print(",\n".join(f"    {v.hex()}" for v in doubles) + "};")
    print()


sqrt2 = mp.sqrt(2)
half_ln2 = mp.log(2) / 2
fit("exp_poly", mp.exp, -half_ln2 - mp.mpf(2) ** -20, half_ln2 + mp.mpf(2) ** -20, 10, 0,
    "exp(r) on |r| <= ln2 / 2.")
small_u = mp.mpf(1.5) / sqrt2
fit("erf_poly", lambda z: mp.erf(mp.sqrt(z)) / mp.sqrt(z) if z > 0 else 2 / mp.sqrt(mp.pi),
    0, small_u ** 2, 11, 0,
    "erf(u) / u as a polynomial in z = u^2, u <= 1.5 / sqrt 2.")
R = lambda u: mp.exp(u * u) * mp.erfc(u)
t_low, t_high = 3 / (3 + mp.mpf(10.61)), 3 / (3 + small_u)
t_centre = float((t_low + t_high) / 2)
print(f"inline constexpr double erfc_centre = {t_centre.hex()};")
print()
fit("erfc_poly", lambda t: R(3 / t - 3), t_low, t_high, 16, t_centre,
    "exp(u^2) erfc(u) as a polynomial in t - erfc_centre, t = 3 / (3 + u), "
    "1.5 / sqrt 2 <= u <= 10.61.")
fit("atanh_poly", lambda z: 2 * mp.atanh(mp.sqrt(z)) / mp.sqrt(z) if z > 0 else mp.mpf(2),
    0, mp.mpf(1) / 9, 9, 0,
    "2 atanh(s) / s as a polynomial in z = s^2, |s| <= 1/3: log(m) = 2 atanh((m - 1) / (m + 1)) "
    "and log1p(e) = 2 atanh(e / (2 + e)).")
