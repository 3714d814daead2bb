#include "expr/datetime_functions.h"

#include "columnar/calendar.h"

namespace floe::expr {
namespace {

constexpr int64_t kMicrosPerSecond = 1000000;
constexpr int64_t kMicrosPerDay = 86400 * kMicrosPerSecond;

int64_t Field(FunctionId f, int64_t micros) {
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  const int64_t of_day = micros - days * kMicrosPerDay;
  switch (f) {
    case FunctionId::kYear: return CivilFromDays(days).year;
    case FunctionId::kMonth: return CivilFromDays(days).month;
    case FunctionId::kDay: return CivilFromDays(days).day;
    case FunctionId::kHour: return of_day / (3600 * kMicrosPerSecond);
    case FunctionId::kMinute: return of_day / (60 * kMicrosPerSecond) % 60;
    case FunctionId::kSecond: return of_day / kMicrosPerSecond % 60;
    default: return 0;
  }
}

// Days (or a day count times a unit) back to microseconds; false when the
// result leaves the int64 range (dates and instants near the ends).
bool DaysToMicros(int64_t days, int64_t* out) {
  return !__builtin_mul_overflow(days, kMicrosPerDay, out);
}

bool Truncate(const std::string& part, int64_t micros, int64_t* out) {
  auto floor_to = [&](int64_t unit) { return !__builtin_mul_overflow(FloorDiv(micros, unit), unit, out); };
  if (part == "microsecond") {
    *out = micros;
    return true;
  }
  if (part == "millisecond") return floor_to(1000);
  if (part == "second") return floor_to(kMicrosPerSecond);
  if (part == "minute") return floor_to(60 * kMicrosPerSecond);
  if (part == "hour") return floor_to(3600 * kMicrosPerSecond);
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  if (part == "day") return DaysToMicros(days, out);
  if (part == "week") return DaysToMicros(days - FloorMod(days + 3, 7), out);  // 1970-01-01 was a Thursday
  const CivilDate d = CivilFromDays(days);
  int64_t year = d.year;
  int32_t month = 1;
  if (part == "month") {
    month = d.month;
  } else if (part == "quarter") {
    month = (d.month - 1) / 3 * 3 + 1;
  } else if (part == "decade") {
    year = year - FloorMod(year, 10);
  } else if (part == "century") {
    year = FloorDiv(year, 100) * 100;
  } else if (part == "millennium") {
    year = FloorDiv(year, 1000) * 1000;
  }
  return DaysToMicros(DaysFromCivil(year, month, 1), out);
}

}  // namespace

Result<Vector> EvalDatetimeFunction(const BoundExpr& e, const std::vector<Vector>& args, int64_t rows,
                                    const EvalScope& scope) {
  const Vector& x = args.back();
  const int64_t n = x.constant ? 1 : rows;
  const Column& c = x.col();
  const bool is_date = c.type.id == TypeId::kDate;
  Column out(e.type);
  out.length = n;
  CombineValidity({&x}, n, &out);
  out.values.resize(static_cast<size_t>(n) * sizeof(int64_t));
  int64_t* o = reinterpret_cast<int64_t*>(out.values.data());
  auto out_of_range = [&](int64_t i) {
    return scope.RowError(
        ErrorKind::kOutOfRange, i,
        std::string(is_date ? "date " : "timestamp ") + "out of range for " +
            (e.function == FunctionId::kDateTrunc ? "date_trunc('" + e.text + "')" : "a timestamp"));
  };
  for (int64_t i = 0; i < n; ++i) {
    o[i] = 0;
    if (!c.IsValid(i)) continue;
    if (is_date && e.function != FunctionId::kDateTrunc) {
      const int32_t days = c.Value<int32_t>(i);
      const CivilDate d = CivilFromDays(days);
      switch (e.function) {
        case FunctionId::kYear: o[i] = d.year; break;
        case FunctionId::kMonth: o[i] = d.month; break;
        case FunctionId::kDay: o[i] = d.day; break;
        default: o[i] = 0; break;  // a date's hour, minute and second
      }
      continue;
    }
    int64_t micros = 0;
    if (is_date) {
      if (!DaysToMicros(c.Value<int32_t>(i), &micros)) return out_of_range(i);
    } else {
      micros = c.Value<int64_t>(i);
    }
    if (e.function == FunctionId::kDateTrunc) {
      if (!Truncate(e.text, micros, &o[i])) return out_of_range(i);
    } else {
      o[i] = Field(e.function, micros);
    }
  }
  return OwnedVector(std::move(out), x.constant);
}

}  // namespace floe::expr
