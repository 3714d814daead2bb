#include "formats/number_text.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>

#include "formats/ascii_text.h"

namespace floe::formats {
namespace {

bool IsDigit(char c) {
  return static_cast<unsigned char>(c - '0') < 10;
}

// NaN / Infinity / inf in any case, after an optional sign.
bool ParseNonFinite(std::string_view text, double* out) {
  bool negative = false;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    negative = text[0] == '-';
    text.remove_prefix(1);
  }
  if (EqualsIgnoreCase(text, "nan")) {
    *out = std::numeric_limits<double>::quiet_NaN();
    return true;
  }
  if (EqualsIgnoreCase(text, "inf") || EqualsIgnoreCase(text, "infinity")) {
    *out = negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
    return true;
  }
  return false;
}

constexpr std::array<__int128, kMaxDecimalPrecision + 1> MakePowersOf10() {
  std::array<__int128, kMaxDecimalPrecision + 1> powers{};
  powers[0] = 1;
  for (size_t i = 1; i < powers.size(); ++i) powers[i] = powers[i - 1] * 10;
  return powers;
}
constexpr std::array<__int128, kMaxDecimalPrecision + 1> kPowersOf10 = MakePowersOf10();

// 10^n for 0 <= n <= 38.
inline __int128 Pow10(int n) {
  return kPowersOf10[static_cast<size_t>(n)];
}

// True when the digits of a literal are all zeros (so underflow to 0 is exact).
bool AllDigitsZero(std::string_view text) {
  for (char c : text) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return false;
  }
  return true;
}

}  // namespace

bool ParseInt64Text(std::string_view text, int64_t* out) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    negative = text[i] == '-';
    ++i;
  }
  if (i == text.size()) return false;
  // Leading zeros are exact; past them, 19 digits is the most an int64 has.
  while (i + 1 < text.size() && text[i] == '0') ++i;
  if (text.size() - i > 19) return false;
  uint64_t value = 0;
  for (; i < text.size(); ++i) {
    const unsigned digit = static_cast<unsigned char>(text[i] - '0');
    if (digit > 9) return false;
    value = value * 10 + digit;  // at most 19 digits: cannot wrap past 2^64
  }
  if (negative) {
    if (value > uint64_t{1} << 63) return false;
    *out = static_cast<int64_t>(~value + 1);
  } else {
    if (value > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return false;
    *out = static_cast<int64_t>(value);
  }
  return true;
}

bool ParseDecimalText(std::string_view text, DecimalText* out) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    negative = text[i] == '-';
    ++i;
  }
  // The first 18 significant digits accumulate in 64 bits (the common case:
  // amounts and rates), the rest in 128.
  uint64_t low = 0;
  __int128 unscaled = 0;
  int significant = 0;  // digits accumulated, leading zeros excluded
  int fraction = 0;
  bool any_digit = false;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (IsDigit(c)) {
      any_digit = true;
      if (seen_point) ++fraction;
      if (significant == 0 && c == '0') continue;
      if (++significant > kMaxDecimalPrecision) return false;
      if (significant <= 18) {
        low = low * 10 + static_cast<uint64_t>(c - '0');
      } else {
        if (significant == 19) unscaled = static_cast<__int128>(low);
        unscaled = unscaled * 10 + (c - '0');
      }
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) return false;
  if (significant <= 18) unscaled = static_cast<__int128>(low);
  int64_t exponent = 0;
  if (i < text.size()) {
    if (text[i] != 'e' && text[i] != 'E') return false;
    ++i;
    bool exponent_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
      exponent_negative = text[i] == '-';
      ++i;
    }
    if (i == text.size()) return false;
    for (; i < text.size(); ++i) {
      if (!IsDigit(text[i])) return false;
      if (exponent < 100000) exponent = exponent * 10 + (text[i] - '0');
    }
    if (exponent_negative) exponent = -exponent;
  }
  int64_t scale = fraction - exponent;
  if (scale < 0) {
    if (unscaled != 0) {
      if (significant - scale > kMaxDecimalPrecision) return false;
      unscaled *= Pow10(static_cast<int>(-scale));
      significant += static_cast<int>(-scale);
    }
    scale = 0;
  }
  if (scale > kMaxDecimalPrecision) {
    // Only a zero or trailing zeros can come back within range.
    while (scale > kMaxDecimalPrecision && unscaled != 0 && unscaled % 10 == 0) {
      unscaled /= 10;
      --significant;
      --scale;
    }
    if (unscaled == 0) scale = std::min<int64_t>(scale, kMaxDecimalPrecision);
    if (scale > kMaxDecimalPrecision) return false;
  }
  out->unscaled = negative ? -unscaled : unscaled;
  out->scale = static_cast<int32_t>(scale);
  out->precision = std::max({significant, static_cast<int>(scale), 1});
  return true;
}

bool RescaleDecimal(const DecimalText& value, int32_t precision, int32_t scale, __int128* out) {
  if (precision < 1 || precision > kMaxDecimalPrecision || scale < 0 || scale > precision) return false;
  __int128 v = value.unscaled;
  if (value.scale > scale) {
    const __int128 divisor = Pow10(value.scale - scale);
    if (v % divisor != 0) return false;
    v /= divisor;
  } else if (value.scale < scale) {
    const int up = scale - value.scale;
    // |v| < 10^38 and the result must stay below 10^precision.
    const __int128 limit = Pow10(precision - up);
    if (v >= limit || v <= -limit) return false;
    v *= Pow10(up);
  }
  const __int128 bound = Pow10(precision);
  if (v >= bound || v <= -bound) return false;
  *out = v;
  return true;
}

bool ParseDoubleText(std::string_view text, double* out) {
  if (text.empty()) return false;
  std::string_view digits = text;
  if (digits[0] == '+') digits.remove_prefix(1);
  if (digits.empty() || digits[0] == '+') return false;
  const char first = digits[0] == '-' && digits.size() > 1 ? digits[1] : digits[0];
  if (!IsDigit(first) && first != '.') return ParseNonFinite(text, out);
  double value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ptr != digits.data() + digits.size()) return false;
  if (ec == std::errc::result_out_of_range) return false;
  if (ec != std::errc()) return false;
  if (value == 0 && !AllDigitsZero(digits)) return false;  // underflow
  *out = value;
  return true;
}

bool ParseFloatText(std::string_view text, float* out) {
  double wide;
  if (!ParseDoubleText(text, &wide)) return false;
  if (std::isfinite(wide)) {
    if (std::fabs(wide) > std::numeric_limits<float>::max()) return false;
    if (wide != 0 && std::fabs(wide) < std::numeric_limits<float>::denorm_min()) return false;
    // Parse again as float: rounding once from the text, not twice via double.
    std::string_view digits = text[0] == '+' ? text.substr(1) : text;
    float value = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return false;
    *out = value;
    return true;
  }
  *out = static_cast<float>(wide);
  return true;
}

NumberShape ClassifyNumberText(std::string_view text) {
  NumberShape shape;
  size_t i = 0;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) ++i;
  const size_t integer_start = i;
  while (i < text.size() && IsDigit(text[i])) ++i;
  const size_t integer_length = i - integer_start;
  if (integer_length > 1 && text[integer_start] == '0') return shape;  // "007": an identifier
  size_t fraction_length = 0;
  bool point = false;
  if (i < text.size() && text[i] == '.') {
    point = true;
    const size_t fraction_start = ++i;
    while (i < text.size() && IsDigit(text[i])) ++i;
    fraction_length = i - fraction_start;
  }
  if (integer_length + fraction_length == 0) {
    double ignored;
    if (!point && ParseNonFinite(text, &ignored)) shape.kind = NumberShape::kDouble;
    return shape;
  }
  if (i < text.size()) {
    double ignored;
    if ((text[i] == 'e' || text[i] == 'E') && ParseDoubleText(text, &ignored)) {
      shape.kind = NumberShape::kDouble;
    }
    return shape;
  }
  size_t significant = integer_length;
  for (size_t k = integer_start; k < integer_start + integer_length && text[k] == '0'; ++k) --significant;
  shape.integer_digits = static_cast<int32_t>(significant);
  if (!point) {
    int64_t ignored;
    if (ParseInt64Text(text, &ignored)) {
      shape.kind = NumberShape::kInteger;
    } else {
      shape.kind = significant <= kMaxDecimalPrecision ? NumberShape::kDecimal : NumberShape::kDouble;
    }
    return shape;
  }
  if (significant + fraction_length > kMaxDecimalPrecision) {
    shape.kind = NumberShape::kDouble;
    return shape;
  }
  shape.kind = NumberShape::kDecimal;
  shape.scale = static_cast<int32_t>(fraction_length);
  return shape;
}

}  // namespace floe::formats
