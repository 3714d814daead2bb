#include "formats/temporal_text.h"

#include <array>

#include "columnar/calendar.h"
#include "formats/ascii_text.h"

namespace floe::formats {
namespace {

constexpr int64_t kNanosPerSecond = 1000000000;
constexpr int64_t kSecondsPerDay = 86400;

inline unsigned DigitAt(const char* p) {
  return static_cast<unsigned char>(*p - '0');
}

// Exactly `n` ASCII digits at p.
inline bool FixedDigits(const char* p, int n, int* out) {
  int v = 0;
  for (int i = 0; i < n; ++i) {
    const unsigned d = DigitAt(p + i);
    if (d > 9) return false;
    v = v * 10 + static_cast<int>(d);
  }
  *out = v;
  return true;
}

bool IsLeap(int64_t year) {
  return DaysInMonth(year, 2) == 29;
}

bool ValidDate(int64_t year, int month, int day) {
  return month >= 1 && month <= 12 && day >= 1 && day <= DaysInMonth(year, month);
}

// ".fffffffff" at text[i]: 1-9 digits; advances i.
bool ParseFraction(std::string_view text, size_t* i, int64_t* nanos, int32_t* digits) {
  size_t k = *i;
  int64_t value = 0;
  int n = 0;
  while (k < text.size() && DigitAt(text.data() + k) <= 9) {
    if (++n > 9) return false;
    value = value * 10 + DigitAt(text.data() + k);
    ++k;
  }
  if (n == 0) return false;
  static constexpr int64_t kPad[10] = {1000000000, 100000000, 10000000, 1000000, 100000,
                                       10000,      1000,      100,      10,      1};
  *nanos = value * kPad[n];
  *digits = n;
  *i = k;
  return true;
}

// HH:MM[:SS[.f]] starting at text[*i]; stops before anything else.
bool ParseTimePart(std::string_view text, size_t* i, int64_t* nanos_of_day, int32_t* fraction_digits) {
  size_t k = *i;
  int hour, minute, second = 0;
  if (text.size() < k + 5 || text[k + 2] != ':' || !FixedDigits(text.data() + k, 2, &hour) ||
      !FixedDigits(text.data() + k + 3, 2, &minute)) {
    return false;
  }
  k += 5;
  int64_t fraction = 0;
  *fraction_digits = 0;
  if (k < text.size() && text[k] == ':') {
    if (text.size() < k + 3 || !FixedDigits(text.data() + k + 1, 2, &second)) return false;
    k += 3;
    if (k < text.size() && text[k] == '.') {
      ++k;
      if (!ParseFraction(text, &k, &fraction, fraction_digits)) return false;
    }
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  *nanos_of_day = ((hour * 60 + minute) * 60 + second) * kNanosPerSecond + fraction;
  *i = k;
  return true;
}

// "Z", "+HH", "+HHMM", "+HH:MM", "-..." or "UTC"/"GMT" filling the rest of text.
bool ParseZone(std::string_view zone, int32_t* offset_seconds) {
  if (zone == "Z" || zone == "z" || zone == "UTC" || zone == "GMT") {
    *offset_seconds = 0;
    return true;
  }
  if (zone.size() < 3 || (zone[0] != '+' && zone[0] != '-')) return false;
  int hours, minutes = 0;
  if (!FixedDigits(zone.data() + 1, 2, &hours)) return false;
  std::string_view rest = zone.substr(3);
  if (!rest.empty() && rest[0] == ':') rest.remove_prefix(1);
  if (!rest.empty()) {
    if (rest.size() != 2 || !FixedDigits(rest.data(), 2, &minutes)) return false;
  } else if (zone.size() > 3) {
    return false;  // "+05:" with nothing after the colon
  }
  if (hours > 18 || minutes > 59) return false;
  const int32_t offset = (hours * 60 + minutes) * 60;
  *offset_seconds = zone[0] == '-' ? -offset : offset;
  return true;
}

constexpr std::array<std::string_view, 12> kMonthNames = {"january",   "february", "march",    "april",
                                                          "may",       "june",     "july",     "august",
                                                          "september", "october",  "november", "december"};
constexpr std::array<std::string_view, 7> kDayNames = {"monday", "tuesday",  "wednesday", "thursday",
                                                       "friday", "saturday", "sunday"};

bool PrefixIgnoreCase(std::string_view text, size_t at, std::string_view word) {
  if (text.size() - at < word.size()) return false;
  for (size_t i = 0; i < word.size(); ++i) {
    if (LowerAscii(text[at + i]) != word[i]) return false;
  }
  return true;
}

// A full or three-letter English name from `names` at text[*i]; returns its index.
template <size_t N>
int MatchName(std::string_view text, size_t* i, const std::array<std::string_view, N>& names) {
  for (size_t n = 0; n < N; ++n) {
    if (PrefixIgnoreCase(text, *i, names[n])) {
      *i += names[n].size();
      return static_cast<int>(n);
    }
  }
  for (size_t n = 0; n < N; ++n) {
    if (PrefixIgnoreCase(text, *i, names[n].substr(0, 3))) {
      *i += 3;
      return static_cast<int>(n);
    }
  }
  return -1;
}

// 1..max_digits digits at text[*i].
bool VariableDigits(std::string_view text, size_t* i, int max_digits, int* out) {
  int v = 0, n = 0;
  while (n < max_digits && *i < text.size() && DigitAt(text.data() + *i) <= 9) {
    v = v * 10 + static_cast<int>(DigitAt(text.data() + *i));
    ++*i;
    ++n;
  }
  *out = v;
  return n > 0;
}

}  // namespace

// Hot for the reason CommonIsoTimestampToUnit is.
[[gnu::hot]] bool ParseIsoDate(std::string_view text, int32_t* days) {
  int year, month, day;
  if (text.size() != 10 || text[4] != '-' || text[7] != '-' || !FixedDigits(text.data(), 4, &year) ||
      !FixedDigits(text.data() + 5, 2, &month) || !FixedDigits(text.data() + 8, 2, &day) ||
      !ValidDate(year, month, day)) {
    return false;
  }
  *days = static_cast<int32_t>(DaysFromCivil(year, month, day));
  return true;
}

bool ParseIsoTime(std::string_view text, int64_t* nanos_of_day, int32_t* fraction_digits) {
  size_t i = 0;
  return ParseTimePart(text, &i, nanos_of_day, fraction_digits) && i == text.size();
}

bool ParseIsoTimestamp(std::string_view text, TimestampText* out) {
  int32_t days;
  if (text.size() < 10 || !ParseIsoDate(text.substr(0, 10), &days)) return false;
  out->days = days;
  out->nanos_of_day = 0;
  out->fraction_digits = 0;
  out->has_zone = false;
  out->offset_seconds = 0;
  out->has_time = false;
  if (text.size() == 10) return true;
  const char separator = text[10];
  if (separator != 'T' && separator != 't' && separator != ' ') return false;
  size_t i = 11;
  if (!ParseTimePart(text, &i, &out->nanos_of_day, &out->fraction_digits)) return false;
  out->has_time = true;
  if (i == text.size()) return true;
  std::string_view zone = text.substr(i);
  if (zone[0] == ' ') zone.remove_prefix(1);
  if (!ParseZone(zone, &out->offset_seconds)) return false;
  out->has_zone = true;
  return true;
}

namespace {

// TimestampTextToUnit for one unit: `divisor` is a constant, so no division
// instruction (a timestamp column converts every one of its values here).
template <int64_t kDivisor>
bool TimestampTextIn(const TimestampText& ts, int64_t* out) {
  constexpr int64_t kPerSecond = kNanosPerSecond / kDivisor;
  const int64_t fraction = ts.nanos_of_day % kNanosPerSecond;
  if (fraction % kDivisor != 0) return false;
  // Overflow-checked 64-bit arithmetic (days come from 4-digit years in ISO
  // text, but formats may carry any year).
  int64_t seconds, value;
  if (__builtin_mul_overflow(ts.days, kSecondsPerDay, &seconds) ||
      __builtin_add_overflow(
          seconds, ts.nanos_of_day / kNanosPerSecond - (ts.has_zone ? ts.offset_seconds : 0), &seconds) ||
      __builtin_mul_overflow(seconds, kPerSecond, &value) ||
      __builtin_add_overflow(value, fraction / kDivisor, &value)) {
    return false;
  }
  *out = value;
  return true;
}

}  // namespace

bool TimestampTextToUnit(const TimestampText& ts, TimeUnit unit, bool utc_column, int64_t* out) {
  if (ts.has_zone && !utc_column) return false;
  switch (unit) {
    case TimeUnit::kMilli: return TimestampTextIn<1000000>(ts, out);
    case TimeUnit::kMicro: return TimestampTextIn<1000>(ts, out);
    default: return TimestampTextIn<1>(ts, out);
  }
}

// Marked hot: without it GCC predicts the function's success path cold and
// divides by constants with idiv (tens of cycles) instead of multiplying.
[[gnu::hot]] bool CommonIsoTimestampToUnit(std::string_view text, TimeUnit unit, int64_t* out) {
  const size_t n = text.size();
  const char* p = text.data();
  if (n < 19 || n == 20 || n > 28 || (n > 19 && p[19] != '.') || (p[10] != ' ' && p[10] != 'T')) return false;
  // "YYYY-MM-" and "HH:MM:SS" as words (byte k is bits 8k): their
  // separators checked in place, their digits with '0' put over them.
  constexpr uint64_t kZeros = 0x3030303030303030ull;
  constexpr uint64_t kDateDashes = 0xFF0000FF00000000ull, kTimeColons = 0x0000FF0000FF0000ull;
  const uint64_t date = LoadEightBytes(p), time = LoadEightBytes(p + 11);
  const unsigned day_tens = DigitAt(p + 8), day_ones = DigitAt(p + 9);
  if ((date & kDateDashes) != 0x2D00002D00000000ull || (time & kTimeColons) != 0x00003A00003A0000ull ||
      !AllAsciiDigits((date & ~kDateDashes) | (kZeros & kDateDashes)) ||
      !AllAsciiDigits((time & ~kTimeColons) | (kZeros & kTimeColons)) || day_tens > 9 || day_ones > 9) {
    return false;
  }
  const int year =
      static_cast<int>(DigitAt(p) * 1000 + DigitAt(p + 1) * 100 + DigitAt(p + 2) * 10 + DigitAt(p + 3));
  const int month = static_cast<int>(DigitAt(p + 5) * 10 + DigitAt(p + 6));
  const int day = static_cast<int>(day_tens * 10 + day_ones);
  const int64_t hour = DigitAt(p + 11) * 10 + DigitAt(p + 12),
                minute = DigitAt(p + 14) * 10 + DigitAt(p + 15),
                second = DigitAt(p + 17) * 10 + DigitAt(p + 18);
  if (month < 1 || month > 12 || day < 1 || (day > 28 && day > DaysInMonth(year, month)) || hour > 23 ||
      minute > 59 || second > 59) {
    return false;
  }
  // The fraction in units of 10^-8 s: the last eight bytes end with its
  // digits; shifted to the front with '0' after them they read as that.
  int64_t fraction = 0;
  if (n > 19) {
    const unsigned others = static_cast<unsigned>(28 - n) * 8;
    const uint64_t word = (LoadEightBytes(p + n - 8) >> others) | (kZeros & ~(~0ull >> others));
    if (!AllAsciiDigits(word)) return false;
    fraction = static_cast<int64_t>(EightDigitsValue(word));
  }
  const int64_t seconds =
      DaysFromCivil(year, month, day) * kSecondsPerDay + (hour * 60 + minute) * 60 + second;
  int64_t value;
  switch (unit) {
    case TimeUnit::kMilli:
      if (fraction % 100000 != 0) return false;
      value = seconds * 1000 + fraction / 100000;
      break;
    case TimeUnit::kMicro:
      if (fraction % 100 != 0) return false;
      value = seconds * 1000000 + fraction / 100;
      break;
    default:
      // Nanoseconds overflow 64 bits after the year 2262.
      if (__builtin_mul_overflow(seconds, kNanosPerSecond, &value) ||
          __builtin_add_overflow(value, fraction * 10, &value)) {
        return false;
      }
      break;
  }
  *out = value;
  return true;
}

bool TimeOfDayToUnit(int64_t nanos_of_day, TimeUnit unit, int64_t* out) {
  const int64_t divisor = unit == TimeUnit::kMilli ? 1000000 : unit == TimeUnit::kMicro ? 1000 : 1;
  if (nanos_of_day % divisor != 0) return false;
  *out = nanos_of_day / divisor;
  return true;
}

Result<TemporalFormat> TemporalFormat::Compile(std::string_view format) {
  TemporalFormat compiled;
  compiled.text_ = std::string(format);
  std::vector<Item> items;
  auto literal = [&](char c) { items.push_back(Item{0, c, false}); };
  auto directive = [&](char d) { items.push_back(Item{d, 0, false}); };
  for (size_t i = 0; i < format.size(); ++i) {
    if (format[i] != '%') {
      literal(format[i]);
      continue;
    }
    if (++i == format.size()) {
      return Status::InvalidArgument("format '" + compiled.text_ + "' ends with a lone '%'");
    }
    const char d = format[i];
    switch (d) {
      case 'Y':
      case 'y':
      case 'm':
      case 'd':
      case 'e':
      case 'j':
      case 'b':
      case 'h':
      case 'B':
        compiled.has_date_ = true;
        directive(d == 'h' ? 'b' : d == 'B' ? 'b' : d == 'e' ? 'd' : d);
        break;
      case 'H':
      case 'I':
      case 'M':
      case 'S':
      case 'f':
      case 'p':
        compiled.has_time_ = true;
        directive(d);
        break;
      case 'a':
      case 'A': directive('a'); break;
      case 'z':
      case 'Z':
        compiled.has_zone_ = true;
        directive(d);
        break;
      case 'T':
        compiled.has_time_ = true;
        directive('H'), literal(':'), directive('M'), literal(':'), directive('S');
        break;
      case 'F':
        compiled.has_date_ = true;
        directive('Y'), literal('-'), directive('m'), literal('-'), directive('d');
        break;
      case 'D':
        compiled.has_date_ = true;
        directive('m'), literal('/'), directive('d'), literal('/'), directive('y');
        break;
      case '%': literal('%'); break;
      default:
        return Status::InvalidArgument("format '" + compiled.text_ + "': unsupported directive %" +
                                       std::string(1, d));
    }
  }
  for (size_t k = 0; k < items.size(); ++k) {
    if (items[k].directive == 'S') {
      const bool explicit_fraction =
          k + 1 < items.size() && items[k + 1].directive == 0 && items[k + 1].literal == '.';
      items[k].fraction_may_follow = !explicit_fraction;
    }
  }
  compiled.items_ = std::move(items);
  return compiled;
}

bool TemporalFormat::Parse(std::string_view text, TimestampText* out) const {
  int year = 1970, month = 1, day = 1, yday = 0;
  int hour = 0, minute = 0, second = 0;
  int64_t fraction = 0;
  int32_t fraction_digits = 0;
  int pm = -1;  // -1 none, 0 AM, 1 PM
  bool twelve_hour = false;
  int32_t offset = 0;
  size_t i = 0;
  for (const Item& item : items_) {
    if (item.directive == 0) {
      if (i >= text.size() || text[i] != item.literal) return false;
      ++i;
      continue;
    }
    switch (item.directive) {
      case 'Y':
        if (!VariableDigits(text, &i, 4, &year)) return false;
        break;
      case 'y': {
        int yy;
        const size_t start = i;
        if (!VariableDigits(text, &i, 2, &yy) || i - start != 2) return false;
        year = yy >= 69 ? 1900 + yy : 2000 + yy;
        break;
      }
      case 'm':
        if (!VariableDigits(text, &i, 2, &month)) return false;
        break;
      case 'd':
        if (!VariableDigits(text, &i, 2, &day)) return false;
        break;
      case 'j':
        if (!VariableDigits(text, &i, 3, &yday) || yday < 1 || yday > 366) return false;
        break;
      case 'b': {
        const int m = MatchName(text, &i, kMonthNames);
        if (m < 0) return false;
        month = m + 1;
        break;
      }
      case 'a':
        if (MatchName(text, &i, kDayNames) < 0) return false;
        break;
      case 'H':
        if (!VariableDigits(text, &i, 2, &hour)) return false;
        break;
      case 'I':
        if (!VariableDigits(text, &i, 2, &hour)) return false;
        twelve_hour = true;
        break;
      case 'M':
        if (!VariableDigits(text, &i, 2, &minute)) return false;
        break;
      case 'S':
        if (!VariableDigits(text, &i, 2, &second)) return false;
        if (item.fraction_may_follow && i + 1 < text.size() && text[i] == '.' &&
            DigitAt(text.data() + i + 1) <= 9) {
          ++i;
          if (!ParseFraction(text, &i, &fraction, &fraction_digits)) return false;
        }
        break;
      case 'f':
        if (!ParseFraction(text, &i, &fraction, &fraction_digits)) return false;
        break;
      case 'p':
        if (PrefixIgnoreCase(text, i, "am")) {
          pm = 0;
        } else if (PrefixIgnoreCase(text, i, "pm")) {
          pm = 1;
        } else {
          return false;
        }
        i += 2;
        break;
      case 'z': {
        size_t end = i;
        if (end < text.size() && (text[end] == 'Z' || text[end] == 'z')) {
          ++end;
        } else {
          if (end < text.size() && (text[end] == '+' || text[end] == '-')) ++end;
          while (end < text.size() && (DigitAt(text.data() + end) <= 9 || text[end] == ':')) ++end;
        }
        if (!ParseZone(text.substr(i, end - i), &offset)) return false;
        i = end;
        break;
      }
      case 'Z':
        if (PrefixIgnoreCase(text, i, "utc") || PrefixIgnoreCase(text, i, "gmt")) {
          i += 3;
        } else if (i < text.size() && (text[i] == 'Z' || text[i] == 'z')) {
          ++i;
        } else {
          return false;
        }
        offset = 0;
        break;
      default: return false;
    }
  }
  if (i != text.size()) return false;
  if (twelve_hour) {
    if (hour < 1 || hour > 12) return false;
    if (pm >= 0) hour = hour % 12 + (pm == 1 ? 12 : 0);
  } else if (pm >= 0) {
    if (hour < 1 || hour > 12) return false;
    hour = hour % 12 + (pm == 1 ? 12 : 0);
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  int64_t days;
  if (yday > 0) {
    if (yday > (IsLeap(year) ? 366 : 365)) return false;
    days = DaysFromCivil(year, 1, 1) + yday - 1;
  } else {
    if (!ValidDate(year, month, day)) return false;
    days = DaysFromCivil(year, month, day);
  }
  out->days = has_date_ ? days : 0;
  out->nanos_of_day = ((hour * 60 + minute) * 60 + second) * kNanosPerSecond + fraction;
  out->fraction_digits = fraction_digits;
  out->has_zone = has_zone_;
  out->offset_seconds = offset;
  out->has_time = has_time_;
  return true;
}

}  // namespace floe::formats
