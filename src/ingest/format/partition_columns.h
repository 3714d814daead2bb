// PartitionColumnsReader: a ChunkedReader decorator that adds a unit's Hive
// partition values (the key=value folders its discovery found, SourceUnit::
// partition_values) as constant columns of every row, so they reach the
// table like any other column and can be keys or partition_by sources.
//
// Contract: each partition key becomes a column named after the key,
// appended after the file's columns in folder order (outermost first),
// unless the file already has a column of that name (compared ignoring
// case): the file's value wins and the folder is ignored. The column's type
// is `types[key]` ("string", "int", "long", "date", "boolean", "double"),
// else inferred from the value alone: an integer within int32 is int, a
// wider one long, a valid yyyy-MM-dd date, anything else string (so one
// folder of a key can infer another type than its siblings: pin it in
// [source] partition_column_types when values vary). A value that does not
// parse as its pinned type is an error naming the unit, the key and the
// value (from Wrap, so the unit is quarantined). Hive's null folder
// (__HIVE_DEFAULT_PARTITION__) and an empty value are nulls. ReadChunk
// builds the constant columns for the chunk's row count. Not thread-safe
// (like any ChunkedReader).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "formats/chunked_reader.h"

namespace floe::ingest {

// `reader` with the partition columns of `values`; the reader itself when
// no value adds a column. `unit` names the unit in errors.
Result<std::unique_ptr<formats::ChunkedReader>> WithPartitionColumns(
    std::unique_ptr<formats::ChunkedReader> reader, const std::string& unit,
    const std::vector<std::pair<std::string, std::string>>& values,
    const std::map<std::string, std::string>& types);

}  // namespace floe::ingest
