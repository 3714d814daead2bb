// Readers of delete files for scans: position delete files (Parquet),
// deletion vectors (Puffin, see deletion_vector.h) and equality delete files.
//
// Contract: files are untrusted; columns are found by Iceberg field id
// (falling back to the column name when the file has no ids), a null in a
// required delete column or a missing column is Corruption naming the file.
// Used by scans, the key-index rebuild and compaction; the deletion-vector
// codec they share with the writers lives in iceberg/puffin.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/spec/schema.h"
#include "io/file_io.h"

namespace floe::iceberg {

// Data file path -> its deleted positions, sorted and unique. For a
// deletion vector (file_format PUFFIN) the single referenced data file.
Result<std::map<std::string, std::vector<int64_t>>> ReadPositionDeletes(FileIO& io, const DataFile& file);

// The rows of an equality delete file projected on its equality_ids (in
// that order), columns typed as the file stores them; `table_schema` names
// the columns of files written without field ids.
Result<RecordBatch> ReadEqualityDeletes(FileIO& io, const DataFile& file, const Schema& table_schema);

}  // namespace floe::iceberg
