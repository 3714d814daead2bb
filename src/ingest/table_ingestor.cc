#include "ingest/table_ingestor.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <utility>

#include "formats/parquet/file_reader.h"
#include "iceberg/spec/random_ids.h"
#include "iceberg/transaction/table.h"
#include "iceberg/writer/column_rows.h"
#include "ingest/batch_data_writer.h"
#include "ingest/batch_delete_writer.h"
#include "ingest/change_set.h"
#include "ingest/lineage_columns.h"
#include "ingest/merge/key_index.h"
#include "ingest/partition_spec_config.h"
#include "ingest/read_ahead.h"
#include "ingest/schema/schema_reconcile.h"
#include "ingest/source_reads.h"

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
  data_files_written += other.data_files_written;
  delete_files_written += other.delete_files_written;
}

namespace {

constexpr const char* kSummarySourceFiles = "floe.source-files";
constexpr const char* kSummaryRowsInserted = "floe.rows-inserted";
constexpr const char* kSummaryRowsUpdated = "floe.rows-updated";
constexpr const char* kSummaryRowsDeleted = "floe.rows-deleted";
constexpr const char* kSummaryRowsStale = "floe.rows-stale";

struct CodecChoice {
  Codec codec;
  const char* iceberg_name;  // write.parquet.compression-codec value
};

Result<CodecChoice> ParseCodec(const std::string& name) {
  if (name == "zstd") return CodecChoice{Codec::kZstd, "zstd"};
  if (name == "snappy") return CodecChoice{Codec::kSnappy, "snappy"};
  if (name == "gzip") return CodecChoice{Codec::kGzip, "gzip"};
  if (name == "lz4") return CodecChoice{Codec::kLz4Raw, "lz4"};
  if (name == "none" || name == "uncompressed") return CodecChoice{Codec::kNone, "uncompressed"};
  return Status::InvalidArgument("[target] codec: unknown codec \"" + name +
                                 "\" (snappy, zstd, gzip, lz4, none)");
}

// A row of a source file chosen to be written, with the change it carries.
struct SelectedRow {
  int64_t row = 0;
  KeyId key;
  OrderValue order;
};

// A source file that passed pass 1.
struct PassedFile {
  size_t index = 0;  // in the batch
  ChangeColumns columns;
  std::vector<int64_t> row_group_rows;
  std::vector<SelectedRow> selected;     // merge mode, sorted by row
  std::vector<int64_t> row_group_bytes;  // uncompressed, from the footer: the read-ahead's cost
};

// A change applied to the key index once the batch's files are written.
struct StagedLive {
  KeyId key;
  OrderValue order;
  RowLocation location;
};

// Raised by pass 2 when a source file fails to read; the batch is redone without it.
struct FileFailure {
  size_t index = 0;
  std::string reason;
};

std::string DataFilePrefix(int64_t batch_id) {
  return "b" + std::to_string(batch_id) + "-" + iceberg::NewUuidV4();
}

}  // namespace

struct TableIngestor::Impl {
  catalog::Catalog& catalog;
  std::shared_ptr<FileIO> source_io;
  std::shared_ptr<FileIO> state_io;
  TableIngestorOptions options;
  CodecChoice codec;
  std::optional<iceberg::Table> table;
  // Merge mode: the key index and the snapshot it reflects.
  std::optional<PrimaryKeyIndex> index;
  std::optional<int64_t> index_snapshot;
  bool index_valid = false;
  // Workers for reading source files ahead and encoding output column
  // chunks; created on first use, only when [performance] threads > 1.
  std::unique_ptr<ThreadPool> pool;

  Impl(catalog::Catalog& c, std::shared_ptr<FileIO> source, std::shared_ptr<FileIO> state,
       TableIngestorOptions o, CodecChoice chosen)
      : catalog(c),
        source_io(std::move(source)),
        state_io(std::move(state)),
        options(std::move(o)),
        codec(chosen) {}

  const MergeConfig& merge() const { return options.settings.merge; }
  ThreadPool* Pool() {
    const int threads = options.settings.performance.EffectiveThreads();
    if (threads <= 1) return nullptr;
    if (!pool) pool = std::make_unique<ThreadPool>(threads);
    return pool.get();
  }
  // Read-ahead bounds: at most `threads` files (pass 1) or row groups
  // (pass 2) in flight, and a quarter of the memory budget (by the footer's
  // uncompressed sizes, one item always allowed).
  size_t ReadAheadFiles() const {
    return static_cast<size_t>(std::max(1, options.settings.performance.EffectiveThreads()));
  }
  int64_t ReadAheadBytes() const {
    return std::max<int64_t>(options.settings.performance.memory_budget_bytes, 0) / 4;
  }
  bool merging() const { return merge().mode == WriteMode::kMerge; }
  // Keys the batch being applied adds to the index (for its Reserve).
  int64_t index_new_keys = 0;
  // The share of [performance] memory_budget a batch's change map may use.
  size_t ChangeMapBudget() const {
    return static_cast<size_t>(std::max<int64_t>(options.settings.performance.memory_budget_bytes, 0) / 2);
  }
  int64_t NowMs() const {
    if (options.now_ms_for_tests != 0) return options.now_ms_for_tests;
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
  int format_version() const {
    return table ? table->metadata().format_version : options.settings.target.format_version;
  }

  Status LoadTable();
  Status CreateTable(const iceberg::Schema& schema);
  // `warnings` receives the index loader's notes (files ignored, rebuilds).
  Status EnsureIndex(std::vector<std::string>* warnings);
  ReconcileOptions MakeReconcileOptions() const;
  Result<BatchResult> Attempt(const std::vector<SourceUnit>& files, int64_t batch_id,
                              const ProgressFn& progress, const std::set<size_t>& skipped,
                              std::set<size_t>* progress_reported, std::optional<FileFailure>* failure);
  // Writes one row group's conformed rows (read ahead) and stages their
  // locations; a read failure is the file's (see FileFailure) unless internal.
  Status WriteRowGroup(const SourceUnit& source, const PassedFile& file, const RowGroupRead& read,
                       size_t first_selected, DecodedRowGroup& decoded, int64_t now_ms,
                       BatchDataWriter& writer, std::vector<StagedLive>* lives, int64_t* appended,
                       std::optional<FileFailure>* failure);
  Result<BatchResult> Commit(BatchResult result, int64_t batch_id, int64_t now_ms, bool evolved,
                             const iceberg::Schema& table_schema, BatchDataWriter& writer,
                             std::vector<StagedLive> lives,
                             std::vector<std::pair<KeyId, OrderValue>> tombstones,
                             std::map<std::string, std::vector<int64_t>> deletes);
};

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
  FLOE_ASSIGN_OR_RETURN(creation.spec, ParsePartitionSpec(target.partition_by, schema));
  creation.format_version = target.format_version;
  creation.properties["write.parquet.compression-codec"] = codec.iceberg_name;
  if (target.codec_level)
    creation.properties["write.parquet.compression-level"] = std::to_string(*target.codec_level);
  creation.properties["write.target-file-size-bytes"] = std::to_string(target.target_file_size_bytes);
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
  const std::optional<int64_t> current = table ? table->metadata().current_snapshot_id : std::nullopt;
  if (index && index_valid && index_snapshot == current) return Status::OK();
  index.reset();
  index_valid = false;
  if (!table) {
    index.emplace();
  } else {
    KeyIndexSpec spec{merge().keys, merge().order_column, merge().order_kind};
    auto loaded =
        PrimaryKeyIndex::Load(*state_io, options.state_dir, table->metadata(), table->io(), spec, warnings);
    if (!loaded.ok()) return loaded.status().WithContext("key index of " + options.table.ToString());
    index.emplace(std::move(loaded).value());
  }
  index_snapshot = current;
  index_valid = true;
  return Status::OK();
}

ReconcileOptions TableIngestor::Impl::MakeReconcileOptions() const {
  ReconcileOptions reconcile;
  reconcile.policy = options.settings.schema.on_incompatible;
  if (merging()) {
    reconcile.protected_columns = merge().keys;
    reconcile.protected_columns.push_back(merge().order_column);
  }
  if (!merge().operation_column.empty()) reconcile.protected_columns.push_back(merge().operation_column);
  reconcile.table_name = options.table.ToString();
  reconcile.format_version = format_version();
  return reconcile;
}

Result<BatchResult> TableIngestor::Impl::Attempt(const std::vector<SourceUnit>& files, int64_t batch_id,
                                                 const ProgressFn& progress, const std::set<size_t>& skipped,
                                                 std::set<size_t>* progress_reported,
                                                 std::optional<FileFailure>* failure) {
  BatchResult result;
  const int64_t now_ms = NowMs();
  FLOE_RETURN_IF_ERROR(EnsureIndex(&result.warnings));
  const ReconcileOptions reconcile = MakeReconcileOptions();
  const iceberg::Schema base = table ? *table->metadata().CurrentSchema() : iceberg::Schema{};
  const int32_t base_last_id = table ? table->metadata().last_column_id : 0;
  const int version = format_version();

  // Pass 1: schemas and, in merge mode, the winning change per key.
  std::vector<SchemaEvolution> evolutions;
  iceberg::Schema working = base;
  BatchChanges changes;
  std::vector<PassedFile> passed;
  // A retryable failure (an object store that kept failing) is not the
  // file's fault: the batch fails and is redone later instead of the file
  // being quarantined.
  Status transient;
  // Files are opened and key-scanned ahead on the pool and consumed here in
  // batch order, so quarantines, schema evolution and the merge happen in
  // the order a serial loop would produce.
  std::vector<size_t> to_scan;
  for (size_t i = 0; i < files.size(); ++i) {
    if (!skipped.count(i)) to_scan.push_back(i);
  }
  ReadAhead<ScannedSource> scans(
      Pool(), to_scan.size(), ReadAheadFiles(), ReadAheadBytes(),
      [&](size_t k) { return ScanSource(*source_io, files[to_scan[k]], to_scan[k], merge()); },
      [&](size_t k) { return std::max<int64_t>(files[to_scan[k]].size, 0); });
  while (!scans.done() && transient.ok()) {
    ScannedSource scanned = scans.Next();
    const size_t i = scanned.index;
    const SourceUnit& source = files[i];
    auto quarantine = [&](const Status& why) {
      if (why.retryable()) {
        transient = why.WithContext(source.uri);
        return;
      }
      result.quarantined.push_back({source.uri, why.message()});
      if (options.on_quarantine) options.on_quarantine(result.quarantined.back());
    };
    if (!scanned.failure.ok()) {  // opening, footer or change columns
      quarantine(scanned.failure);
      continue;
    }
    const std::shared_ptr<InputFile>& input = scanned.input;
    auto mapping = Reconcile(working, scanned.reader->schema(), source.uri, reconcile);
    if (!mapping.ok()) {
      if (reconcile.policy == IncompatiblePolicy::kFail) return mapping.status();
      quarantine(mapping.status());
      continue;
    }
    Result<FileScan>& scan = *scanned.scan;
    if (!scan.ok()) {
      quarantine(scan.status());
      continue;
    }
    if (!mapping->evolution.empty()) {
      evolutions.push_back(mapping->evolution);
      auto evolved = EvolveSchema(base, base_last_id, evolutions, version);
      if (!evolved.ok()) {
        evolutions.pop_back();
        quarantine(evolved.status());
        continue;
      }
      working = std::move(evolved).value();
    }
    if (merging() && !passed.empty() && changes.MemoryBytesAfterMerging(*scan) > ChangeMapBudget()) {
      // Over budget: nothing written yet; the caller re-plans (see BatchResult::budget_cut_at).
      BatchResult cut;
      cut.quarantined = std::move(result.quarantined);
      cut.budget_cut_at = i;
      return cut;
    }
    int64_t bytes = source.size;
    if (bytes <= 0) bytes = input->Size().ValueOr(0);
    result.counts.files += 1;
    result.counts.bytes_read += bytes;
    result.counts.rows_read += scan->rows;
    result.counts.ignored += scan->ignored;
    result.counts.stale += scan->superseded;
    if (merging()) result.counts.stale += changes.Merge(*scan);
    for (const std::string& warning : mapping->warnings) result.warnings.push_back(warning);
    PassedFile file{i, std::move(scanned.columns), std::move(scan->row_group_rows), {}, {}};
    file.row_group_bytes = std::move(scanned.row_group_bytes);
    passed.push_back(std::move(file));
    if (progress && progress_reported->insert(i).second) progress(source.uri, scan->rows, bytes);
  }
  if (!transient.ok()) return transient;
  if (passed.empty()) return result;

  // The table schema this batch writes: evolved by the files, plus lineage columns.
  SchemaEvolution lineage = MissingLineageColumns(options.settings.lineage, working);
  if (!lineage.empty()) evolutions.push_back(std::move(lineage));
  bool evolved = !evolutions.empty();
  iceberg::Schema table_schema = base;
  if (evolved) {
    FLOE_ASSIGN_OR_RETURN(table_schema, EvolveSchema(base, base_last_id, evolutions, version));
  }
  if (!table) {
    FLOE_RETURN_IF_ERROR(CreateTable(table_schema));
    table_schema = *table->metadata().CurrentSchema();
    evolved = false;
    FLOE_RETURN_IF_ERROR(EnsureIndex(&result.warnings));
  } else if (evolved) {
    int32_t highest_id = 0;
    for (const iceberg::Schema& schema : table->metadata().schemas)
      highest_id = std::max(highest_id, schema.schema_id);
    table_schema.schema_id = highest_id + 1;
  }

  // Resolution against the key index: stale changes, deletes, tombstones, rows to write.
  std::map<std::string, std::vector<int64_t>> deletes;
  index_new_keys = 0;
  std::vector<std::pair<KeyId, OrderValue>> tombstones;
  if (merging()) {
    std::map<size_t, PassedFile*> by_index;
    for (PassedFile& file : passed) by_index[file.index] = &file;
    changes.winners().ForEach([&](const Change& change) {
      const KeyId& key = change.key;
      const std::optional<PrimaryKeyIndex::Entry> current = index->Find(key);
      if (current && current->order >= change.order) {
        ++result.counts.stale;
        return;
      }
      const bool live = current && !current->tombstone;
      if (!current) ++index_new_keys;
      if (live) deletes[std::string(current->data_file)].push_back(current->position);
      if (change.is_delete) {
        tombstones.emplace_back(key, change.order);
        ++(live ? result.counts.deleted : result.counts.ignored);
      } else {
        by_index.at(static_cast<size_t>(change.file))->selected.push_back({change.row, key, change.order});
        ++(live ? result.counts.updated : result.counts.inserted);
      }
    });
    changes.Clear();
    for (PassedFile& file : passed) {
      std::sort(file.selected.begin(), file.selected.end(),
                [](const SelectedRow& a, const SelectedRow& b) { return a.row < b.row; });
    }
  }

  // Pass 2: the selected rows (merge) or every non-ignored row (append), conformed and written.
  const iceberg::TableMetadata& metadata = table->metadata();
  BatchDataWriterOptions writer_options;
  writer_options.file.parquet.codec = codec.codec;
  writer_options.file.parquet.compression_level = options.settings.target.codec_level.value_or(0);
  writer_options.target_file_size = options.settings.target.target_file_size_bytes;
  writer_options.file.parquet.pool = Pool();
  writer_options.file_prefix = DataFilePrefix(batch_id);
  FLOE_ASSIGN_OR_RETURN(auto writer, BatchDataWriter::Make(table->io(), metadata.location, table_schema,
                                                           *metadata.DefaultSpec(), writer_options));
  // Row groups to read, in file and row order (merge mode: only those with
  // selected rows, with the rows to keep). They are read, taken and
  // conformed ahead on the pool; rows are written here, in that order.
  std::vector<FileToRead> to_read;
  std::vector<PassedFile*> read_files;  // by FileToRead index
  std::vector<RowGroupRead> plan;
  std::vector<size_t> plan_selected;  // merge mode: index in the file's selection of the read's first row
  for (PassedFile& file : passed) {
    if (merging() && file.selected.empty()) continue;
    const size_t number = to_read.size();
    to_read.push_back(FileToRead{files[file.index].uri, file.columns.operation, file.row_group_rows.size()});
    read_files.push_back(&file);
    const size_t first_read = plan.size();
    int64_t row_group_start = 0;
    size_t next_selected = 0;
    for (size_t rg = 0; rg < file.row_group_rows.size(); ++rg) {
      RowGroupRead read;
      read.file = number;
      read.row_group = static_cast<int>(rg);
      read.rows = file.row_group_rows[rg];
      read.row_group_start = row_group_start;
      read.cost = rg < file.row_group_bytes.size() ? file.row_group_bytes[rg] : 0;
      row_group_start += read.rows;
      const size_t selected_begin = next_selected;
      if (merging()) {
        std::vector<int64_t> take;
        while (next_selected < file.selected.size() && file.selected[next_selected].row < row_group_start) {
          take.push_back(file.selected[next_selected].row - read.row_group_start);
          ++next_selected;
        }
        if (take.empty()) continue;
        read.take = std::move(take);
      }
      plan.push_back(std::move(read));
      plan_selected.push_back(selected_begin);
    }
    if (plan.size() == first_read) {  // no row groups: the file is still opened and checked
      RowGroupRead open_only;
      open_only.file = number;
      plan.push_back(std::move(open_only));
      plan_selected.push_back(0);
    }
  }
  SourceRowGroupReader source_reader(*source_io, table_schema, MakeReconcileOptions(), merge(),
                                     std::move(to_read));
  ReadAhead<DecodedRowGroup> reads(
      Pool(), plan.size(), ReadAheadFiles(), ReadAheadBytes(),
      [&](size_t k) { return source_reader.Read(plan[k]); }, [&](size_t k) { return plan[k].cost; });
  // Every selected row becomes one staged entry: reserved once, since a
  // growing vector briefly holds its old and new buffers (~48 B per entry).
  std::vector<StagedLive> lives;
  if (merging()) {
    size_t selected_rows = 0;
    for (const PassedFile& file : passed) selected_rows += file.selected.size();
    lives.reserve(selected_rows);
  }
  for (size_t k = 0; k < plan.size(); ++k) {
    DecodedRowGroup decoded = reads.Next();
    const RowGroupRead& read = plan[k];
    PassedFile& file = *read_files[read.file];
    Status written = WriteRowGroup(files[file.index], file, read, plan_selected[k], decoded, now_ms, *writer,
                                   &lives, merging() ? nullptr : &result.counts.inserted, failure);
    if (!written.ok()) {
      writer->AbortAndDelete();
      return written;
    }
    if (k + 1 == plan.size() || plan[k + 1].file != read.file) {
      // The file's rows are staged in `lives` now; free its selection and reader.
      std::vector<SelectedRow>().swap(file.selected);
      source_reader.Release(read.file);
    }
  }
  return Commit(std::move(result), batch_id, now_ms, evolved, table_schema, *writer, std::move(lives),
                std::move(tombstones), std::move(deletes));
}

Status TableIngestor::Impl::WriteRowGroup(const SourceUnit& source, const PassedFile& file,
                                          const RowGroupRead& read, size_t first_selected,
                                          DecodedRowGroup& decoded, int64_t now_ms, BatchDataWriter& writer,
                                          std::vector<StagedLive>* lives, int64_t* appended,
                                          std::optional<FileFailure>* failure) {
  if (!decoded.status.ok()) {
    if (!decoded.file_fault) return decoded.status;
    // Retryable failures fail the batch (redone later); only the file's own faults quarantine it.
    if (!decoded.status.retryable()) *failure = FileFailure{file.index, decoded.status.message()};
    return decoded.status.WithContext(source.uri);
  }
  if (!decoded.conformed) return Status::OK();  // nothing kept (or the file has no row groups)
  const LineageValues lineage{source.uri, source.mtime_ms * 1000, now_ms * 1000};
  std::vector<int64_t> source_rows(decoded.take.size());
  for (size_t j = 0; j < decoded.take.size(); ++j) source_rows[j] = read.row_group_start + decoded.take[j];
  FLOE_RETURN_IF_ERROR(
      FillLineageColumns(options.settings.lineage, lineage, source_rows, &*decoded.conformed));
  std::vector<RowLocation> locations;
  FLOE_RETURN_IF_ERROR(
      writer.Write(*decoded.conformed, &locations).WithContext("writing rows of " + source.uri));
  if (appended) *appended += static_cast<int64_t>(locations.size());
  if (merging()) {
    for (size_t j = 0; j < locations.size(); ++j) {
      const SelectedRow& selected = file.selected[first_selected + j];
      lives->push_back(StagedLive{selected.key, selected.order, locations[j]});
    }
  }
  return Status::OK();
}

Result<BatchResult> TableIngestor::Impl::Commit(BatchResult result, int64_t batch_id, int64_t now_ms,
                                                bool evolved, const iceberg::Schema& table_schema,
                                                BatchDataWriter& writer, std::vector<StagedLive> lives,
                                                std::vector<std::pair<KeyId, OrderValue>> tombstones,
                                                std::map<std::string, std::vector<int64_t>> deletes) {
  auto data_files = writer.Close();
  if (!data_files.ok()) {
    writer.AbortAndDelete();
    return data_files.status();
  }
  const int64_t retention = merge().tombstone_retention_ms;
  auto apply_to_index = [&]() {
    index->Reserve(std::exchange(index_new_keys, 0));  // one growth step, not a cascade
    for (const StagedLive& live : lives) {
      index->PutLive(live.key, writer.path(live.location.file), live.location.position, live.order);
    }
    for (const auto& [key, order] : tombstones) index->PutTombstone(key, order, now_ms);
    if (retention > 0) index->DropTombstonesBefore(now_ms - retention);
  };

  if (data_files->empty() && deletes.empty()) {
    // Nothing for a snapshot; tombstones of absent keys still matter, so the
    // index of the current snapshot is rewritten with them.
    if (merging() && !tombstones.empty()) {
      index_valid = false;
      apply_to_index();
      const int64_t snapshot_id = table->metadata().current_snapshot_id.value_or(0);
      FLOE_RETURN_IF_ERROR(index->Save(*state_io, options.state_dir, snapshot_id)
                               .WithContext("saving the key index of " + options.table.ToString()));
      index_valid = true;
    }
    return result;
  }

  BatchDeleteOptions delete_options;
  delete_options.file.parquet.codec = codec.codec;
  delete_options.file.parquet.compression_level = options.settings.target.codec_level.value_or(0);
  delete_options.file_prefix = DataFilePrefix(batch_id);
  delete_options.file.parquet.pool = Pool();
  std::vector<std::string> deleted_data_files;
  for (const auto& [path, positions] : deletes) deleted_data_files.push_back(path);
  auto delete_files = WriteBatchDeletes(table->io(), table->metadata(), std::move(deletes), delete_options);
  if (!delete_files.ok()) {
    writer.AbortAndDelete();
    return delete_files.status().WithContext("writing deletes of " + options.table.ToString());
  }
  auto discard_written = [&]() {
    writer.AbortAndDelete();
    for (const std::string& path : delete_files->written_paths) (void)table->io().Delete(path);
  };

  iceberg::RowDelta delta = table->NewRowDelta();
  for (const iceberg::DataFile& file : *data_files) delta.AddRows(file);
  for (const iceberg::DataFile& file : delete_files->added) delta.AddDeletes(file);
  for (const iceberg::DataFile& file : delete_files->replaced) delta.RemoveDeletes(file);
  for (const std::string& path : deleted_data_files) delta.ValidateDataFileExists(path);
  if (evolved) delta.SetSchema(table_schema);
  delta.Set(kSummaryPipeline, options.pipeline_name)
      .Set(kSummaryBatchId, std::to_string(batch_id))
      .Set(kSummarySourceFiles, std::to_string(result.counts.files))
      .Set(kSummaryRowsInserted, std::to_string(result.counts.inserted))
      .Set(kSummaryRowsUpdated, std::to_string(result.counts.updated))
      .Set(kSummaryRowsDeleted, std::to_string(result.counts.deleted))
      .Set(kSummaryRowsStale, std::to_string(result.counts.stale));

  // The index of the new snapshot is saved before the commit, so a crash
  // right after the commit finds it.
  std::string saved_index;
  if (merging()) {
    index_valid = false;
    apply_to_index();
    Status saved = index->Save(*state_io, options.state_dir, delta.snapshot_id());
    if (!saved.ok()) {
      discard_written();
      return saved.WithContext("saving the key index of " + options.table.ToString());
    }
    saved_index = PrimaryKeyIndex::FilePath(options.state_dir, delta.snapshot_id());
  }
  auto committed = delta.Commit();
  if (!committed.ok()) {
    if (committed.status().kind() != ErrorKind::kCommitStateUnknown) {
      discard_written();
      if (!saved_index.empty()) (void)state_io->Delete(saved_index);
    }
    return committed.status().WithContext("committing batch " + std::to_string(batch_id) + " to " +
                                          options.table.ToString());
  }
  if (merging()) {
    // Index files of older snapshots are dead weight (one per commit otherwise,
    // ~32 B per key each): keep the new snapshot's and the previous one's.
    std::vector<int64_t> keep{committed->snapshot_id};
    if (index_snapshot) keep.push_back(*index_snapshot);
    index_snapshot = committed->snapshot_id;
    index_valid = true;
    Status pruned =
        PrimaryKeyIndex::RemoveIndexFilesExcept(*state_io, options.state_dir, keep, &result.warnings);
    if (!pruned.ok()) result.warnings.push_back("key index files not pruned: " + pruned.ToString());
  }
  result.snapshot_id = committed->snapshot_id;
  result.counts.data_files_written = static_cast<int64_t>(data_files->size());
  result.counts.delete_files_written = static_cast<int64_t>(delete_files->added.size());
  return result;
}

TableIngestor::TableIngestor(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TableIngestor::~TableIngestor() = default;

Result<std::unique_ptr<TableIngestor>> TableIngestor::Open(catalog::Catalog& catalog,
                                                           std::shared_ptr<FileIO> source_io,
                                                           std::shared_ptr<FileIO> state_io,
                                                           TableIngestorOptions options) {
  if (!source_io || !state_io)
    return Status::InvalidArgument("table ingestor needs source and state FileIOs");
  const TableSettings& settings = options.settings;
  const std::string table_name = options.table.ToString();
  if (settings.merge.mode == WriteMode::kMerge) {
    if (settings.merge.keys.empty()) {
      return Status::InvalidArgument(table_name + ": [merge] keys: merge mode needs at least one key column");
    }
    if (settings.merge.order_column.empty()) {
      return Status::InvalidArgument(table_name +
                                     ": [merge] order_column: merge mode needs an ordering column");
    }
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
  auto impl =
      std::make_unique<Impl>(catalog, std::move(source_io), std::move(state_io), std::move(options), codec);
  FLOE_RETURN_IF_ERROR(impl->LoadTable());
  if (impl->table && impl->table->metadata().format_version < 2) {
    return Status::NotSupported(table_name + ": format version 1 tables cannot take row-level deletes");
  }
  return std::unique_ptr<TableIngestor>(new TableIngestor(std::move(impl)));
}

Result<BatchResult> TableIngestor::ApplyBatch(const std::vector<SourceUnit>& files, int64_t batch_id,
                                              const ProgressFn& progress) {
  Impl& impl = *impl_;
  if (impl.table) {
    Status refreshed = impl.table->Refresh();
    if (!refreshed.ok()) return refreshed.WithContext("table " + impl.options.table.ToString());
  } else {
    FLOE_RETURN_IF_ERROR(impl.LoadTable());
  }
  // A file that fails in pass 2 is quarantined and the batch redone without
  // it; each round removes one file, so this ends.
  std::set<size_t> skipped;
  std::set<size_t> progress_reported;  // a redo does not report a file twice
  std::vector<QuarantinedFile> failed_late;
  while (true) {
    std::optional<FileFailure> failure;
    auto result = impl.Attempt(files, batch_id, progress, skipped, &progress_reported, &failure);
    if (result.ok()) {
      for (QuarantinedFile& file : failed_late) result->quarantined.push_back(std::move(file));
      return result;
    }
    if (!failure || skipped.count(failure->index)) {
      impl.index_valid = false;
      return result.status();
    }
    skipped.insert(failure->index);
    failed_late.push_back({files[failure->index].uri, failure->reason});
    if (impl.options.on_quarantine) impl.options.on_quarantine(failed_late.back());
  }
}

const iceberg::TableMetadata* TableIngestor::metadata() const {
  return impl_->table ? &impl_->table->metadata() : nullptr;
}

Result<std::optional<int64_t>> TableIngestor::FindCommittedBatch(catalog::Catalog& catalog,
                                                                 const catalog::TableIdentifier& table,
                                                                 const std::string& pipeline,
                                                                 int64_t batch_id) {
  auto ops = catalog.LoadTable(table);
  if (!ops.ok()) {
    if (ops.status().kind() == ErrorKind::kNotFound) return std::optional<int64_t>();
    return ops.status().WithContext("table " + table.ToString());
  }
  auto loaded = (*ops)->Load();
  if (!loaded.ok()) return loaded.status().WithContext("table " + table.ToString());
  const iceberg::TableMetadata& metadata = loaded->metadata;
  const std::string wanted_batch = std::to_string(batch_id);
  const iceberg::Snapshot* snapshot = metadata.CurrentSnapshot();
  // Bounded by the snapshot count, so a parent cycle in bad metadata cannot loop forever.
  for (size_t steps = 0; snapshot != nullptr && steps <= metadata.snapshots.size(); ++steps) {
    auto pipeline_value = snapshot->summary.find(kSummaryPipeline);
    auto batch_value = snapshot->summary.find(kSummaryBatchId);
    if (pipeline_value != snapshot->summary.end() && pipeline_value->second == pipeline &&
        batch_value != snapshot->summary.end() && batch_value->second == wanted_batch) {
      return std::optional<int64_t>(snapshot->snapshot_id);
    }
    if (!snapshot->parent_snapshot_id) break;
    snapshot = metadata.SnapshotById(*snapshot->parent_snapshot_id);
  }
  return std::optional<int64_t>();
}

}  // namespace floe::ingest
