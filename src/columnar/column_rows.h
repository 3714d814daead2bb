// Row selection on floe columns, for routing rows to partitions and cutting
// batches into pieces.
//
// Contract: TakeRows returns a column of the same type holding rows
// `indices` (each in [0, column.length), in the given order, repeats allowed)
// with list/map children and struct members carried along; the result
// satisfies Column::Validate. Indices out of range are InvalidArgument.
#pragma once

#include <cstdint>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"

namespace floe {

Result<Column> TakeRows(const Column& column, const std::vector<int64_t>& indices);
Result<RecordBatch> TakeBatchRows(const RecordBatch& batch, const std::vector<int64_t>& indices);
// Appends every row of `source` to `*target` (same type), recursively.
Status AppendColumn(const Column& source, Column* target);
// One batch holding the rows of `batches` (all with the same schema) in order.
Result<RecordBatch> ConcatBatches(const std::vector<RecordBatch>& batches);
// Rows [begin, end) of the batch.
Result<RecordBatch> SliceBatch(const RecordBatch& batch, int64_t begin, int64_t end);

}  // namespace floe
