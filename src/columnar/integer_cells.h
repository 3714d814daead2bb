// Reading integer cells of any width and signedness as int64.
//
// Contract: IsIntegerType is true for int8..int64 and uint8..uint64.
// IntegerCell(column, row) of such a column returns the value at `row`
// (valid rows only: the caller checks nulls), or nullopt for a uint64 value
// above INT64_MAX. Pure functions; thread-safe.
#pragma once

#include <cstdint>
#include <optional>

#include "columnar/column.h"

namespace floe {

bool IsIntegerType(const DataType& type);
std::optional<int64_t> IntegerCell(const Column& column, int64_t row);

}  // namespace floe
