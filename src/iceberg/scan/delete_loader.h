// Equality deletes for scans: key sets of deleted rows. (The delete files
// themselves are read by delete_readers.h.)
//
// Contract: equality delete files
// are read by field id onto the table schema's types (so a promoted column
// still matches) and keyed by their equality_ids; EqualityKey gives the same
// key for equal values, with null equal to null as the spec requires.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/spec/schema.h"
#include "io/file_io.h"

namespace floe::iceberg {

// Keys of deleted rows, per set of equality field ids.
using EqualityDeleteSets = std::map<std::vector<int32_t>, std::set<std::string>>;

// Adds the rows of `delete_file` to `sets`, typed by `schema`.
Status LoadEqualityDeletes(FileIO& io, const DataFile& delete_file, const Schema& schema,
                           EqualityDeleteSets* sets);

// The key of row `row` over `columns` (one per equality id, typed by `types`).
Result<std::string> EqualityKey(const std::vector<const Column*>& columns, const std::vector<Type>& types,
                                int64_t row);

}  // namespace floe::iceberg
