#include "ingest/lineage_columns.h"

namespace floe::ingest {

namespace {

struct LineageColumn {
  const char* name;
  iceberg::TypeKind kind;
  bool LineageConfig::*enabled;
};

constexpr LineageColumn kLineageColumns[] = {
    {kLineageSourceFile, iceberg::TypeKind::kString, &LineageConfig::source_file},
    {kLineageSourceRow, iceberg::TypeKind::kLong, &LineageConfig::row_number},
    {kLineageSourceModified, iceberg::TypeKind::kTimestampTz, &LineageConfig::file_modified},
    {kLineageIngestedAt, iceberg::TypeKind::kTimestampTz, &LineageConfig::ingested_at},
};

int FindBatchColumn(const RecordBatch& batch, const char* name) {
  for (size_t i = 0; i < batch.schema.size(); ++i) {
    if (batch.schema[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

}  // namespace

SchemaEvolution MissingLineageColumns(const LineageConfig& lineage, const iceberg::Schema& schema) {
  SchemaEvolution evolution;
  for (const LineageColumn& column : kLineageColumns) {
    if (!(lineage.*column.enabled) || schema.FindFieldByName(column.name) != nullptr) continue;
    evolution.added.push_back({column.name, iceberg::PrimitiveType(column.kind)});
  }
  return evolution;
}

Status FillLineageColumns(const LineageConfig& lineage, const LineageValues& values,
                          const std::vector<int64_t>& source_rows, RecordBatch* batch) {
  if (static_cast<int64_t>(source_rows.size()) != batch->num_rows) {
    return Status::Internal("lineage: " + std::to_string(source_rows.size()) +
                            " source rows for a batch of " + std::to_string(batch->num_rows));
  }
  for (const LineageColumn& lineage_column : kLineageColumns) {
    if (!(lineage.*lineage_column.enabled)) continue;
    const int index = FindBatchColumn(*batch, lineage_column.name);
    if (index < 0) {
      return Status::Internal(std::string("lineage column ") + lineage_column.name +
                              " is missing from the table schema");
    }
    Column column = MakeEmptyColumn(batch->schema[static_cast<size_t>(index)].type);
    for (int64_t row = 0; row < batch->num_rows; ++row) {
      switch (lineage_column.kind) {
        case iceberg::TypeKind::kString: column.AppendBytes(values.source_file); break;
        case iceberg::TypeKind::kLong:
          column.AppendValue<int64_t>(source_rows[static_cast<size_t>(row)]);
          break;
        default:
          column.AppendValue<int64_t>(lineage_column.name == std::string_view(kLineageSourceModified)
                                          ? values.source_modified_us
                                          : values.ingested_at_us);
          break;
      }
    }
    batch->columns[static_cast<size_t>(index)] = std::move(column);
  }
  return Status::OK();
}

}  // namespace floe::ingest
