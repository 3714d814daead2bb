#include "expr/constants.h"

namespace floe::expr {

Column NullConstant(const DataType& type) {
  Column c = MakeEmptyColumn(type);
  c.AppendNull();
  return c;
}

Column BoolConstant(bool value) {
  Column c(Bool());
  c.AppendValue<uint8_t>(value ? 1 : 0);
  return c;
}

Column Int32Constant(int32_t value) {
  Column c(Int32());
  c.AppendValue(value);
  return c;
}

Column Int64Constant(int64_t value) {
  Column c(Int64());
  c.AppendValue(value);
  return c;
}

Column DoubleConstant(double value) {
  Column c(Float64());
  c.AppendValue(value);
  return c;
}

Column DecimalConstant(int32_t precision, int32_t scale, Int128 unscaled) {
  Column c(Decimal(precision, scale));
  c.AppendValue(unscaled);
  return c;
}

Column StringConstant(std::string_view value) {
  Column c(String());
  c.AppendBytes(value);
  return c;
}

Column DateConstant(int32_t days) {
  Column c(Date());
  c.AppendValue(days);
  return c;
}

Column TimestampConstant(int64_t micros, bool utc) {
  Column c(Timestamp(TimeUnit::kMicro, utc));
  c.AppendValue(micros);
  return c;
}

}  // namespace floe::expr
