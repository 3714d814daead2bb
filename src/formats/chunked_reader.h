// ChunkedReader: the format axis of the source model. One unit of input (a
// landing-zone file, or a buffer of stream records) decoded into record
// batches of one schema, one chunk at a time.
//
// Contract:
// - A reader is opened by its format (Parquet, JSON lines, CSV, Avro, ...)
//   over bytes it does not know the origin of; it never lists, waits or
//   retries. schema(), num_chunks(), chunk_rows() and chunk_bytes() are known
//   once Open returned, and do not change.
// - A chunk is the unit of reading and of memory: a Parquet row group, or a
//   run of rows a row format cuts the input into. ReadChunk(i, columns)
//   returns chunk i with the top-level fields `columns` (indexes into
//   schema(), in that order; empty = every field); its num_rows is
//   chunk_rows(i). Chunks may be read in any order and more than once, so a
//   caller can read a few key columns first and the whole rows later.
// - chunk_bytes(i) estimates chunk i's decoded size (read-ahead budgeting);
//   0 when unknown.
// - Errors name the unit (file or stream position) and, where they concern
//   data, the column and row or line. The bytes are untrusted: a reader
//   never crashes, hangs or allocates without bound on any input.
// Not thread-safe: one reader per thread (different readers run concurrently).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"

namespace floe::formats {

class ChunkedReader {
 public:
  virtual ~ChunkedReader() = default;

  virtual const Schema& schema() const = 0;
  virtual int num_chunks() const = 0;
  virtual int64_t chunk_rows(int chunk) const = 0;
  virtual int64_t chunk_bytes(int chunk) const = 0;
  virtual Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) = 0;
};

// ReadChunk's column selection for a reader that holds its chunks decoded:
// the top-level fields `columns` of `rows` (empty = every field), or
// InvalidArgument naming an index outside the schema.
inline Result<RecordBatch> SelectChunkColumns(const RecordBatch& rows, const std::vector<int>& columns) {
  if (columns.empty()) return rows;
  RecordBatch out;
  out.num_rows = rows.num_rows;
  for (int column : columns) {
    if (column < 0 || static_cast<size_t>(column) >= rows.columns.size()) {
      return Status::InvalidArgument("column " + std::to_string(column) + " out of range");
    }
    out.schema.push_back(rows.schema[static_cast<size_t>(column)]);
    out.columns.push_back(rows.columns[static_cast<size_t>(column)]);
  }
  return out;
}

}  // namespace floe::formats
