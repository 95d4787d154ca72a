// StableHLO compositions the op rows share: broadcasting a reduced value back,
// the stable log-sum-exp, and the error function, which StableHLO lacks (see
// docs/guide/emission.md for the formulas and their accuracy).
#pragma once

#include "hlo/builder.hpp"

#include <cstddef>
#include <vector>

namespace topos::detail {

// Every axis of a rank-`rank` result but `axis`: where broadcast_in_dim puts the
// axes of a value reduced along `axis`.
std::vector<std::size_t> axes_except(std::size_t rank, std::size_t axis);

// log(sum(exp(x))) along `axis`, removing it: m + log(sum(exp(x - m))) with m
// the maximum, and m itself where m is not finite (all -inf, or +inf or NaN).
HloValue log_sum_exp(HloBuilder& build, HloValue x, std::size_t axis);

// erf(x), from the same piecewise fits as the project's own erf.
HloValue erf(HloBuilder& build, HloValue x);

// erfc(x) = 1 - erf(x), accurate in the right tail (no cancellation).
HloValue erfc(HloBuilder& build, HloValue x);

}  // namespace topos::detail
