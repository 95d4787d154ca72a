// Exact math: the project's own transcendental functions, so that the reference interpreter gets
// the same bits in every build and on every platform. Invariants: only IEEE-754 +, -, *, /, fma,
// comparisons and bit operations are used (never the platform libm, x87 or long double); the code
// must be compiled with -ffp-contract=off, without fast-math, in round-to-nearest. Constants are
// hex literals (exactly representable). Float overloads evaluate the double version and round once.
// Every NaN result is the canonical quiet NaN. Method and measured accuracy: docs/exact-math.md.
#pragma once

// One header per family, all in namespace topos::exact (helpers in topos::exact::detail); basics
// holds the pairs and bit helpers the others build on.
#include "core/exact_math/activations.hpp"  // tanh, sigmoid, softplus, gelu, silu
#include "core/exact_math/basics.hpp"
#include "core/exact_math/erf.hpp"
#include "core/exact_math/exp.hpp"  // exp, expm1
#include "core/exact_math/log.hpp"  // log, log1p
#include "core/exact_math/pow.hpp"
#include "core/exact_math/trig.hpp"  // sin, cos
