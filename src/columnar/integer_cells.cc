#include "columnar/integer_cells.h"

#include <limits>

namespace floe {

bool IsIntegerType(const DataType& type) {
  switch (type.id) {
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

std::optional<int64_t> IntegerCell(const Column& column, int64_t row) {
  switch (column.type.id) {
    case TypeId::kInt8: return column.Value<int8_t>(row);
    case TypeId::kInt16: return column.Value<int16_t>(row);
    case TypeId::kInt32: return column.Value<int32_t>(row);
    case TypeId::kInt64: return column.Value<int64_t>(row);
    case TypeId::kUInt8: return column.Value<uint8_t>(row);
    case TypeId::kUInt16: return column.Value<uint16_t>(row);
    case TypeId::kUInt32: return column.Value<uint32_t>(row);
    case TypeId::kUInt64: {
      const uint64_t v = column.Value<uint64_t>(row);
      if (v > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return std::nullopt;
      return static_cast<int64_t>(v);
    }
    default: return std::nullopt;
  }
}

}  // namespace floe
