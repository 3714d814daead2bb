// Exact decimal arithmetic beyond 128 bits: the division of decimal(p,s)
// values, whose scaled numerator can need up to 256 bits.
//
// Contract: pure functions, thread-safe.
#pragma once

#include <cstdint>

#include "expr/value_text.h"

namespace floe::expr {

// *out = p * 10^shift / q rounded half away from zero (shift may be negative:
// then q * 10^-shift is the divisor). Returns false when q == 0 or when
// |result| >= limit (overflow of the result type).
bool DivideRounded(Int128 p, int32_t shift, Int128 q, Int128 limit, Int128* out);

// x rescaled from scale `from` to scale `to`, rounding half away from zero
// when digits are dropped. Returns false on overflow of int128.
bool Rescale(Int128 x, int32_t from, int32_t to, Int128* out);

}  // namespace floe::expr
