// Integer cells of a column widened to int64: key columns, operation codes,
// numeric ordering values and Kafka Connect values all read integers this way.
//
// Contract: IsIntegerType is true for int8..int64 and uint8..uint64.
// IntegerCellAt reads slot `row` of a column whose type is one of those, a
// date (int32 days), a time or a timestamp (int64 in the column's unit):
// signed values are sign-extended, unsigned zero-extended, and a uint64 at
// or above 2^63 comes back as its two's-complement int64. The caller has
// checked the type and that the row exists (row < length, values long
// enough): this sits in the per-row loops of the merge. IntegerCell is the
// checked form for integer types only: nullopt for any other type and for a
// uint64 value above INT64_MAX (valid rows only: the caller checks nulls).
// Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>

#include "columnar/column.h"

namespace floe {

inline bool IsIntegerType(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64: return true;
    default: return false;
  }
}
inline bool IsIntegerType(const DataType& type) {
  return IsIntegerType(type.id);
}

inline int64_t IntegerCellAt(const Column& column, int64_t row) {
  switch (column.type.id) {
    case TypeId::kInt8: return column.Value<int8_t>(row);
    case TypeId::kInt16: return column.Value<int16_t>(row);
    case TypeId::kInt32:
    case TypeId::kDate: return column.Value<int32_t>(row);
    case TypeId::kUInt8: return column.Value<uint8_t>(row);
    case TypeId::kUInt16: return column.Value<uint16_t>(row);
    case TypeId::kUInt32: return column.Value<uint32_t>(row);
    case TypeId::kUInt64: return static_cast<int64_t>(column.Value<uint64_t>(row));
    default: return column.Value<int64_t>(row);  // int64, time, timestamp
  }
}

std::optional<int64_t> IntegerCell(const Column& column, int64_t row);

}  // namespace floe
