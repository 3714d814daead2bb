// One-row constant columns: how the binder holds literal values.
//
// Contract: each factory returns a Column of exactly one slot of the named
// canonical type. Pure, thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "columnar/column.h"
#include "expr/value_text.h"

namespace floe::expr {

Column NullConstant(const DataType& type);
Column BoolConstant(bool value);
Column Int32Constant(int32_t value);
Column Int64Constant(int64_t value);
Column DoubleConstant(double value);
Column DecimalConstant(int32_t precision, int32_t scale, Int128 unscaled);
Column StringConstant(std::string_view value);
Column DateConstant(int32_t days);
Column TimestampConstant(int64_t micros, bool utc);

}  // namespace floe::expr
