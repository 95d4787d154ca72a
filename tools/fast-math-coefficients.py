#!/usr/bin/env python3
"""Fits and prints the polynomials of src/kernels/fast_math.hpp.

Needs Python 3 and mpmath (pip's or Debian's python3-mpmath). Each polynomial
is mpmath's Chebyshev fit with its coefficients rounded to floats; the script
measures the rounded polynomial's largest relative error on 20,001 points of
its interval and prints it beside the coefficients. The Fast functions
evaluate in float, so each fit is chosen a few bits below float's 2^-24.
"""
import struct
import textwrap

import mpmath as mp

mp.mp.dps = 40


def to_float(value):
    return struct.unpack("f", struct.pack("f", float(value)))[0]


def fit(name, f, a, b, terms, centre, comment):
    g = lambda h: f(h + centre)
    c, _ = mp.chebyfit(g, [a - centre, b - centre], terms, error=True)
    floats = [to_float(v) for v in reversed(c)]  # constant term first
    worst = mp.mpf(0)
    for i in range(20001):
        h = mp.mpf(a - centre) + (mp.mpf(b) - a) * i / 20000
        p = mp.mpf(0)
        for coefficient in reversed(floats):
            p = p * h + coefficient
        worst = max(worst, abs(p - g(h)) / abs(g(h)))
    print("\n".join(textwrap.wrap(comment, 96, initial_indent="// ", subsequent_indent="// ")))
    print(f"// Relative error of the rounded coefficients: 2^{float(mp.log(worst, 2)):.1f}.")
    print(f"inline constexpr std::array<float, {terms}> {name}{{")
    print(",\n".join(f"    {v.hex()}f" for v in floats) + "};")
    print()


def over_root(f, zero):
    return lambda z: f(mp.sqrt(z)) / mp.sqrt(z) if z > 0 else zero


half_ln2 = mp.log(2) / 2
fit("exp_poly", mp.exp, -half_ln2 - mp.mpf(2) ** -12, half_ln2 + mp.mpf(2) ** -12, 8, 0,
    "exp(r) on |r| <= ln2 / 2.")
fit("tanh_poly", over_root(mp.tanh, 1), 0, mp.mpf(0.55) ** 2, 8, 0,
    "tanh(x) / x as a polynomial in z = x^2, |x| <= 0.55.")
fit("atanh_poly", over_root(lambda s: 2 * mp.atanh(s), 2), 0, mp.mpf(1) / 9, 7, 0,
    "2 atanh(s) / s as a polynomial in z = s^2, |s| <= 1/3: log(m) = 2 atanh((m - 1) / (m + 1)) "
    "and log1p(e) = 2 atanh(e / (2 + e)).")
fit("erf_poly", over_root(mp.erf, 2 / mp.sqrt(mp.pi)), 0, 1, 10, 0,
    "erf(u) / u as a polynomial in z = u^2, |u| <= 1.")
R = lambda u: mp.exp(u * u) * mp.erfc(u)
t_low, t_high = 3 / (3 + mp.mpf(10.61)), 3 / (3 + mp.mpf(0.5))
t_centre = to_float((t_low + t_high) / 2)
print(f"inline constexpr float erfc_centre = {t_centre.hex()}f;")
print()
fit("erfc_poly", lambda t: R(3 / t - 3), t_low, t_high, 14, t_centre,
    "exp(u^2) erfc(u) as a polynomial in t - erfc_centre, t = 3 / (3 + u), 0.5 <= u <= 10.61.")
