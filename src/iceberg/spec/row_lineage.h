// Row lineage (format v3, spec "Row Lineage"): the metadata columns a data
// file may carry so that every row keeps its identity when it is rewritten.
//
// Contract: _row_id (field id 2147483540) and _last_updated_sequence_number
// (2147483539) are optional longs. A null (or absent) _row_id reads as the
// data file's first_row_id plus the row's position; a null
// _last_updated_sequence_number as the file's data sequence number. A writer
// that moves a row to another file without changing it copies both values
// (maintenance/compaction.cc does). Constants only: thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "iceberg/spec/types.h"

namespace floe::iceberg {

inline constexpr int32_t kRowIdFieldId = 2147483540;
inline constexpr int32_t kLastUpdatedSequenceNumberFieldId = 2147483539;
inline constexpr const char* kRowIdColumn = "_row_id";
inline constexpr const char* kLastUpdatedSequenceNumberColumn = "_last_updated_sequence_number";

// _row_id, then _last_updated_sequence_number, as optional long fields.
inline std::vector<NestedField> RowLineageFields() {
  Type long_type;
  long_type.kind = TypeKind::kLong;
  NestedField row_id;
  row_id.id = kRowIdFieldId;
  row_id.name = kRowIdColumn;
  row_id.type = long_type;
  NestedField sequence;
  sequence.id = kLastUpdatedSequenceNumberFieldId;
  sequence.name = kLastUpdatedSequenceNumberColumn;
  sequence.type = long_type;
  return {row_id, sequence};
}

}  // namespace floe::iceberg
