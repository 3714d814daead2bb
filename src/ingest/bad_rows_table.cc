#include "ingest/bad_rows_table.h"

#include "iceberg/spec/random_ids.h"
#include "iceberg/transaction/table.h"
#include "iceberg/writer/data_file_writer.h"
#include "ingest/batch_recovery.h"

namespace floe::ingest {

namespace {

iceberg::Schema BadRowsSchema() {
  iceberg::Schema schema;
  schema.fields = {
      iceberg::MakeNestedField(1, "file", iceberg::PrimitiveType(iceberg::TypeKind::kString), true),
      iceberg::MakeNestedField(2, "row", iceberg::PrimitiveType(iceberg::TypeKind::kLong), true),
      iceberg::MakeNestedField(3, "reason", iceberg::PrimitiveType(iceberg::TypeKind::kString), true),
      iceberg::MakeNestedField(4, "recorded_at", iceberg::PrimitiveType(iceberg::TypeKind::kTimestampTz),
                               false),
  };
  return schema;
}

Result<iceberg::Table> LoadOrCreate(catalog::Catalog& catalog, const catalog::TableIdentifier& id) {
  auto ops = catalog.LoadTable(id);
  if (!ops.ok() && ops.status().kind() == ErrorKind::kNotFound) {
    catalog::TableCreation creation;
    creation.schema = BadRowsSchema();
    creation.format_version = 2;
    creation.properties["write.parquet.compression-codec"] = "zstd";
    ops = catalog.CreateTable(id, creation);
    // Another process may have created it since we looked.
    if (!ops.ok() && ops.status().kind() == ErrorKind::kAlreadyExists) ops = catalog.LoadTable(id);
  }
  if (!ops.ok()) return ops.status();
  return iceberg::Table::Load(std::move(ops).value());
}

}  // namespace

catalog::TableIdentifier BadRowsTableOf(const catalog::TableIdentifier& target) {
  catalog::TableIdentifier id = target;
  id.name += kBadRowsTableSuffix;
  return id;
}

Result<std::optional<int64_t>> AppendBadRows(catalog::Catalog& catalog,
                                             const catalog::TableIdentifier& target,
                                             const std::string& pipeline, int64_t batch_id,
                                             const std::vector<LedgerBadRow>& rows, int64_t now_ms) {
  const catalog::TableIdentifier id = BadRowsTableOf(target);
  const std::string name = id.ToString();
  if (rows.empty()) return std::optional<int64_t>();
  FLOE_ASSIGN_OR_RETURN(std::optional<int64_t> committed,
                        FindCommittedBatch(catalog, id, pipeline, batch_id));
  if (committed) return std::optional<int64_t>();
  auto table = LoadOrCreate(catalog, id);
  if (!table.ok()) return table.status().WithContext("bad-rows table " + name);
  const iceberg::TableMetadata& metadata = table->metadata();
  const iceberg::Schema* schema = metadata.CurrentSchema();
  if (schema == nullptr) return Status::Corruption("bad-rows table " + name + " has no schema");
  auto floe_schema = iceberg::ToFloeSchema(*schema);
  if (!floe_schema.ok()) return floe_schema.status().WithContext("bad-rows table " + name);

  RecordBatch batch;
  batch.schema = *floe_schema;
  for (const Field& field : batch.schema) batch.columns.push_back(MakeEmptyColumn(field.type));
  for (const Field& field : batch.schema) {
    if (field.name != "file" && field.name != "row" && field.name != "reason" &&
        field.name != "recorded_at") {
      return Status::InvalidArgument("bad-rows table " + name + " has a column " + field.name +
                                     " floe does not write (its columns are file, row, reason, recorded_at)");
    }
  }
  for (const LedgerBadRow& bad : rows) {
    for (size_t c = 0; c < batch.schema.size(); ++c) {
      const std::string& column = batch.schema[c].name;
      Column& out = batch.columns[c];
      if (column == "file") out.AppendBytes(bad.uri);
      if (column == "row") out.AppendValue<int64_t>(bad.row);
      if (column == "reason") out.AppendBytes(bad.reason);
      if (column == "recorded_at") out.AppendValue<int64_t>(now_ms * 1000);
    }
  }
  batch.num_rows = static_cast<int64_t>(rows.size());

  const std::string path = metadata.location + "/data/b" + std::to_string(batch_id) + "-" +
                           iceberg::NewUuidV4() + "-bad-rows.parquet";
  iceberg::DataFileWriterOptions options;
  options.parquet.codec = Codec::kZstd;
  options.spec_id = metadata.default_spec_id;
  auto writer = iceberg::DataFileWriter::Open(table->io(), path, *schema, {}, options);
  if (!writer.ok()) return writer.status().WithContext("bad-rows table " + name);
  Status written = (*writer)->Write(batch);
  if (!written.ok()) {
    (*writer)->Abort();
    return written.WithContext("bad-rows table " + name);
  }
  auto file = (*writer)->Close();
  if (!file.ok()) return file.status().WithContext("bad-rows table " + name);
  auto snapshot = table->NewFastAppend()
                      .AppendFile(*file)
                      .Set(kSummaryPipeline, pipeline)
                      .Set(kSummaryBatchId, std::to_string(batch_id))
                      .Commit();
  if (!snapshot.ok()) {
    if (snapshot.status().kind() != ErrorKind::kCommitStateUnknown) (void)table->io().Delete(path);
    return snapshot.status().WithContext("committing bad rows of batch " + std::to_string(batch_id) + " to " +
                                         name);
  }
  return std::optional<int64_t>(snapshot->snapshot_id);
}

}  // namespace floe::ingest
