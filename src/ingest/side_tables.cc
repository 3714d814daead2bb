#include "ingest/side_tables.h"

#include <algorithm>
#include <charconv>
#include <utility>

#include "columnar/column_rows.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/transaction/table.h"
#include "iceberg/writer/data_file_writer.h"
#include "ingest/batch_recovery.h"
#include "ingest/schema/schema_reconcile.h"

namespace floe::ingest {

namespace {

Result<iceberg::Table> LoadSideTable(catalog::Catalog& catalog, const catalog::TableIdentifier& side) {
  FLOE_ASSIGN_OR_RETURN(auto ops, catalog.LoadTable(side));
  return iceberg::Table::Load(std::move(ops));
}

// The side table, created with the rows' schema when missing.
Result<iceberg::Table> OpenOrCreate(catalog::Catalog& catalog, const catalog::TableIdentifier& side,
                                    const Schema& rows_schema, int format_version) {
  auto loaded = LoadSideTable(catalog, side);
  if (loaded.ok() || loaded.status().kind() != ErrorKind::kNotFound) return loaded;
  catalog::TableCreation creation;
  int32_t next_id = 1;  // fresh ids: the rows come from floe, not from a file with ids
  FLOE_ASSIGN_OR_RETURN(creation.schema, iceberg::FromFloeSchema(rows_schema, format_version, &next_id));
  creation.format_version = format_version;
  auto created = catalog.CreateTable(side, creation);
  if (!created.ok() && created.status().kind() != ErrorKind::kAlreadyExists) return created.status();
  return LoadSideTable(catalog, side);  // ours, or another process's
}

ReconcileOptions SideReconcileOptions(const std::string& name) {
  ReconcileOptions options;
  options.policy = IncompatiblePolicy::kRescue;
  options.table_name = name;
  return options;
}

// The side table's schema evolved, in a commit of its own, to take `rows_schema`.
Status Evolve(iceberg::Table& table, const Schema& rows_schema, const std::string& name) {
  ReconcileOptions options = SideReconcileOptions(name);
  options.format_version = table.metadata().format_version;
  const iceberg::Schema current = *table.metadata().CurrentSchema();
  FLOE_ASSIGN_OR_RETURN(FileMapping mapping, Reconcile(current, rows_schema, name, options));
  if (mapping.evolution.empty()) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(iceberg::Schema evolved, EvolveSchema(current, table.metadata().last_column_id,
                                                              {mapping.evolution}, options.format_version));
  int32_t highest_id = 0;
  for (const iceberg::Schema& schema : table.metadata().schemas)
    highest_id = std::max(highest_id, schema.schema_id);
  evolved.schema_id = highest_id + 1;
  std::vector<iceberg::TableRequirement> requirements{
      iceberg::requirement::AssertCurrentSchemaId{current.schema_id}};
  std::vector<iceberg::TableUpdate> updates{
      iceberg::update::AddSchema{evolved,
                                 std::max(table.metadata().last_column_id, evolved.HighestFieldId())},
      iceberg::update::SetCurrentSchema{-1}};
  FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable committed, table.ops().Commit(requirements, updates));
  table.SetCurrent(std::move(committed));
  return Status::OK();
}

}  // namespace

catalog::TableIdentifier SideTableId(const catalog::TableIdentifier& table, const std::string& suffix) {
  return catalog::TableIdentifier{table.ns, table.name + "__" + suffix};
}

Status SideTables::Add(const std::string& suffix, RecordBatch rows) {
  if (rows.num_rows == 0) return Status::OK();
  std::vector<RecordBatch>& held = rows_[suffix];
  if (!held.empty() && held.back().schema == rows.schema) {
    FLOE_ASSIGN_OR_RETURN(held.back(), ConcatBatches({held.back(), rows}));
    return Status::OK();
  }
  held.push_back(std::move(rows));
  return Status::OK();
}

std::map<std::string, int64_t> SideTables::RowCounts() const {
  std::map<std::string, int64_t> counts;
  for (const auto& [suffix, batches] : rows_) {
    for (const RecordBatch& rows : batches) counts[suffix] += rows.num_rows;
  }
  return counts;
}

Result<std::map<std::string, std::string>> SideTables::WritePending(catalog::Catalog& catalog,
                                                                    const catalog::TableIdentifier& table,
                                                                    const std::string& file_prefix,
                                                                    int format_version) {
  std::map<std::string, std::string> summary;
  for (const auto& entry : rows_) {
    // Named references, not a structured binding: clang 14 (the sanitizer build) cannot capture
    // structured bindings in the lambda below.
    const std::string& suffix = entry.first;
    const std::vector<RecordBatch>& batches = entry.second;
    const catalog::TableIdentifier side = SideTableId(table, suffix);
    const std::string name = side.ToString();
    auto written = [&]() -> Result<std::string> {
      FLOE_ASSIGN_OR_RETURN(iceberg::Table side_table,
                            OpenOrCreate(catalog, side, batches.front().schema, format_version));
      for (const RecordBatch& rows : batches) FLOE_RETURN_IF_ERROR(Evolve(side_table, rows.schema, name));
      const iceberg::TableMetadata& metadata = side_table.metadata();
      const iceberg::Schema& schema = *metadata.CurrentSchema();
      iceberg::RollingWriterOptions writer_options;
      writer_options.file_prefix = file_prefix + "-" + suffix;
      FLOE_ASSIGN_OR_RETURN(auto writer,
                            iceberg::PartitionedWriter::Make(side_table.io(), metadata.location, schema,
                                                             *metadata.DefaultSpec(), writer_options));
      Pending pending{side, {}};
      std::vector<iceberg::RowLocation> locations;
      Status status;
      for (const RecordBatch& rows : batches) {
        auto mapping = Reconcile(schema, rows.schema, name, SideReconcileOptions(name));
        auto conformed =
            mapping.ok() ? ConformBatch(rows, *mapping, schema) : Result<RecordBatch>(mapping.status());
        status = conformed.ok() ? writer->Write(*conformed, &locations) : conformed.status();
        if (!status.ok()) break;
      }
      Result<std::vector<iceberg::DataFile>> files =
          status.ok() ? writer->Close() : Result<std::vector<iceberg::DataFile>>(status);
      if (!files.ok()) {
        writer->AbortAndDelete();
        return files.status();
      }
      for (const iceberg::DataFile& file : *files) pending.files.push_back(file.file_path);
      const std::string manifest_path =
          metadata.location + "/metadata/" + file_prefix + "-" + suffix + "-side.avro";
      iceberg::ManifestWriterOptions manifest_options;
      manifest_options.format_version = metadata.format_version;
      pending_.push_back(pending);
      FLOE_ASSIGN_OR_RETURN(auto manifest,
                            iceberg::ManifestWriter::Open(side_table.io(), manifest_path, schema,
                                                          *metadata.DefaultSpec(), manifest_options));
      for (const iceberg::DataFile& file : *files) FLOE_RETURN_IF_ERROR(manifest->Add(file));
      FLOE_ASSIGN_OR_RETURN(iceberg::ManifestFile finished, manifest->Finish());
      pending_.back().files.push_back(manifest_path);
      return std::to_string(finished.manifest_length) + ":" + manifest_path;
    }();
    if (!written.ok()) {
      AbortPending(catalog);
      return written.status().WithContext("side table " + name);
    }
    summary[kSummarySidePrefix + suffix] = *written;
  }
  return summary;
}

void SideTables::AbortPending(catalog::Catalog& catalog) {
  for (const Pending& pending : pending_) {
    auto side_table = LoadSideTable(catalog, pending.side);
    if (!side_table.ok()) continue;
    for (const std::string& path : pending.files) (void)side_table->io().Delete(path);
  }
  pending_.clear();
}

Status CompleteSideCommits(catalog::Catalog& catalog, const catalog::TableIdentifier& table,
                           const iceberg::Snapshot& snapshot, const std::string& pipeline, int64_t batch_id) {
  const std::string prefix = kSummarySidePrefix;
  for (auto it = snapshot.summary.lower_bound(prefix);
       it != snapshot.summary.end() && it->first.compare(0, prefix.size(), prefix) == 0; ++it) {
    const std::string suffix = it->first.substr(prefix.size());
    const catalog::TableIdentifier side = SideTableId(table, suffix);
    const std::string name = side.ToString();
    const size_t colon = it->second.find(':');
    int64_t length = -1;
    if (colon != std::string::npos) {
      const auto parsed = std::from_chars(it->second.data(), it->second.data() + colon, length);
      if (parsed.ec != std::errc() || parsed.ptr != it->second.data() + colon) length = -1;
    }
    if (length <= 0) {
      return Status::Corruption("snapshot " + std::to_string(snapshot.snapshot_id) + " of " +
                                table.ToString() + ": " + it->first + " = \"" + it->second +
                                "\" is not <length>:<manifest path>");
    }
    FLOE_ASSIGN_OR_RETURN(std::optional<int64_t> done, FindCommittedBatch(catalog, side, pipeline, batch_id));
    if (done) continue;
    auto side_table = LoadSideTable(catalog, side);
    if (!side_table.ok()) return side_table.status().WithContext("side table " + name);
    const iceberg::TableMetadata& metadata = side_table->metadata();
    iceberg::ManifestFile manifest;
    manifest.manifest_path = it->second.substr(colon + 1);
    manifest.manifest_length = length;
    manifest.partition_spec_id = metadata.default_spec_id;
    FLOE_ASSIGN_OR_RETURN(iceberg::Type partition_type,
                          metadata.DefaultSpec()->PartitionType(*metadata.CurrentSchema()));
    auto entries = iceberg::ReadManifest(side_table->io(), manifest, partition_type);
    if (!entries.ok()) return entries.status().WithContext("pending rows of side table " + name);
    iceberg::FastAppend append = side_table->NewFastAppend();
    for (const iceberg::ManifestEntry& entry : *entries) append.AppendFile(entry.data_file);
    append.Set(kSummaryPipeline, pipeline).Set(kSummaryBatchId, std::to_string(batch_id));
    auto committed = append.Commit();
    if (!committed.ok()) return committed.status().WithContext("committing side table " + name);
  }
  return Status::OK();
}

}  // namespace floe::ingest
