// Builders shared by the ingest_schema tests: table schemas, columns,
// batches, and the Reconcile -> EvolveSchema -> ConformBatch round trip.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ingest/schema/schema_reconcile.h"
#include "test_util.h"

namespace floe::ingest::schema_test {

using iceberg::DecimalType;
using iceberg::MakeNestedField;
using iceberg::PrimitiveType;
using iceberg::TypeKind;

constexpr const char* kUri = "s3://b/x/part-0.parquet";

inline iceberg::Schema TableSchema(std::vector<iceberg::NestedField> fields) {
  iceberg::Schema schema;
  schema.schema_id = 3;
  schema.fields = std::move(fields);
  return schema;
}

inline iceberg::NestedField Col(int32_t id, std::string name, TypeKind kind, bool required = false) {
  return MakeNestedField(id, std::move(name), PrimitiveType(kind), required);
}

inline ReconcileOptions Options(IncompatiblePolicy policy = IncompatiblePolicy::kRescue,
                                int format_version = 2) {
  ReconcileOptions options;
  options.policy = policy;
  options.protected_columns = {"id", "gwcbi___seqval_hex", "gwcbi___operation"};
  options.table_name = "db.t";
  options.format_version = format_version;
  return options;
}

template <typename T>
inline Column Values(DataType type, const std::vector<T>& values, const std::vector<bool>& nulls = {}) {
  Column c(std::move(type));
  for (size_t i = 0; i < values.size(); ++i) {
    if (i < nulls.size() && nulls[i]) {
      c.AppendNull();
    } else {
      c.AppendValue<T>(values[i]);
    }
  }
  return c;
}

inline Column Strings(const std::vector<std::string>& values, const std::vector<bool>& nulls = {}) {
  Column c(String());
  for (size_t i = 0; i < values.size(); ++i) {
    if (i < nulls.size() && nulls[i]) {
      c.AppendNull();
    } else {
      c.AppendBytes(values[i]);
    }
  }
  return c;
}

inline RecordBatch Batch(std::vector<Field> schema, std::vector<Column> columns) {
  RecordBatch batch;
  batch.num_rows = columns.empty() ? 0 : columns[0].length;
  batch.schema = std::move(schema);
  batch.columns = std::move(columns);
  return batch;
}

// Reconcile, evolve and conform in one go, as the table ingestor does.
struct Conformed {
  FileMapping mapping;
  iceberg::Schema schema;
  RecordBatch batch;
};

inline Result<Conformed> ReconcileAndConform(const iceberg::Schema& table, const RecordBatch& source,
                                             const ReconcileOptions& options = Options()) {
  Conformed out;
  FLOE_ASSIGN_OR_RETURN(out.mapping, Reconcile(table, source.schema, kUri, options));
  FLOE_ASSIGN_OR_RETURN(out.schema, EvolveSchema(table, table.HighestFieldId(), {out.mapping.evolution},
                                                 options.format_version));
  FLOE_ASSIGN_OR_RETURN(out.batch, ConformBatch(source, out.mapping, out.schema));
  return out;
}

inline int64_t FindColumn(const RecordBatch& batch, const std::string& name) {
  for (size_t i = 0; i < batch.schema.size(); ++i) {
    if (batch.schema[i].name == name) return static_cast<int64_t>(i);
  }
  return -1;
}

inline __int128 DecimalAt(const Column& c, int64_t row) {
  __int128 v;
  std::memcpy(&v, c.values.data() + row * 16, 16);
  return v;
}

inline void ExpectValid(const RecordBatch& batch) {
  for (const Column& c : batch.columns) {
    EXPECT_EQ(c.Validate(), "");
    EXPECT_EQ(c.length, batch.num_rows);
  }
}

}  // namespace floe::ingest::schema_test
