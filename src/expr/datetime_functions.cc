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

int64_t Truncate(const std::string& part, int64_t micros) {
  auto floor_to = [&](int64_t unit) { return FloorDiv(micros, unit) * unit; };
  if (part == "microsecond") return micros;
  if (part == "millisecond") return floor_to(1000);
  if (part == "second") return floor_to(kMicrosPerSecond);
  if (part == "minute") return floor_to(60 * kMicrosPerSecond);
  if (part == "hour") return floor_to(3600 * kMicrosPerSecond);
  const int64_t days = FloorDiv(micros, kMicrosPerDay);
  if (part == "day") return days * kMicrosPerDay;
  if (part == "week") return (days - FloorMod(days + 3, 7)) * kMicrosPerDay;  // 1970-01-01 was a Thursday
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
    year = FloorDiv(year - 1, 100) * 100 + 1;
  } else if (part == "millennium") {
    year = FloorDiv(year - 1, 1000) * 1000 + 1;
  }
  return DaysFromCivil(year, month, 1) * kMicrosPerDay;
}

}  // namespace

Result<Vector> EvalDatetimeFunction(const BoundExpr& e, const std::vector<Vector>& args, int64_t rows) {
  const Vector& x = args.back();
  const int64_t n = x.constant ? 1 : rows;
  const Column& c = x.col();
  const bool is_date = c.type.id == TypeId::kDate;
  auto micros = [&](int64_t i) {
    return is_date ? static_cast<int64_t>(c.Value<int32_t>(i)) * kMicrosPerDay : c.Value<int64_t>(i);
  };
  Column out(e.type);
  out.length = n;
  CombineValidity({&x}, n, &out);
  out.values.resize(static_cast<size_t>(n) * sizeof(int64_t));
  int64_t* o = reinterpret_cast<int64_t*>(out.values.data());
  if (e.function == FunctionId::kDateTrunc) {
    for (int64_t i = 0; i < n; ++i) o[i] = c.IsValid(i) ? Truncate(e.text, micros(i)) : 0;
  } else if (is_date && (e.function == FunctionId::kYear || e.function == FunctionId::kMonth ||
                         e.function == FunctionId::kDay)) {
    for (int64_t i = 0; i < n; ++i) {
      const CivilDate d = CivilFromDays(c.Value<int32_t>(i));
      o[i] = e.function == FunctionId::kYear ? d.year : e.function == FunctionId::kMonth ? d.month : d.day;
    }
  } else {
    for (int64_t i = 0; i < n; ++i) o[i] = Field(e.function, micros(i));
  }
  return OwnedVector(std::move(out), x.constant);
}

}  // namespace floe::expr
