#include "formats/connect/offset_time_text.h"

#include <string>

#include "columnar/calendar.h"

namespace floe::connect {

namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}

  bool done() const { return pos_ == text_.size(); }
  bool Peek(char c) const { return pos_ < text_.size() && text_[pos_] == c; }
  bool Take(char c) {
    if (!Peek(c)) return false;
    ++pos_;
    return true;
  }
  // Exactly `digits` decimal digits.
  bool Number(int digits, int64_t* out) {
    if (pos_ + static_cast<size_t>(digits) > text_.size()) return false;
    int64_t value = 0;
    for (int i = 0; i < digits; ++i) {
      const char c = text_[pos_ + static_cast<size_t>(i)];
      if (c < '0' || c > '9') return false;
      value = value * 10 + (c - '0');
    }
    pos_ += static_cast<size_t>(digits);
    *out = value;
    return true;
  }
  // min..max digits, as many as there are.
  int Digits(int max, int64_t* out) {
    int n = 0;
    int64_t value = 0;
    while (n < max && pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
      value = value * 10 + (text_[pos_] - '0');
      ++pos_;
      ++n;
    }
    *out = value;
    return n;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

Status Invalid(std::string_view text, const char* what, const char* why) {
  std::string shown(text.substr(0, 64));
  return Status::InvalidArgument(std::string(what) + " \"" + shown + (text.size() > 64 ? "...\"" : "\"") +
                                 ": " + why);
}

// HH:MM[:SS[.F]] -> microseconds since midnight.
bool ParseTimeOfDay(Scanner& s, int64_t* micros, bool* nanos_lost) {
  int64_t hour, minute, second = 0, fraction = 0;
  if (!s.Number(2, &hour) || !s.Take(':') || !s.Number(2, &minute)) return false;
  if (s.Take(':')) {
    if (!s.Number(2, &second)) return false;
    if (s.Take('.')) {
      int64_t digits_value = 0;
      const int digits = s.Digits(9, &digits_value);
      if (digits == 0) return false;
      int64_t nanos = digits_value;
      for (int i = digits; i < 9; ++i) nanos *= 10;
      *nanos_lost = nanos % 1000 != 0;
      fraction = nanos / 1000;
    }
  }
  if (hour > 23 || minute > 59 || second > 59) return false;
  *micros = ((hour * 60 + minute) * 60 + second) * kMicrosPerSecond + fraction;
  return true;
}

// Z | +HH[:MM[:SS]] | +HHMM -> offset in seconds east of UTC.
bool ParseOffset(Scanner& s, int64_t* seconds) {
  if (s.Take('Z')) {
    *seconds = 0;
    return true;
  }
  int sign = 1;
  if (s.Take('-')) {
    sign = -1;
  } else if (!s.Take('+')) {
    return false;
  }
  int64_t hours, minutes = 0, secs = 0;
  if (!s.Number(2, &hours)) return false;
  if (s.Take(':')) {
    if (!s.Number(2, &minutes)) return false;
    if (s.Take(':') && !s.Number(2, &secs)) return false;
  } else {
    s.Number(2, &minutes);  // +HHMM; absent minutes are 0
  }
  if (hours > 18 || minutes > 59 || secs > 59) return false;
  *seconds = sign * (hours * 3600 + minutes * 60 + secs);
  return *seconds >= -18 * 3600 && *seconds <= 18 * 3600;
}

// The time of day and offset that end both forms, to the end of the text:
// *utc_micros is the time of day in UTC (may leave [0, one day)).
Status ParseTimeAndOffset(Scanner& s, std::string_view text, const char* what, int64_t* utc_micros) {
  int64_t time_micros = 0;
  bool nanos_lost = false;
  if (!ParseTimeOfDay(s, &time_micros, &nanos_lost))
    return Invalid(text, what, "expected a time HH:MM[:SS[.F]]");
  int64_t offset = 0;
  if (!ParseOffset(s, &offset) || !s.done()) {
    return Invalid(text, what, "expected an offset (Z or +HH:MM) at the end");
  }
  if (nanos_lost) return Invalid(text, what, "has sub-microsecond digits; floe keeps microseconds");
  *utc_micros = time_micros - offset * kMicrosPerSecond;
  return Status::OK();
}

}  // namespace

Result<int64_t> ParseOffsetTimestampMicros(std::string_view text) {
  constexpr const char* kWhat = "ZonedTimestamp";
  Scanner s(text);
  int sign = 1;
  const bool signed_year = s.Peek('+') || s.Peek('-');
  if (s.Take('-')) {
    sign = -1;
  } else {
    s.Take('+');
  }
  int64_t year = 0;
  const int year_digits = s.Digits(9, &year);
  if (year_digits < 4 || (year_digits > 4 && !signed_year)) return Invalid(text, kWhat, "bad year");
  // Microseconds since the epoch fit int64 for about ±292,000 years.
  if (year > 290000) return Invalid(text, kWhat, "year out of range");
  year *= sign;
  int64_t month, day;
  if (!s.Take('-') || !s.Number(2, &month) || !s.Take('-') || !s.Number(2, &day)) {
    return Invalid(text, kWhat, "expected YYYY-MM-DD");
  }
  if (month < 1 || month > 12 || day < 1 || day > DaysInMonth(year, static_cast<int32_t>(month))) {
    return Invalid(text, kWhat, "no such date");
  }
  if (!s.Take('T')) return Invalid(text, kWhat, "expected 'T' after the date");
  int64_t local_micros = 0;
  FLOE_RETURN_IF_ERROR(ParseTimeAndOffset(s, text, kWhat, &local_micros));
  const int64_t days = DaysFromCivil(year, static_cast<int32_t>(month), static_cast<int32_t>(day));
  return days * kMicrosPerDay + local_micros;
}

Result<int64_t> ParseOffsetTimeMicros(std::string_view text) {
  Scanner s(text);
  int64_t micros = 0;
  FLOE_RETURN_IF_ERROR(ParseTimeAndOffset(s, text, "ZonedTime", &micros));
  return FloorMod(micros, kMicrosPerDay);
}

}  // namespace floe::connect
