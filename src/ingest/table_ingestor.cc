#include "ingest/table_ingestor.h"

#include <algorithm>
#include <chrono>
#include <utility>

#include "columnar/column_rows.h"
#include "iceberg/scan/changelog_scan.h"
#include "iceberg/spec/random_ids.h"
#include "iceberg/spec/snapshot_ancestry.h"
#include "ingest/lineage_columns.h"
#include "ingest/partition_spec_config.h"
#include "ingest/stream_positions.h"
#include "ingest/table_ingestor_phases.h"
#include "ingest/table_settings_check.h"

namespace floe::ingest {

void BatchCounts::Add(const BatchCounts& other) {
  files += other.files;
  bytes_read += other.bytes_read;
  rows_read += other.rows_read;
  inserted += other.inserted;
  updated += other.updated;
  deleted += other.deleted;
  stale += other.stale;
  ignored += other.ignored;
  bad_rows += other.bad_rows;
  dead_letters += other.dead_letters;
  dead_letters_skipped += other.dead_letters_skipped;
  data_files_written += other.data_files_written;
  delete_files_written += other.delete_files_written;
  filtered += other.filtered;
  dropped += other.dropped;
  quarantined_rows += other.quarantined_rows;
  for (const ExpectationCount& count : other.expectations) {
    auto same = std::find_if(expectations.begin(), expectations.end(),
                             [&](const ExpectationCount& mine) { return mine.name == count.name; });
    if (same == expectations.end()) {
      expectations.push_back(count);
      continue;
    }
    same->checked += count.checked;
    same->failed += count.failed;
  }
}

std::string DataFilePrefix(int64_t batch_id) {
  return "b" + std::to_string(batch_id) + "-" + iceberg::NewUuidV4();
}

namespace {

Result<CodecChoice> ParseCodec(const std::string& name) {
  if (name == "zstd") return CodecChoice{Codec::kZstd, "zstd"};
  if (name == "snappy") return CodecChoice{Codec::kSnappy, "snappy"};
  if (name == "gzip") return CodecChoice{Codec::kGzip, "gzip"};
  if (name == "lz4") return CodecChoice{Codec::kLz4Raw, "lz4"};
  if (name == "none" || name == "uncompressed") return CodecChoice{Codec::kNone, "uncompressed"};
  return Status::InvalidArgument("[target] codec: unknown codec \"" + name +
                                 "\" (snappy, zstd, gzip, lz4, none)");
}

}  // namespace

ThreadPool* TableIngestor::Impl::Pool() {
  const int threads = options.settings.performance.EffectiveThreads();
  if (threads <= 1) return nullptr;
  if (!pool) pool = std::make_unique<ThreadPool>(threads);
  return pool.get();
}

size_t TableIngestor::Impl::ReadAheadUnits() const {
  return static_cast<size_t>(std::max(1, options.settings.performance.EffectiveThreads()));
}

int64_t TableIngestor::Impl::ReadAheadBytes() const {
  return std::max<int64_t>(options.settings.performance.memory_budget_bytes, 0) / 4;
}

size_t TableIngestor::Impl::KeysMemoryAfterMerging(const BatchChanges& changes, const FileScan& scan) {
  // Upper bound: every key of the scan new to the batch.
  const size_t keys = changes.winners().size() + scan.winners.size();
  return changes.MemoryBytesAfterMerging(scan) +
         keys * (sizeof(SelectedRow) + KeyIndexDelta::BytesPerChange());
}

size_t TableIngestor::Impl::ChangeMapBudget() const {
  // Five eighths: the estimate is an upper bound of the change map, the
  // selected rows and the key index delta (the map is freed before the
  // delta is built, so the three never peak together); the writer's row
  // group (an eighth) and its encoded form, and the source chunks decoded
  // ahead (slices of a 32nd, ParquetFileFormat) take the rest. Measured on
  // a 10M-key load: three quarters peaked at 470-535 MB RSS with the
  // default 512 MiB, five eighths at 425-470 MB, as fast. Half was
  // measured before the key index's runs were merged at the end of a load:
  // a 100M-key load then took twice the batches and left runs unmerged.
  return static_cast<size_t>(std::max<int64_t>(options.settings.performance.memory_budget_bytes, 0) / 8 * 5);
}

size_t TableIngestor::Impl::MaxBadRowsPerUnit() const {
  // A unit with more is more likely a wrong config (a wrong key, codes of
  // another source) than a few bad rows; it is quarantined with the first.
  constexpr size_t kMaxBadRowsPerUnit = 10'000;
  return options.settings.schema.on_bad_row == BadRowPolicy::kTable ? kMaxBadRowsPerUnit : 0;
}

int64_t TableIngestor::Impl::NowMs() const {
  if (options.now_ms_for_tests != 0) return options.now_ms_for_tests;
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

int TableIngestor::Impl::format_version() const {
  return table ? table->metadata().format_version : options.settings.target.format_version;
}

void TableIngestor::Impl::Quarantine(const SourceUnit& unit, const std::string& reason, BatchResult& result) {
  result.quarantined.push_back({unit.uri, reason});
  if (options.on_quarantine) options.on_quarantine(result.quarantined.back());
}

Status TableIngestor::Impl::LoadTable() {
  auto ops = catalog.LoadTable(options.table);
  if (!ops.ok()) {
    if (ops.status().kind() == ErrorKind::kNotFound) {
      table.reset();
      return Status::OK();
    }
    return ops.status().WithContext("table " + options.table.ToString());
  }
  auto loaded = iceberg::Table::Load(*ops);
  if (!loaded.ok()) return loaded.status().WithContext("table " + options.table.ToString());
  table.emplace(std::move(loaded).value());
  return AdoptRecordedKey();
}

Status TableIngestor::Impl::AdoptRecordedKey() {
  if (!table || !merging() || !convention->keys_from_units()) return Status::OK();
  std::vector<std::string> recorded = RecordedKey(table->metadata());
  if (recorded.empty()) {
    return Status::InvalidArgument(
        "table " + options.table.ToString() + " records no merge key (Iceberg identifier fields or " +
        iceberg::kMergeKeysProperty +
        "), so the Kafka record key cannot be checked against it: set [merge] keys");
  }
  convention->SetKeyColumns(std::move(recorded));
  return Status::OK();
}

Status TableIngestor::Impl::CreateTable(const iceberg::Schema& schema) {
  const TargetConfig& target = options.settings.target;
  for (size_t depth = 1; depth <= options.table.ns.size(); ++depth) {
    catalog::Namespace level(options.table.ns.begin(), options.table.ns.begin() + static_cast<long>(depth));
    Status created = catalog.CreateNamespace(level, {});
    if (!created.ok() && created.kind() != ErrorKind::kAlreadyExists) {
      return created.WithContext("namespace " + catalog::NamespaceToString(level));
    }
  }
  catalog::TableCreation creation;
  creation.schema = schema;
  if (merging()) {
    // The merge key is recorded in the table, so a later change of [merge] keys is caught.
    std::string skipped = RecordKeyInSchema(keys(), &creation.schema);
    if (!skipped.empty()) creation_warnings.push_back(skipped);
  }
  FLOE_ASSIGN_OR_RETURN(creation.spec, ParsePartitionSpec(target.partition_by, schema));
  creation.format_version = target.format_version;
  creation.properties["write.parquet.compression-codec"] = codec.iceberg_name;
  if (target.codec_level)
    creation.properties["write.parquet.compression-level"] = std::to_string(*target.codec_level);
  creation.properties["write.target-file-size-bytes"] = std::to_string(target.target_file_size_bytes);
  // The change feed pairs updates by key (iceberg/scan/changelog_scan.h): the
  // identifier fields above, else this property, which also holds keys an
  // identifier field cannot be (float, double).
  if (merging()) {
    std::string names;
    for (const std::string& key : keys()) names += (names.empty() ? "" : ",") + key;
    creation.properties[iceberg::kMergeKeysProperty] = names;
  }
  for (const auto& [key, value] : target.table_properties) creation.properties[key] = value;
  auto created = catalog.CreateTable(options.table, creation);
  if (!created.ok()) {
    // Another process may have created it since we looked.
    if (created.status().kind() != ErrorKind::kAlreadyExists) {
      return created.status().WithContext("creating table " + options.table.ToString());
    }
    FLOE_RETURN_IF_ERROR(LoadTable());
    if (!table) return Status::NotFound("table " + options.table.ToString() + " vanished after creation");
    return Status::OK();
  }
  auto loaded = iceberg::Table::Load(*created);
  if (!loaded.ok()) return loaded.status().WithContext("table " + options.table.ToString());
  table.emplace(std::move(loaded).value());
  return Status::OK();
}

Status TableIngestor::Impl::EnsureIndex(std::vector<std::string>* warnings) {
  if (!merging()) return Status::OK();
  FLOE_RETURN_IF_ERROR(LoadIndexIfStale(warnings));
  // A merge that finished since the last batch joins the index now, under the table's lock.
  index->AdoptFinishedMerge(warnings);
  if (index->damaged()) {
    // The merge met a damaged run: the index is reloaded (rebuilt) without it.
    DiscardDamagedIndex(warnings);
    FLOE_RETURN_IF_ERROR(LoadIndexIfStale(warnings));
  }
  return Status::OK();
}

void TableIngestor::Impl::DiscardDamagedIndex(std::vector<std::string>* warnings) {
  warnings->push_back("the key index of " + options.table.ToString() +
                      " has a damaged file: it is deleted and the index caught up or rebuilt from the table");
  index->DiscardDamaged(warnings);
  index_valid = false;
}

Status TableIngestor::Impl::LoadIndexIfStale(std::vector<std::string>* warnings) {
  const std::optional<int64_t> current = table ? table->metadata().current_snapshot_id : std::nullopt;
  if (!index || !index_valid || index_snapshot != current) {
    // The old index lends its open runs (and its running merge) to the new one.
    std::optional<PrimaryKeyIndex> old = std::move(index);
    index.reset();
    index_valid = false;
    if (!table) {
      index.emplace(state_io, options.state_dir);
    } else {
      KeyIndexSpec spec{keys(), convention->table_ordering()};
      // Nothing else of the batch is in memory yet: a rebuild may sort in half the budget.
      auto loaded = PrimaryKeyIndex::Load(
          state_io, options.state_dir, table->metadata(), table->io(), spec, warnings, old ? &*old : nullptr,
          std::max<int64_t>(options.settings.performance.memory_budget_bytes / 2, int64_t{16} << 20));
      if (!loaded.ok()) return loaded.status().WithContext("key index of " + options.table.ToString());
      index.emplace(std::move(loaded).value());
    }
    index_snapshot = current;
    index_valid = true;
  }
  const int64_t retention = merge().tombstone_retention_ms;
  index->SetTombstoneCutoff(retention > 0 ? NowMs() - retention : 0);
  return Status::OK();
}

floe::Schema TableIngestor::Impl::UnitTableColumns(const iceberg::Schema& schema) const {
  floe::Schema columns;
  if (!convention->rows_are_image()) return columns;
  for (const iceberg::NestedField& field : schema.fields) {
    if (!field.type.is_primitive() || field.name == kRescuedDataColumn || IsLineageColumn(field.name))
      continue;
    auto type = iceberg::ToFloeType(field.type);
    if (!type.ok()) continue;
    columns.push_back(MakeField(field.name, *type));
  }
  return transform->SourceColumns(columns);
}

ReconcileOptions TableIngestor::Impl::MakeReconcileOptions() const {
  ReconcileOptions reconcile;
  reconcile.policy = options.settings.schema.on_incompatible;
  if (merging()) {
    reconcile.protected_columns = keys();
    for (const OrderColumn& column : convention->table_ordering().columns) {
      reconcile.protected_columns.push_back(column.name);
    }
  }
  if (!merge().operation_column.empty()) reconcile.protected_columns.push_back(merge().operation_column);
  reconcile.table_name = options.table.ToString();
  reconcile.format_version = format_version();
  return reconcile;
}

Result<SettledSchema> TableIngestor::Impl::SettleSchema(ScannedBatch& scanned) {
  const iceberg::Schema base = table ? *table->metadata().CurrentSchema() : iceberg::Schema{};
  const int32_t base_last_id = table ? table->metadata().last_column_id : 0;
  // The table schema this batch writes: evolved by the units, plus lineage columns.
  SchemaEvolution lineage = MissingLineageColumns(options.settings.lineage, scanned.working);
  if (!lineage.empty()) scanned.evolutions.push_back(std::move(lineage));
  SettledSchema settled{base, !scanned.evolutions.empty()};
  if (settled.evolved) {
    FLOE_ASSIGN_OR_RETURN(settled.table_schema,
                          EvolveSchema(base, base_last_id, scanned.evolutions, format_version()));
  }
  if (options.dry_run) return settled;  // nothing is created
  if (!table) {
    FLOE_RETURN_IF_ERROR(CreateTable(settled.table_schema));
    settled.table_schema = *table->metadata().CurrentSchema();
    settled.evolved = false;
    FLOE_RETURN_IF_ERROR(EnsureIndex(&scanned.result.warnings));
  } else if (settled.evolved) {
    int32_t highest_id = 0;
    for (const iceberg::Schema& schema : table->metadata().schemas)
      highest_id = std::max(highest_id, schema.schema_id);
    settled.table_schema.schema_id = highest_id + 1;
  }
  return settled;
}

Result<BatchResult> TableIngestor::Impl::Attempt(const std::vector<SourceUnit>& batch, int64_t batch_id,
                                                 const ProgressFn& progress, const std::set<size_t>& skipped,
                                                 std::set<size_t>* progress_reported,
                                                 std::optional<UnitFailure>* failure) {
  const int64_t now_ms = NowMs();
  std::vector<std::string> index_warnings;
  if (!options.dry_run) FLOE_RETURN_IF_ERROR(EnsureIndex(&index_warnings));
  // 1. Scan and merge (stream ranges fetched together first; what that
  // misses, each open fetches itself).
  (void)units->Prepare(batch);
  FLOE_ASSIGN_OR_RETURN(ScannedBatch scanned,
                        ScanAndMerge(batch, now_ms, progress, skipped, progress_reported));
  BatchResult& result = scanned.result;
  result.warnings.insert(result.warnings.begin(), index_warnings.begin(), index_warnings.end());
  if (result.budget_cut_at) {
    BatchResult cut;
    cut.quarantined = std::move(result.quarantined);
    cut.budget_cut_at = result.budget_cut_at;
    return cut;
  }
  // No unit made rows: nothing to commit, unless rows were set aside (dead
  // letters of a range of bad records), which commit with the batch as an
  // empty append of the target carrying their markers (side_tables.h) — or,
  // with no target yet, wait for the batch that creates it.
  if (scanned.passed.empty() && (scanned.side.empty() || !table || options.dry_run)) {
    result.waits_for_table = !scanned.side.empty() && !options.dry_run;
    return std::move(result);
  }
  // 2. Settle the schema (the table is created here on first sight).
  FLOE_ASSIGN_OR_RETURN(SettledSchema schema, SettleSchema(scanned));
  // 3. Resolve against the key index (a dry run: against an empty table).
  Resolution resolution;
  if (merging()) {
    std::optional<PrimaryKeyIndex> empty;  // a dry run neither loads nor changes the table's index
    if (options.dry_run) empty.emplace(state_io, options.state_dir);
    FLOE_ASSIGN_OR_RETURN(resolution, ResolveChanges(scanned.changes, options.dry_run ? *empty : *index,
                                                     scanned.passed, result.counts));
  }
  // 4. Plan the reads of pass 2.
  ReadPlan plan = PlanReads(batch, scanned.passed, merging());
  if (options.dry_run) {
    // 5. Read and keep the first rows; nothing is written or committed.
    int64_t kept = 0;
    RowSink sample = [&](const RecordBatch& rows, std::vector<iceberg::RowLocation>* locations) -> Status {
      locations->assign(static_cast<size_t>(rows.num_rows), iceberg::RowLocation{});
      const int64_t take = std::min(rows.num_rows, options.dry_run_rows - kept);
      if (take <= 0) return Status::OK();
      if (take == rows.num_rows) {
        result.sample.push_back(rows);
      } else {
        FLOE_ASSIGN_OR_RETURN(RecordBatch head, SliceBatch(rows, 0, take));
        result.sample.push_back(std::move(head));
      }
      kept += take;
      return Status::OK();
    };
    FLOE_RETURN_IF_ERROR(
        WriteRows(batch, plan, schema.table_schema, now_ms, sample, {}, result.counts, failure).status());
    return std::move(result);
  }
  // 5. Write.
  const iceberg::TableMetadata& metadata = table->metadata();
  iceberg::RollingWriterOptions writer_options;
  writer_options.file.parquet.codec = codec.codec;
  writer_options.file.parquet.compression_level = options.settings.target.codec_level.value_or(0);
  writer_options.target_file_size = options.settings.target.target_file_size_bytes;
  writer_options.file.parquet.pool = Pool();
  // A row group is buffered whole before it is written: at most an eighth
  // of the budget (64 MiB of the default 512 MiB; tables applied in
  // parallel each buffer within their share, at least 16 MiB), and while it
  // is written its encoded pages take up to as much again.
  writer_options.file.parquet.row_group_max_bytes =
      std::clamp<int64_t>(options.settings.performance.memory_budget_bytes / 8, int64_t{16} << 20,
                          writer_options.file.parquet.row_group_max_bytes);
  writer_options.file_prefix = DataFilePrefix(batch_id);
  FLOE_ASSIGN_OR_RETURN(auto writer,
                        iceberg::PartitionedWriter::Make(table->io(), metadata.location, schema.table_schema,
                                                         *metadata.DefaultSpec(), writer_options));
  RowSink write = [&](const RecordBatch& rows, std::vector<iceberg::RowLocation>* locations) {
    return writer->Write(rows, locations);
  };
  DataFilePathFn data_file_path = [&](int32_t file) -> const std::string& { return writer->path(file); };
  auto lives =
      WriteRows(batch, plan, schema.table_schema, now_ms, write, data_file_path, result.counts, failure);
  if (!lives.ok()) {
    writer->AbortAndDelete();
    return lives.status();
  }
  // 6. Commit (streams: with every position the table holds, stream_positions.h).
  StreamMarkers markers{StreamRangesSummary(batch), ""};
  if (!markers.ranges.empty()) {
    auto ends = TableStreamEnds(metadata, options.pipeline_name);
    if (!ends.ok()) {
      writer->AbortAndDelete();
      return ends.status().WithContext("table " + options.table.ToString());
    }
    AdvanceStreamEnds(batch, &*ends);
    markers.ends = FormatStreamEnds(*ends);
  }
  const auto commit_started = std::chrono::steady_clock::now();
  auto committed = Commit(std::move(result), batch_id, now_ms, schema, *writer, std::move(lives).value(),
                          std::move(resolution), scanned.side, markers);
  if (committed.ok() && committed->snapshot_id) {
    committed->commit_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - commit_started).count();
  }
  return committed;
}

TableIngestor::TableIngestor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableIngestor::~TableIngestor() = default;

Result<std::unique_ptr<TableIngestor>> TableIngestor::Open(catalog::Catalog& catalog,
                                                           std::shared_ptr<UnitOpener> units,
                                                           std::shared_ptr<FileIO> state_io,
                                                           TableIngestorOptions options) {
  if (!units || !state_io)
    return Status::InvalidArgument("table ingestor needs a unit opener and a state FileIO");
  const TableSettings& settings = options.settings;
  const std::string table_name = options.table.ToString();
  if (settings.merge.mode == WriteMode::kMerge) {
    if (settings.merge.keys.empty() && !settings.merge.KeysFromRecordKey()) {
      return Status::InvalidArgument(table_name + ": [merge] keys: merge mode needs at least one key column");
    }
    if (settings.merge.order_by.empty()) {
      return Status::InvalidArgument(table_name + ": [merge] order_by: merge mode needs an ordering column");
    }
    Status ordering = CheckOrderingSpec(OrderingSpec::Of(settings.merge));
    if (!ordering.ok()) return ordering.WithContext(table_name + ": [merge] order_by");
    if (options.state_dir.empty()) {
      return Status::InvalidArgument(table_name + ": merge mode needs a state directory for the key index");
    }
  }
  if (settings.target.format_version != 2 && settings.target.format_version != 3) {
    return Status::InvalidArgument(table_name + ": [target] format_version: expected 2 or 3, got " +
                                   std::to_string(settings.target.format_version));
  }
  if (settings.target.target_file_size_bytes <= 0) {
    return Status::InvalidArgument(table_name + ": [target] target_file_size: must be positive");
  }
  FLOE_ASSIGN_OR_RETURN(CodecChoice codec, ParseCodec(settings.target.codec));
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<ChangeConvention> convention, MakeChangeConvention(settings));
  if (convention->merges()) {
    // The convention's own ordering columns (Debezium's __source_* paths) too.
    std::vector<std::string> merge_columns = settings.merge.keys;
    for (const OrderColumn& column : convention->table_ordering().columns)
      merge_columns.push_back(column.name);
    FLOE_RETURN_IF_ERROR(
        CheckTransformKeepsColumns(settings.transform, merge_columns, table_name + ": [transform]"));
  }
  auto transform = std::make_unique<RowTransform>(settings.transform, settings.expectations, table_name);
  auto impl = std::make_unique<Impl>(catalog, std::move(units), std::move(state_io), std::move(options),
                                     codec, std::move(convention));
  impl->transform = std::move(transform);
  FLOE_RETURN_IF_ERROR(impl->LoadTable());
  if (impl->table && impl->table->metadata().format_version < 2) {
    return Status::NotSupported(table_name + ": format version 1 tables cannot take row-level deletes");
  }
  return std::unique_ptr<TableIngestor>(new TableIngestor(std::move(impl)));
}

Status TableIngestor::Impl::CheckTableAgainstSettings(std::vector<std::string>* warnings) {
  if (!table) return Status::OK();
  const std::string name = options.table.ToString();
  if (merging()) FLOE_RETURN_IF_ERROR(CheckRecordedKey(table->metadata(), keys(), name));
  auto evolved = EvolvePartitionSpec(*table, options.settings.target.partition_by);
  if (!evolved.ok()) return evolved.status().WithContext("table " + name + ": [target] partition_by");
  if (!evolved->empty()) warnings->push_back(*evolved);
  for (const std::string& other : OtherPipelines(table->metadata(), options.pipeline_name)) {
    if (!other_pipelines_seen.insert(other).second) continue;
    warnings->push_back(
        "table " + name + " also receives commits from pipeline \"" + other +
        "\" (floe.pipeline in its snapshots): each pipeline keeps its own ledger and key index, "
        "so their changes of one key do not merge by order; give each pipeline its own table");
  }
  return Status::OK();
}

namespace {

// See TableIngestor::ApplyBatch: whether `table` (nullptr: it does not
// exist) still holds the pipeline's last commit.
Status CheckLastCommitKept(const iceberg::TableMetadata* table, const std::string& name,
                           const TableIngestor::LastCommit& last) {
  const std::string what = "table " + name + " no longer holds this pipeline's last batch (" +
                           std::to_string(last.batch_id) + ", snapshot " + std::to_string(last.snapshot_id) +
                           "): ";
  const std::string remedy =
      ". Merging onto it would leave a partial table, so its files wait: restore that snapshot, or reload "
      "the table from every source file with `floe files CONFIG --reload-table <source table>`";
  if (table == nullptr) return Status::InvalidArgument(what + "another writer dropped it" + remedy);
  if (table->CurrentSnapshot() == nullptr) {
    return Status::InvalidArgument(what + "another writer emptied it (it has no current snapshot)" + remedy);
  }
  if (table->SnapshotById(last.snapshot_id) != nullptr &&
      !iceberg::IsAncestorOf(*table, table->CurrentSnapshot()->snapshot_id, last.snapshot_id)) {
    return Status::InvalidArgument(what + "another writer rolled it back to snapshot " +
                                   std::to_string(table->CurrentSnapshot()->snapshot_id) + remedy);
  }
  return Status::OK();
}

}  // namespace

std::vector<std::string> TableIngestor::CatchUpAggregates() {
  Impl& impl = *impl_;
  std::vector<std::string> warnings;
  if (impl.aggregates_caught_up || impl.options.settings.aggregates.empty() || impl.options.dry_run)
    return warnings;
  impl.aggregates_caught_up = true;
  Status loaded = impl.table ? impl.table->Refresh() : impl.LoadTable();
  if (!loaded.ok()) {
    warnings.push_back("aggregates of " + impl.options.table.ToString() +
                       " are behind: " + loaded.ToString());
    return warnings;
  }
  impl.MaintainAggregates(nullptr, warnings);
  return warnings;
}

std::map<std::string, int64_t> TableIngestor::TakeAggregateLateChanges() {
  return std::exchange(impl_->aggregate_late_changes, {});
}

Result<BatchResult> TableIngestor::ApplyBatch(const std::vector<SourceUnit>& files, int64_t batch_id,
                                              const ProgressFn& progress, std::optional<LastCommit> last) {
  Impl& impl = *impl_;
  if (impl.table) {
    Status refreshed = impl.table->Refresh();
    if (!refreshed.ok()) return refreshed.WithContext("table " + impl.options.table.ToString());
  } else {
    FLOE_RETURN_IF_ERROR(impl.LoadTable());
  }
  if (last && !impl.options.dry_run) {
    FLOE_RETURN_IF_ERROR(CheckLastCommitKept(impl.table ? &impl.table->metadata() : nullptr,
                                             impl.options.table.ToString(), *last));
  }
  std::vector<std::string> notes;
  if (!impl.options.dry_run) FLOE_RETURN_IF_ERROR(impl.CheckTableAgainstSettings(&notes));
  // Aggregates left behind (added to an existing table, a crash after a
  // commit) catch up before the batch adds to them.
  if (!impl.aggregates_caught_up) {
    impl.aggregates_caught_up = true;
    impl.MaintainAggregates(nullptr, notes);
  }
  // A unit that fails in pass 2 is quarantined and the batch redone without
  // it; each round removes one unit, so this ends.
  std::set<size_t> skipped;
  std::set<size_t> progress_reported;  // a redo does not report a unit twice
  std::vector<QuarantinedFile> failed_late;
  bool index_discarded = false;
  while (true) {
    std::optional<UnitFailure> failure;
    auto result = impl.Attempt(files, batch_id, progress, skipped, &progress_reported, &failure);
    if (result.ok()) {
      for (QuarantinedFile& file : failed_late) result->quarantined.push_back(std::move(file));
      result->warnings.insert(result->warnings.begin(), notes.begin(), notes.end());
      notes = std::move(impl.creation_warnings);
      impl.creation_warnings.clear();
      result->warnings.insert(result->warnings.end(), notes.begin(), notes.end());
      return result;
    }
    if (!failure || skipped.count(failure->index)) {
      if (impl.index && impl.index->damaged() && !index_discarded) {
        // A lookup met a damaged key index run: the batch is tried again
        // (once) with the index caught up or rebuilt without it.
        index_discarded = true;
        notes.push_back("batch " + std::to_string(batch_id) + ": " + result.status().ToString());
        impl.DiscardDamagedIndex(&notes);
        continue;
      }
      impl.index_valid = false;
      return result.status();
    }
    skipped.insert(failure->index);
    failed_late.push_back({files[failure->index].uri, failure->reason});
    if (impl.options.on_quarantine) impl.options.on_quarantine(failed_late.back());
  }
}

TableIngestor::IndexCatchUpFn TableIngestor::IndexCatchUp() const {
  const Impl& impl = *impl_;
  if (!impl.merging()) return nullptr;
  KeyIndexSpec spec{impl.keys(), impl.convention->table_ordering()};
  const int64_t sort_bytes =
      std::max<int64_t>(impl.options.settings.performance.memory_budget_bytes / 4, int64_t{16} << 20);
  return [state_io = impl.state_io, dir = impl.options.state_dir, id = impl.options.table, spec, sort_bytes](
             catalog::Catalog& catalog,
             const std::function<Status(const std::function<Status()>&)>& gate) -> Status {
    FLOE_ASSIGN_OR_RETURN(auto ops, catalog.LoadTable(id));
    FLOE_ASSIGN_OR_RETURN(iceberg::Table table, iceberg::Table::Load(std::move(ops)));
    FLOE_ASSIGN_OR_RETURN(auto prepared, PrimaryKeyIndex::PrepareCatchUp(state_io, dir, table.metadata(),
                                                                         table.io(), spec, sort_bytes));
    if (!prepared) return Status::OK();
    auto publish = [&]() -> Status {
      FLOE_RETURN_IF_ERROR(table.Refresh());
      return PrimaryKeyIndex::PublishCatchUp(std::move(*prepared), table.metadata()).status();
    };
    return gate ? gate(publish) : publish();
  };
}

std::vector<std::string> TableIngestor::FinishIndexWork() {
  Impl& impl = *impl_;
  std::vector<std::string> warnings;
  if (!impl.index || !impl.index_valid || !impl.table) return warnings;
  Status refreshed = impl.table->Refresh();
  if (!refreshed.ok()) return warnings;
  const std::optional<int64_t> current = impl.table->metadata().current_snapshot_id;
  if (current != impl.index_snapshot) {
    // A maintenance commit (inline with --once) moved the table on. When its
    // catch-up published the index of the new snapshot, that index is taken
    // up (its runs already open are reused) and its merges finished here:
    // a load whose last batch ran maintenance otherwise left every run of
    // the load to the next run (55 runs, 11 s after a 100M-key load's next
    // commit). Without it, the next batch catches up, as before.
    if (!current) return warnings;
    auto published = impl.state_io->Exists(PrimaryKeyIndex::FilePath(impl.options.state_dir, *current));
    if (!published.ok() || !*published) return warnings;
    Status loaded = impl.LoadIndexIfStale(&warnings);
    if (!loaded.ok() || !impl.index || impl.index_snapshot != current) return warnings;
  }
  impl.index->FinishMerges(/*all=*/true, &warnings);
  return warnings;
}

void TableIngestor::SetShare(int64_t memory_budget_bytes, int threads) {
  PerformanceConfig& performance = impl_->options.settings.performance;
  performance.memory_budget_bytes = memory_budget_bytes;
  if (performance.EffectiveThreads() != std::max(threads, 1)) {
    performance.threads = std::max(threads, 1);
    impl_->pool.reset();  // made again at its new size when next needed
  }
}

const iceberg::TableMetadata* TableIngestor::metadata() const {
  return impl_->table ? &impl_->table->metadata() : nullptr;
}

}  // namespace floe::ingest
