// Numbers written as text (CSV cells, JSON number tokens): exact parsing into
// integers, decimals and doubles, and the classification type inference uses.
//
// Contract: every function takes the whole text of one value (no surrounding
// whitespace) and either produces the exact value or reports that the text
// does not fit; nothing is rounded, truncated or clamped silently:
// - integers: optional sign, ASCII digits; overflow does not fit.
// - decimals: optional sign, digits with an optional '.', optional exponent
//   (e/E, signed). A value fits decimal(p,s) when it has at most s fraction
//   digits after dropping trailing zeros and at most p-s integer digits.
// - doubles: what std::from_chars accepts plus a leading '+' and the words
//   NaN / Infinity / inf (any case, signed); a finite text whose magnitude
//   overflows or underflows to zero (other than a literal zero) does not fit.
// Pure functions, safe from any thread.
#pragma once

#include <cstdint>
#include <string_view>

namespace floe::formats {

inline constexpr int kMaxDecimalPrecision = 38;

// Parses a signed 64-bit integer.
bool ParseInt64Text(std::string_view text, int64_t* out);

// A decimal literal read exactly: value = unscaled * 10^-scale, with
// `precision` significant digits (leading zeros dropped, at least 1) and
// 0 <= scale. Exponents are folded into the scale.
struct DecimalText {
  __int128 unscaled = 0;
  int32_t precision = 1;
  int32_t scale = 0;
};
// False when the text is not a decimal literal or needs more than 38 digits.
bool ParseDecimalText(std::string_view text, DecimalText* out);

// Rescales a parsed decimal to decimal(precision, scale): false when fraction
// digits would be lost or the integer digits exceed precision - scale.
bool RescaleDecimal(const DecimalText& value, int32_t precision, int32_t scale, __int128* out);

bool ParseDoubleText(std::string_view text, double* out);
bool ParseFloatText(std::string_view text, float* out);

// What a number literal looks like, for inference.
struct NumberShape {
  enum Kind : uint8_t {
    kNotANumber,
    kInteger,  // fits int64
    kDecimal,  // a plain decimal literal (digits '.' digits, or an integer past int64) within 38 digits
    kDouble,   // exponent notation, NaN/Infinity, or more than 38 digits
  };
  Kind kind = kNotANumber;
  int32_t integer_digits = 0;  // significant digits left of the point (kInteger, kDecimal)
  int32_t scale = 0;           // digits right of the point (kDecimal)
};
// Classifies `text`. Integers with a redundant leading zero ("007", "-01",
// "00.5") are kNotANumber: they are identifiers whose zeros a number would lose.
NumberShape ClassifyNumberText(std::string_view text);

}  // namespace floe::formats
