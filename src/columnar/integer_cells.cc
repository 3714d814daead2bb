#include "columnar/integer_cells.h"

#include <limits>

namespace floe {

std::optional<int64_t> IntegerCell(const Column& column, int64_t row) {
  if (!IsIntegerType(column.type)) return std::nullopt;
  if (column.type.id == TypeId::kUInt64 &&
      column.Value<uint64_t>(row) > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return std::nullopt;
  }
  return IntegerCellAt(column, row);
}

}  // namespace floe
