// What the stream record fuzz targets check of a decoded range: every record
// is a row, a dead letter or a tombstone, exactly once, and every row column
// is consistent.
#pragma once

#include <cstddef>

#include "fuzz_checks.h"
#include "ingest/stream/stream_records.h"

namespace floe::fuzzing {

inline void CheckDecodedRecords(const ingest::DecodedRecords& decoded, size_t records) {
  CHECK_PROPERTY(decoded.rows.num_rows + decoded.dead_letters.num_rows + decoded.tombstones ==
                 static_cast<int64_t>(records));
  for (const Column& column : decoded.rows.columns) {
    CHECK_PROPERTY(column.length == decoded.rows.num_rows && column.Validate().empty());
  }
}

}  // namespace floe::fuzzing
