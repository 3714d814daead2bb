#include "expr/value_text.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "columnar/calendar.h"
#include "columnar/json_format.h"
#include "common/strings.h"

namespace floe::expr {
namespace {

constexpr int64_t kMicrosPerDay = 86400LL * 1000000;

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

// Reads 1..max_digits digits at text[*at]; false when there are none.
bool ReadNumber(std::string_view text, size_t* at, size_t min_digits, size_t max_digits, int64_t* out) {
  size_t n = 0;
  int64_t value = 0;
  while (*at < text.size() && IsDigit(text[*at]) && n < max_digits) {
    value = value * 10 + (text[*at] - '0');
    ++*at;
    ++n;
  }
  *out = value;
  return n >= min_digits;
}

std::optional<int64_t> ReadDate(std::string_view text, size_t* at) {
  int64_t year = 0, month = 0, day = 0;
  bool negative = false;
  if (*at < text.size() && text[*at] == '-') {
    negative = true;
    ++*at;
  }
  if (!ReadNumber(text, at, 1, 6, &year) || *at >= text.size() || text[*at] != '-') return std::nullopt;
  ++*at;
  if (!ReadNumber(text, at, 1, 2, &month) || *at >= text.size() || text[*at] != '-') return std::nullopt;
  ++*at;
  if (!ReadNumber(text, at, 1, 2, &day)) return std::nullopt;
  if (negative) year = -year;
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, static_cast<int32_t>(month))) {
    return std::nullopt;
  }
  return DaysFromCivil(year, static_cast<int32_t>(month), static_cast<int32_t>(day));
}

std::optional<int64_t> ReadTime(std::string_view text, size_t* at) {
  int64_t hour = 0, minute = 0, second = 0, fraction = 0;
  if (!ReadNumber(text, at, 1, 2, &hour) || *at >= text.size() || text[*at] != ':') return std::nullopt;
  ++*at;
  if (!ReadNumber(text, at, 2, 2, &minute)) return std::nullopt;
  if (*at < text.size() && text[*at] == ':') {
    ++*at;
    if (!ReadNumber(text, at, 2, 2, &second)) return std::nullopt;
    if (*at < text.size() && text[*at] == '.') {
      ++*at;
      size_t digits = 0;
      while (*at < text.size() && IsDigit(text[*at])) {
        if (digits < 6) fraction = fraction * 10 + (text[*at] - '0');
        ++digits;
        ++*at;
      }
      if (digits == 0) return std::nullopt;
      for (size_t i = digits; i < 6; ++i) fraction *= 10;
    }
  }
  if (hour > 23 || minute > 59 || second > 59) {
    if (!(hour == 24 && minute == 0 && second == 0 && fraction == 0)) return std::nullopt;
  }
  return ((hour * 60 + minute) * 60 + second) * 1000000 + fraction;
}

void AppendTwo(int64_t v, std::string* out) {
  out->push_back(static_cast<char>('0' + v / 10));
  out->push_back(static_cast<char>('0' + v % 10));
}

void AppendTimeOfDay(int64_t micros, std::string* out) {
  const int64_t seconds = micros / 1000000, fraction = micros % 1000000;
  AppendTwo(seconds / 3600, out);
  out->push_back(':');
  AppendTwo(seconds / 60 % 60, out);
  out->push_back(':');
  AppendTwo(seconds % 60, out);
  if (fraction != 0) {
    char digits[7];
    int64_t f = fraction;
    for (int i = 5; i >= 0; --i) {
      digits[i] = static_cast<char>('0' + f % 10);
      f /= 10;
    }
    int n = 6;
    while (n > 0 && digits[n - 1] == '0') --n;
    out->push_back('.');
    out->append(digits, static_cast<size_t>(n));
  }
}

// Shortest round-trip digits of a finite, non-zero |value| formatted as
// Python's repr does (which DuckDB's casts to VARCHAR match): fixed notation
// for decimal exponents -5 < e < 16, else d.ddde+XX.
template <typename F>
std::string FormatShortest(F value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string sci(buf, result.ptr);  // "-1.2345e+16"
  std::string out;
  size_t i = 0;
  if (sci[0] == '-') {
    out.push_back('-');
    i = 1;
  }
  const size_t e = sci.find('e');
  std::string digits;
  for (size_t k = i; k < e; ++k) {
    if (sci[k] != '.') digits.push_back(sci[k]);
  }
  const int exponent = std::stoi(sci.substr(e + 1));
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (exponent >= 16 || exponent < -4) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1);
    }
    out.push_back('e');
    out.push_back(exponent < 0 ? '-' : '+');
    const int magnitude = exponent < 0 ? -exponent : exponent;
    if (magnitude < 10) out.push_back('0');
    out += std::to_string(magnitude);
    return out;
  }
  if (exponent < 0) {
    out += "0.";
    out.append(static_cast<size_t>(-exponent - 1), '0');
    out += digits;
    return out;
  }
  const size_t integer_digits = static_cast<size_t>(exponent) + 1;
  if (digits.size() <= integer_digits) {
    out += digits;
    out.append(integer_digits - digits.size(), '0');
    out += ".0";
  } else {
    out.append(digits, 0, integer_digits);
    out.push_back('.');
    out.append(digits, integer_digits);
  }
  return out;
}

}  // namespace

Int128 Pow10(int32_t n) {
  static const auto table = [] {
    struct Table {
      Int128 v[39];
    } t;
    t.v[0] = 1;
    for (int i = 1; i < 39; ++i) t.v[i] = t.v[i - 1] * 10;
    return t;
  }();
  return table.v[n < 0 ? 0 : n > 38 ? 38 : n];
}

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() &&
         (text.front() == ' ' || text.front() == '\t' || text.front() == '\n' || text.front() == '\r')) {
    text.remove_prefix(1);
  }
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' || text.back() == '\r')) {
    text.remove_suffix(1);
  }
  return text;
}

std::optional<int64_t> ParseInteger(std::string_view text) {
  text = TrimSpaces(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec == std::errc() && ptr == text.data() + text.size() && !text.empty()) return value;
  auto rounded = ParseDecimal(text, 38, 0);
  if (!rounded || *rounded < INT64_MIN || *rounded > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(*rounded);
}

std::optional<double> ParseDouble(std::string_view text) {
  text = TrimSpaces(text);
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ptr != text.data() + text.size()) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // from_chars leaves value unchanged on overflow: follow strtod.
    return std::strtod(std::string(text).c_str(), nullptr);
  }
  if (ec != std::errc()) return std::nullopt;
  return value;
}

std::optional<Int128> ParseDecimal(std::string_view text, int32_t precision, int32_t scale) {
  text = TrimSpaces(text);
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  // An exponent ("1.5e3", as DuckDB reads) moves the decimal point.
  std::string shifted;
  if (const size_t e = text.find_first_of("eE"); e != std::string_view::npos) {
    const std::string_view mantissa = text.substr(0, e);
    std::string_view exponent_text = text.substr(e + 1);
    if (!exponent_text.empty() && exponent_text.front() == '+') exponent_text.remove_prefix(1);
    int64_t exponent = 0;
    auto [ptr, ec] =
        std::from_chars(exponent_text.data(), exponent_text.data() + exponent_text.size(), exponent);
    if (ec != std::errc() || ptr != exponent_text.data() + exponent_text.size() || exponent_text.empty() ||
        exponent > 80 || exponent < -80 || mantissa.empty()) {
      return std::nullopt;
    }
    const size_t dot = mantissa.find('.');
    std::string digits(mantissa.substr(0, dot));
    if (dot != std::string_view::npos) digits.append(mantissa.substr(dot + 1));
    int64_t point_at = static_cast<int64_t>(dot == std::string_view::npos ? mantissa.size() : dot) + exponent;
    if (point_at < 0) {
      digits.insert(0, static_cast<size_t>(-point_at), '0');
      point_at = 0;
    }
    if (point_at > static_cast<int64_t>(digits.size())) {
      digits.append(static_cast<size_t>(point_at) - digits.size(), '0');
    }
    shifted =
        digits.substr(0, static_cast<size_t>(point_at)) + "." + digits.substr(static_cast<size_t>(point_at));
    text = shifted;
  }
  const size_t point = text.find('.');
  const std::string_view integer = text.substr(0, point);
  const std::string_view fraction =
      point == std::string_view::npos ? std::string_view() : text.substr(point + 1);
  if (integer.empty() && fraction.empty()) return std::nullopt;
  Int128 value = 0;
  int32_t integer_digits = 0;
  for (char c : integer) {
    if (!IsDigit(c)) return std::nullopt;
    if (value == 0 && c == '0') continue;  // leading zeros do not count
    if (++integer_digits > precision - scale) return std::nullopt;
    value = value * 10 + (c - '0');
  }
  bool round_up = false;
  for (size_t i = 0; i < fraction.size(); ++i) {
    const char c = fraction[i];
    if (!IsDigit(c)) return std::nullopt;
    if (static_cast<int32_t>(i) < scale) {
      value = value * 10 + (c - '0');
    } else if (static_cast<int32_t>(i) == scale) {
      round_up = c >= '5';  // half away from zero
    }
  }
  for (int32_t i = static_cast<int32_t>(fraction.size()); i < scale; ++i) value *= 10;
  if (round_up) ++value;
  if (value >= Pow10(precision)) return std::nullopt;
  return negative ? -value : value;
}

std::optional<bool> ParseBoolean(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "true" || lower == "t" || lower == "yes" || lower == "y" || lower == "1") return true;
  if (lower == "false" || lower == "f" || lower == "no" || lower == "n" || lower == "0") return false;
  return std::nullopt;
}

std::optional<int32_t> ParseDate(std::string_view text) {
  text = TrimSpaces(text);
  size_t at = 0;
  auto days = ReadDate(text, &at);
  if (!days || at != text.size() || *days < INT32_MIN || *days > INT32_MAX) return std::nullopt;
  return static_cast<int32_t>(*days);
}

std::optional<int64_t> ParseTime(std::string_view text) {
  text = TrimSpaces(text);
  size_t at = 0;
  auto micros = ReadTime(text, &at);
  if (!micros || at != text.size()) return std::nullopt;
  return micros;
}

std::optional<int64_t> ParseTimestamp(std::string_view text, bool apply_offset) {
  text = TrimSpaces(text);
  size_t at = 0;
  auto days = ReadDate(text, &at);
  if (!days) return std::nullopt;
  int64_t micros = 0;
  if (at < text.size() && (text[at] == ' ' || text[at] == 'T')) {
    ++at;
    auto time = ReadTime(text, &at);
    if (!time) return std::nullopt;
    micros = *time;
  }
  int64_t offset_seconds = 0;
  if (at < text.size() && text[at] == ' ') ++at;
  if (at < text.size()) {
    const std::string_view zone = text.substr(at);
    if (zone == "Z" || zone == "z" || zone == "UTC" || zone == "utc") {
      at = text.size();
    } else if (zone[0] == '+' || zone[0] == '-') {
      const int64_t sign = zone[0] == '-' ? -1 : 1;
      ++at;
      int64_t hours = 0, minutes = 0;
      if (!ReadNumber(text, &at, 2, 2, &hours)) return std::nullopt;
      if (at < text.size() && text[at] == ':') ++at;
      if (at < text.size() && !ReadNumber(text, &at, 2, 2, &minutes)) return std::nullopt;
      if (hours > 23 || minutes > 59) return std::nullopt;
      offset_seconds = sign * (hours * 3600 + minutes * 60);
    }
  }
  if (at != text.size()) return std::nullopt;
  if (!apply_offset) offset_seconds = 0;
  Int128 total =
      static_cast<Int128>(*days) * kMicrosPerDay + micros - static_cast<Int128>(offset_seconds) * 1000000;
  if (total < INT64_MIN || total > INT64_MAX) return std::nullopt;
  return static_cast<int64_t>(total);
}

std::optional<std::string> ParseUuidText(std::string_view text) {
  text = TrimSpaces(text);
  if (text.size() >= 2 && text.front() == '{' && text.back() == '}') text = text.substr(1, text.size() - 2);
  std::string out;
  int nibble = -1;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    int v;
    if (c >= '0' && c <= '9') {
      v = c - '0';
    } else if (c >= 'a' && c <= 'f') {
      v = c - 'a' + 10;
    } else if (c >= 'A' && c <= 'F') {
      v = c - 'A' + 10;
    } else if (c == '-' && (i == 8 || i == 13 || i == 18 || i == 23) && text.size() == 36) {
      continue;
    } else {
      return std::nullopt;
    }
    if (nibble < 0) {
      nibble = v;
    } else {
      out.push_back(static_cast<char>(nibble << 4 | v));
      nibble = -1;
    }
  }
  if (out.size() != 16 || nibble >= 0) return std::nullopt;
  return out;
}

std::string FormatDouble(double value) {
  return FormatShortest(value);
}
// DuckDB prints a float's own shortest digits in fixed notation but the
// digits of the float widened to double in scientific notation.
std::string FormatFloat(float value) {
  std::string text = FormatShortest(value);
  if (text.find('e') == std::string::npos) return text;
  return FormatShortest(static_cast<double>(value));
}
std::string FormatDecimalText(Int128 unscaled, int32_t scale) {
  return FormatDecimal(unscaled, scale);
}
std::string FormatDateText(int32_t days) {
  return FormatDate(days);
}

std::string FormatTimeText(int64_t micros) {
  std::string out;
  AppendTimeOfDay(FloorMod(micros, kMicrosPerDay), &out);
  return out;
}

std::string FormatTimestampText(int64_t micros, bool utc) {
  std::string out = FormatDate(static_cast<int32_t>(FloorDiv(micros, kMicrosPerDay)));
  out.push_back(' ');
  AppendTimeOfDay(FloorMod(micros, kMicrosPerDay), &out);
  if (utc) out += "+00";
  return out;
}

std::string FormatUuidText(const uint8_t* b) {
  std::string out;
  AppendUuid(std::string_view(reinterpret_cast<const char*>(b), 16), &out);
  return out;
}

std::string FormatBinaryText(std::string_view bytes) {
  std::string out;
  for (unsigned char c : bytes) {
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out.push_back(static_cast<char>(c));
    } else {
      out += "\\x";
      out.push_back(kUpperHexDigits[c >> 4]);
      out.push_back(kUpperHexDigits[c & 15]);
    }
  }
  return out;
}

}  // namespace floe::expr
