// Dates, times and timestamps written as text: ISO 8601 (the fast path) and
// strftime-style formats (`date_format` / `timestamp_format`).
//
// Contract:
// - ISO forms: date "YYYY-MM-DD"; time "HH:MM[:SS[.f{1,9}]]"; timestamp
//   date, 'T' or ' ', time, then an optional zone: "Z", "+HH", "+HHMM",
//   "+HH:MM" (or '-'), optionally after one space, or " UTC". A date alone is
//   also a timestamp (midnight). Calendar values are checked (month 1-12, day
//   within its month, leap years; hour 0-23, minute and second 0-59).
// - Format strings use strftime directives: %Y %y %m %d %e %j %H %I %M %S %f
//   %p %b %h %B %a %A %z %Z %T %F %D %%. %f takes 1-9 fraction digits; %S
//   also takes a ".fraction" after the seconds when the format does not say
//   what follows them; %y maps 69-99 to 19xx and 00-68 to 20xx; %z takes "Z",
//   "+HH", "+HHMM", "+HH:MM"; %Z takes "UTC", "GMT" or "Z". Any other
//   character matches itself. Parsing consumes the whole text.
// - A parsed timestamp keeps its zone offset and how many fraction digits it
//   had; converting it to a column unit fails (rather than rounds) when
//   non-zero digits below the unit would be lost or the value overflows.
// TemporalFormat is immutable after Compile and safe to share between threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/types.h"
#include "common/status.h"

namespace floe::formats {

struct TimestampText {
  int64_t days = 0;          // the local date, days since 1970-01-01
  int64_t nanos_of_day = 0;  // [0, 86400e9)
  bool has_zone = false;
  int32_t offset_seconds = 0;   // local = UTC + offset
  int32_t fraction_digits = 0;  // digits after the seconds' point in the text
  bool has_time = false;        // false for a date alone
};

bool ParseIsoDate(std::string_view text, int32_t* days);
bool ParseIsoTime(std::string_view text, int64_t* nanos_of_day, int32_t* fraction_digits);
bool ParseIsoTimestamp(std::string_view text, TimestampText* out);

// The value of `ts` in `unit` since the epoch. For a UTC column a zoned text
// is converted to UTC and a text without zone is taken as UTC; a zoned text
// into a local (non-UTC) column does not fit. False on lost digits or overflow.
bool TimestampTextToUnit(const TimestampText& ts, TimeUnit unit, bool utc_column, int64_t* out);
// The shape most timestamps are written in, "YYYY-MM-DD HH:MM:SS" ('T' or
// ' ') with 0-8 fraction digits and no zone, straight to `unit` since the
// epoch: what ParseIsoTimestamp and TimestampTextToUnit give for it, read
// at fixed offsets a word at a time. False for any other text and whenever
// those would fail (lost digits, overflow, no such date): the caller then
// takes the general path, which decides.
bool CommonIsoTimestampToUnit(std::string_view text, TimeUnit unit, int64_t* out);
// Time of day in `unit`; false when digits below the unit would be lost.
bool TimeOfDayToUnit(int64_t nanos_of_day, TimeUnit unit, int64_t* out);

class TemporalFormat {
 public:
  // InvalidArgument naming the directive when `format` uses one not listed above.
  static Result<TemporalFormat> Compile(std::string_view format);

  // Parses a whole text; a format without a date part leaves days = 0.
  bool Parse(std::string_view text, TimestampText* out) const;

  const std::string& text() const { return text_; }
  bool has_zone() const { return has_zone_; }
  bool has_time() const { return has_time_; }
  bool has_date() const { return has_date_; }

  struct Item {
    char directive = 0;  // 0 = literal
    char literal = 0;
    bool fraction_may_follow = false;  // %S not followed by a literal '.'
  };

 private:
  std::string text_;
  std::vector<Item> items_;
  bool has_zone_ = false;
  bool has_time_ = false;
  bool has_date_ = false;
};

}  // namespace floe::formats
