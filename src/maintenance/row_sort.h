// Sorting the rows of a record batch by top-level primitive columns, for
// compaction's optional sort order.
//
// Contract: ascending, nulls first, stable (rows that compare equal keep
// their order); integers, dates, times and timestamps compare as signed
// numbers, unsigned integers as unsigned, floats numerically with NaN last,
// decimals as 128-bit integers, strings/binary/fixed/uuid bytewise. Nested
// columns cannot be sort keys (InvalidArgument naming the column).
#pragma once

#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"

namespace floe::maintenance {

// OK when `column` is a top-level primitive column of `schema`.
Status CheckSortColumn(const Schema& schema, const std::string& column);

// The rows of `batch` ordered by `columns` (first column first).
Result<RecordBatch> SortBatch(const RecordBatch& batch, const std::vector<std::string>& columns);

}  // namespace floe::maintenance
