#include "expr/decimal_math.h"

namespace floe::expr {
namespace {

using U128 = unsigned __int128;

struct U256 {
  U128 hi = 0, lo = 0;
};

U256 Multiply(U128 a, U128 b) {
  const uint64_t a0 = static_cast<uint64_t>(a), a1 = static_cast<uint64_t>(a >> 64);
  const uint64_t b0 = static_cast<uint64_t>(b), b1 = static_cast<uint64_t>(b >> 64);
  const U128 p00 = static_cast<U128>(a0) * b0, p01 = static_cast<U128>(a0) * b1;
  const U128 p10 = static_cast<U128>(a1) * b0, p11 = static_cast<U128>(a1) * b1;
  const U128 middle = (p00 >> 64) + static_cast<uint64_t>(p01) + static_cast<uint64_t>(p10);
  U256 r;
  r.lo = (middle << 64) | static_cast<uint64_t>(p00);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (middle >> 64);
  return r;
}

// n / d for a 256-bit n and 128-bit d != 0 by shift-subtract; false when the
// quotient does not fit 128 bits.
bool Divide(U256 n, U128 d, U128* quotient, U128* remainder) {
  if (n.hi == 0) {
    *quotient = n.lo / d;
    *remainder = n.lo % d;
    return true;
  }
  if (n.hi >= d) return false;
  U128 r = n.hi, q = 0;
  for (int bit = 127; bit >= 0; --bit) {
    const bool carry = (r >> 127) != 0;
    r = (r << 1) | ((n.lo >> bit) & 1);
    q <<= 1;
    if (carry || r >= d) {
      r -= d;
      q |= 1;
    }
  }
  *quotient = q;
  *remainder = r;
  return true;
}

U128 Magnitude(Int128 v) {
  return v < 0 ? -static_cast<U128>(v) : static_cast<U128>(v);
}

}  // namespace

bool DivideRounded(Int128 p, int32_t shift, Int128 q, Int128 limit, Int128* out) {
  if (q == 0) return false;
  const bool negative = (p < 0) != (q < 0);
  U256 numerator{0, Magnitude(p)};
  U128 divisor = Magnitude(q);
  if (shift >= 0) {
    numerator = Multiply(Magnitude(p), static_cast<U128>(Pow10(shift > 38 ? 38 : shift)));
    if (shift > 38) {
      // Only reachable with scales near the cap; the rest of the shift.
      if (numerator.hi != 0) return false;
      numerator = Multiply(numerator.lo, static_cast<U128>(Pow10(shift - 38)));
    }
  } else {
    U256 wide = Multiply(divisor, static_cast<U128>(Pow10(-shift)));
    if (wide.hi != 0) {  // divisor above 2^128: the quotient rounds to 0 or 1
      *out = 0;
      return true;
    }
    divisor = wide.lo;
  }
  U128 quotient = 0, remainder = 0;
  if (!Divide(numerator, divisor, &quotient, &remainder)) return false;
  // Half away from zero: round up when 2 * remainder >= divisor.
  if (remainder >= divisor - remainder) ++quotient;
  if (quotient >= static_cast<U128>(limit)) return false;
  *out = negative ? -static_cast<Int128>(quotient) : static_cast<Int128>(quotient);
  return true;
}

bool Rescale(Int128 x, int32_t from, int32_t to, Int128* out) {
  if (to >= from) return !__builtin_mul_overflow(x, Pow10(to - from), out);
  const Int128 factor = Pow10(from - to);
  Int128 q = x / factor, r = x % factor;
  const U128 twice = Magnitude(r) * 2;
  if (twice >= static_cast<U128>(factor)) q += x < 0 ? -1 : 1;
  *out = q;
  return true;
}

}  // namespace floe::expr
