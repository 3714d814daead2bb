// Calendar arithmetic of the proleptic Gregorian calendar, shared by every
// layer that turns days and instants into dates and back (JSON rendering,
// Iceberg transforms, the expression language).
//
// Contract: pure functions, thread-safe; FloorDiv/FloorMod need b > 0. Days
// count from 1970-01-01; years are astronomical (year 0 exists).
#pragma once

#include <cstdint>

namespace floe {

// Division rounding toward negative infinity, and its non-negative remainder
// for b > 0.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
// (From the remainder: a - FloorDiv(a, b) * b overflows near INT64_MIN.)
inline int64_t FloorMod(int64_t a, int64_t b) {
  const int64_t r = a % b;
  return r != 0 && ((r < 0) != (b < 0)) ? r + b : r;
}

struct CivilDate {
  int64_t year;
  int32_t month;  // 1..12
  int32_t day;    // 1..31
};

// Days <-> civil date after Howard Hinnant's public-domain algorithms; valid
// for every int32 day count and for |year| below 2^40.
inline CivilDate CivilFromDays(int64_t days) {
  days += 719468;
  const int64_t era = FloorDiv(days, 146097);
  const int64_t doe = days - era * 146097;
  const int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const int64_t mp = (5 * doy + 2) / 153;
  const int32_t day = static_cast<int32_t>(doy - (153 * mp + 2) / 5 + 1);
  const int32_t month = static_cast<int32_t>(mp < 10 ? mp + 3 : mp - 9);
  const int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  return {year, month, day};
}

inline int64_t DaysFromCivil(int64_t year, int32_t month, int32_t day) {
  year -= month <= 2 ? 1 : 0;
  const int64_t era = FloorDiv(year, 400);
  const int64_t yoe = year - era * 400;
  const int64_t mp = month > 2 ? month - 3 : month + 9;
  const int64_t doy = (153 * mp + 2) / 5 + day - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

// Days in `month` (1..12) of `year`.
inline int32_t DaysInMonth(int64_t year, int32_t month) {
  static constexpr int32_t kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[month - 1];
}

}  // namespace floe
