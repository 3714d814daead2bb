// Lineage columns: where each table row came from and when it was loaded.
//
// Contract: the columns are _floe_source_file (string, the source file URI),
// _floe_source_row (long, the 0-based row in that file), _floe_source_modified
// (timestamptz, the file's modification time) and _floe_ingested_at
// (timestamptz, the batch's time), each present only when LineageConfig
// enables it. They are ordinary optional table columns: a table that lacks
// an enabled one gets it through schema evolution like any new column.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/spec/schema.h"
#include "ingest/config/config.h"
#include "ingest/schema/schema_reconcile.h"

namespace floe::ingest {

inline constexpr const char* kLineageSourceFile = "_floe_source_file";
inline constexpr const char* kLineageSourceRow = "_floe_source_row";
inline constexpr const char* kLineageSourceModified = "_floe_source_modified";
inline constexpr const char* kLineageIngestedAt = "_floe_ingested_at";

// Whether `name` is one of the lineage columns above (floe fills them, no unit does).
inline bool IsLineageColumn(std::string_view name) {
  return name == kLineageSourceFile || name == kLineageSourceRow || name == kLineageSourceModified ||
         name == kLineageIngestedAt;
}

// The enabled lineage columns `schema` lacks, as columns to add.
SchemaEvolution MissingLineageColumns(const LineageConfig& lineage, const iceberg::Schema& schema);

struct LineageValues {
  std::string source_file;
  int64_t source_modified_us = 0;
  int64_t ingested_at_us = 0;
};

// Overwrites the enabled lineage columns of `batch` (a batch of the table
// schema, so the columns exist) with `values`; `source_rows[i]` is the
// source row of batch row i.
Status FillLineageColumns(const LineageConfig& lineage, const LineageValues& values,
                          const std::vector<int64_t>& source_rows, RecordBatch* batch);

}  // namespace floe::ingest
