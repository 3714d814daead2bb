#include "iceberg/scan/changelog_scan.h"

#include <algorithm>
#include <cstring>
#include <set>
#include <unordered_map>
#include <utility>

#include "columnar/column_rows.h"
#include "common/thread_pool.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/scan/delete_readers.h"

namespace floe::iceberg {
namespace {

constexpr int64_t kDeleteRowsPerBatch = 65536;

// Delete files keyed by path and, for deletion vectors, their offset in the Puffin file.
using DeleteKey = std::pair<std::string, int64_t>;

DeleteKey KeyOf(const DataFile& file) {
  return {file.file_path, file.content_offset.value_or(-1)};
}

// The live files of one snapshot: what a commit's rows are read against.
struct LiveFiles {
  std::map<std::string, ScanFile> data;
  std::map<DeleteKey, ScanFile> deletes;

  void Add(ScanFile file) {
    if (file.file.content == DataFileContent::kData) {
      std::string path = file.file.file_path;
      data[path] = std::move(file);
    } else {
      DeleteKey key = KeyOf(file.file);
      deletes[key] = std::move(file);
    }
  }
  void Remove(const DataFile& file) {
    if (file.content == DataFileContent::kData) {
      data.erase(file.file_path);
    } else {
      deletes.erase(KeyOf(file));
    }
  }
  std::vector<ScanFile> DeletesFor(const ScanFile& data_file) const {
    std::vector<ScanFile> out;
    for (const auto& [key, deletes_file] : deletes) {
      if (DeleteApplies(deletes_file, data_file)) out.push_back(deletes_file);
    }
    return out;
  }
};

// The files one snapshot added and removed (entries stamped with its id).
struct CommitDelta {
  std::vector<ScanFile> added;
  std::vector<ScanFile> removed;
};

Result<std::vector<ManifestFile>> ManifestsOf(FileIO& io, const Snapshot& snapshot) {
  if (snapshot.manifest_list.empty()) {
    return Status::NotSupported("snapshot " + std::to_string(snapshot.snapshot_id) +
                                " lists manifests inline (v1 without a manifest list)");
  }
  return ReadManifestList(io, snapshot.manifest_list);
}

Result<CommitDelta> ReadCommitDelta(FileIO& io, const TableMetadata& metadata, const Schema& schema,
                                    const Snapshot& snapshot) {
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests, ManifestsOf(io, snapshot));
  CommitDelta delta;
  for (const ManifestFile& manifest : manifests) {
    // Only a manifest the snapshot wrote holds entries it added or removed.
    if (manifest.added_snapshot_id != snapshot.snapshot_id) continue;
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries,
                          ReadScanManifest(io, metadata, manifest, schema));
    for (ManifestEntry& entry : entries) {
      if (entry.snapshot_id != snapshot.snapshot_id) continue;
      ScanFile file{std::move(entry.data_file), entry.sequence_number.value_or(0)};
      if (entry.status == ManifestEntryStatus::kAdded) delta.added.push_back(std::move(file));
      if (entry.status == ManifestEntryStatus::kDeleted) delta.removed.push_back(std::move(file));
    }
  }
  return delta;
}

Result<LiveFiles> ReadLiveFiles(FileIO& io, const TableMetadata& metadata, const Schema& schema,
                                const Snapshot& snapshot) {
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests, ManifestsOf(io, snapshot));
  LiveFiles live;
  for (const ManifestFile& manifest : manifests) {
    FLOE_ASSIGN_OR_RETURN(std::vector<ManifestEntry> entries,
                          ReadScanManifest(io, metadata, manifest, schema));
    for (ManifestEntry& entry : entries) {
      if (entry.status == ManifestEntryStatus::kDeleted) continue;
      live.Add(ScanFile{std::move(entry.data_file), entry.sequence_number.value_or(0)});
    }
  }
  return live;
}

bool IsMaintenance(const Snapshot& snapshot) {
  return snapshot.operation() == kOperationReplace || snapshot.summary.count(kMaintenanceSummaryKey) > 0;
}

// Appends a byte encoding of one cell to `out`: equal cells of one type
// encode equally, and the encoding of a row (cells appended in column
// order) identifies it. Nulls and lengths are explicit, so no two
// different rows share an encoding. Bytes, not Iceberg equality: a
// carry-over is a row read back unchanged from a rewritten file.
void AppendCellBytes(const Column& column, int64_t row, std::string* out) {
  if (column.IsNull(row)) {
    out->push_back('\0');
    return;
  }
  out->push_back('\1');
  const int32_t width = column.type.fixed_width();
  if (width > 0) {
    out->append(reinterpret_cast<const char*>(column.values.data()) + row * width,
                static_cast<size_t>(width));
    return;
  }
  auto append_length = [out](int64_t length) {
    out->append(reinterpret_cast<const char*>(&length), sizeof length);
  };
  switch (column.type.id) {
    case TypeId::kString:
    case TypeId::kBinary: {
      const std::string_view bytes = column.StringAt(row);
      append_length(static_cast<int64_t>(bytes.size()));
      out->append(bytes);
      return;
    }
    case TypeId::kStruct:
      for (const Column& child : column.children) AppendCellBytes(child, row, out);
      return;
    case TypeId::kList:
    case TypeId::kMap: {
      const int64_t begin = column.offsets[row];
      const int64_t end = column.offsets[row + 1];
      append_length(end - begin);
      for (int64_t i = begin; i < end; ++i) {
        for (const Column& child : column.children) AppendCellBytes(child, i, out);
      }
      return;
    }
    default: return;
  }
}

std::string RowBytes(const RecordBatch& batch, const std::vector<int>& columns, int64_t row) {
  std::string out;
  for (int c : columns) AppendCellBytes(batch.columns[static_cast<size_t>(c)], row, &out);
  return out;
}

Column ConstantLongs(int64_t value, int64_t length) {
  Column column(Int64());
  column.values.resize(static_cast<size_t>(length) * sizeof(int64_t));
  for (int64_t i = 0; i < length; ++i)
    std::memcpy(column.values.data() + i * sizeof value, &value, sizeof value);
  column.length = length;
  return column;
}

class CommitChangeReader final : public ChangeReader {
 public:
  CommitChangeReader(const ChangelogCommit& commit, std::shared_ptr<FileIO> io, const TableScan& reader,
                     const floe::Schema& output_schema, std::vector<int> key_indexes, size_t table_columns,
                     ThreadPool* pool)
      : commit_(commit),
        io_(std::move(io)),
        reader_(reader),
        pool_(pool),
        output_schema_(output_schema),
        key_indexes_(std::move(key_indexes)),
        table_columns_(table_columns) {
    for (size_t i = 0; i < table_columns_; ++i) row_columns_.push_back(static_cast<int>(i));
    if (key_indexes_.empty()) key_indexes_ = row_columns_;  // only carry-overs match
    keyed_ = key_indexes_ != row_columns_;
  }

  Result<std::optional<RecordBatch>> Next() override {
    if (!removed_read_) {
      FLOE_RETURN_IF_ERROR(ReadRemovedRows());
      removed_read_ = true;
    }
    while (next_added_ < commit_.added.size()) {
      if (!added_reader_) {
        const FileScanTask& task = commit_.added[next_added_].task;
        auto opened = reader_.Open(task);
        if (!opened.ok()) return opened.status().WithContext(task.data.file.file_path);
        added_reader_ = std::move(*opened);
      }
      auto batch = added_reader_->Next();
      if (!batch.ok()) return batch.status().WithContext(commit_.added[next_added_].task.data.file.file_path);
      if (!batch->has_value()) {
        added_reader_.reset();
        ++next_added_;
        continue;
      }
      FLOE_ASSIGN_OR_RETURN(std::optional<RecordBatch> out, EmitAdded(std::move(**batch)));
      if (out) return out;
    }
    // What no added row matched was deleted.
    while (next_delete_ < removed_.num_rows) {
      std::vector<int64_t> rows;
      while (next_delete_ < removed_.num_rows && static_cast<int64_t>(rows.size()) < kDeleteRowsPerBatch) {
        if (!consumed_[static_cast<size_t>(next_delete_)]) rows.push_back(next_delete_);
        ++next_delete_;
      }
      if (rows.empty()) continue;
      FLOE_ASSIGN_OR_RETURN(RecordBatch taken, TakeBatchRows(removed_, rows));
      std::vector<const char*> types(rows.size(), kChangeDelete);
      std::vector<int64_t> ordinals(rows.size());
      for (int64_t& ordinal : ordinals) ordinal = next_ordinal_++;
      return std::optional<RecordBatch>(Finish(std::move(taken), types, ordinals));
    }
    return std::optional<RecordBatch>();
  }

 private:
  // The table columns of a scan batch (its trailing _pos dropped).
  RecordBatch TableColumns(RecordBatch batch) const {
    batch.columns.resize(table_columns_);
    batch.schema.resize(table_columns_);
    return batch;
  }

  // The rows `rows` names as removed, read from its data file: at the
  // positions named, or every live row when the file itself was removed.
  Result<std::vector<RecordBatch>> ReadRemovedFile(const ChangedFileRows& rows) const {
    std::vector<RecordBatch> out;
    const std::string& path = rows.task.data.file.file_path;
    std::optional<std::vector<int64_t>> positions = rows.positions;
    if (!positions && !rows.new_deletes.empty()) {
      positions.emplace();
      for (const DataFile& deletes : rows.new_deletes) {
        auto read = ReadPositionDeletes(*io_, deletes);
        if (!read.ok()) return read.status().WithContext(deletes.file_path);
        if (auto it = read->find(path); it != read->end()) {
          positions->insert(positions->end(), it->second.begin(), it->second.end());
        }
      }
      std::sort(positions->begin(), positions->end());
      positions->erase(std::unique(positions->begin(), positions->end()), positions->end());
    }
    if (positions && positions->empty()) return out;
    auto opened =
        positions ? reader_.OpenPositions(rows.task, std::move(*positions)) : reader_.Open(rows.task);
    if (!opened.ok()) return opened.status().WithContext(path);
    while (true) {
      auto batch = (*opened)->Next();
      if (!batch.ok()) return batch.status().WithContext(path);
      if (!batch->has_value()) break;
      out.push_back(TableColumns(std::move(**batch)));
    }
    return out;
  }

  // Reads the removed rows of every file (in parallel on pool_ when set),
  // in the order of commit_.removed, and indexes them by key.
  Status ReadRemovedRows() {
    std::vector<std::vector<RecordBatch>> per_file(commit_.removed.size());
    TaskGroup group(pool_);
    for (size_t i = 0; i < commit_.removed.size(); ++i) {
      group.Run([this, i, &per_file]() -> Status {
        FLOE_ASSIGN_OR_RETURN(per_file[i], ReadRemovedFile(commit_.removed[i]));
        return Status::OK();
      });
    }
    FLOE_RETURN_IF_ERROR(group.Wait());
    std::vector<RecordBatch> pieces;
    for (std::vector<RecordBatch>& batches : per_file) {
      for (RecordBatch& batch : batches) pieces.push_back(std::move(batch));
    }
    if (pieces.empty()) {
      removed_.schema = floe::Schema(output_schema_.begin(), output_schema_.begin() + table_columns_);
      for (const floe::Field& field : removed_.schema)
        removed_.columns.push_back(MakeEmptyColumn(field.type));
    } else if (pieces.size() == 1) {
      removed_ = std::move(pieces.front());
    } else {
      FLOE_ASSIGN_OR_RETURN(removed_, ConcatBatches(pieces));
    }
    consumed_.assign(static_cast<size_t>(removed_.num_rows), false);
    // Backwards, so each key's chain runs from its first row up.
    next_same_key_.assign(static_cast<size_t>(removed_.num_rows), -1);
    by_key_.reserve(static_cast<size_t>(removed_.num_rows));
    for (int64_t row = removed_.num_rows - 1; row >= 0; --row) {
      auto [it, fresh] = by_key_.try_emplace(RowBytes(removed_, key_indexes_, row), row);
      if (!fresh) {
        next_same_key_[static_cast<size_t>(row)] = it->second;
        it->second = row;
      }
    }
    return Status::OK();
  }

  // Pairs the rows of one added batch with removed rows of the same key.
  Result<std::optional<RecordBatch>> EmitAdded(RecordBatch scanned) {
    RecordBatch added = TableColumns(std::move(scanned));
    // Output rows as (from removed?, row) in order, with their types and ordinals.
    std::vector<int64_t> pre_rows;
    std::vector<std::pair<bool, int64_t>> order;
    std::vector<const char*> types;
    std::vector<int64_t> ordinals;
    for (int64_t row = 0; row < added.num_rows; ++row) {
      std::optional<int64_t> match;
      if (!by_key_.empty()) {
        auto it = by_key_.find(RowBytes(added, key_indexes_, row));
        if (it != by_key_.end()) {
          match = it->second;
          const int64_t next = next_same_key_[static_cast<size_t>(*match)];
          if (next < 0) {
            by_key_.erase(it);
          } else {
            it->second = next;
          }
          consumed_[static_cast<size_t>(*match)] = true;
        }
      }
      if (!match) {
        order.emplace_back(false, row);
        types.push_back(kChangeInsert);
        ordinals.push_back(next_ordinal_++);
        continue;
      }
      // A row rewritten unchanged is no change (without a key, every match is one).
      if (!keyed_ || RowBytes(removed_, row_columns_, *match) == RowBytes(added, row_columns_, row)) continue;
      order.emplace_back(true, static_cast<int64_t>(pre_rows.size()));
      pre_rows.push_back(*match);
      order.emplace_back(false, row);
      types.push_back(kChangeUpdatePreimage);
      types.push_back(kChangeUpdatePostimage);
      ordinals.push_back(next_ordinal_);
      ordinals.push_back(next_ordinal_++);
    }
    if (order.empty()) return std::optional<RecordBatch>();
    RecordBatch combined;
    const auto pre_count = static_cast<int64_t>(pre_rows.size());
    if (pre_rows.empty()) {
      combined = std::move(added);
    } else {
      FLOE_ASSIGN_OR_RETURN(RecordBatch pre, TakeBatchRows(removed_, pre_rows));
      FLOE_ASSIGN_OR_RETURN(combined, ConcatBatches({std::move(pre), std::move(added)}));
    }
    std::vector<int64_t> indexes;
    indexes.reserve(order.size());
    bool identity = pre_rows.empty() && static_cast<int64_t>(order.size()) == combined.num_rows;
    for (const auto& [from_removed, row] : order) indexes.push_back(from_removed ? row : pre_count + row);
    if (identity) {
      for (size_t i = 0; i < indexes.size() && identity; ++i)
        identity = indexes[i] == static_cast<int64_t>(i);
    }
    RecordBatch out;
    if (identity) {
      out = std::move(combined);
    } else {
      FLOE_ASSIGN_OR_RETURN(out, TakeBatchRows(combined, indexes));
    }
    return std::optional<RecordBatch>(Finish(std::move(out), types, ordinals));
  }

  // Appends the change columns.
  RecordBatch Finish(RecordBatch rows, const std::vector<const char*>& types,
                     const std::vector<int64_t>& ordinals) const {
    const int64_t n = rows.num_rows;
    Column change_type(String());
    for (const char* type : types) change_type.AppendBytes(type);
    Column ordinal(Int64());
    ordinal.values.resize(ordinals.size() * sizeof(int64_t));
    std::memcpy(ordinal.values.data(), ordinals.data(), ordinal.values.size());
    ordinal.length = n;
    Column timestamp = ConstantLongs(commit_.timestamp_ms * 1000, n);
    timestamp.type = Timestamp(TimeUnit::kMicro, true);
    rows.columns.push_back(std::move(change_type));
    rows.columns.push_back(ConstantLongs(commit_.snapshot_id, n));
    rows.columns.push_back(std::move(timestamp));
    rows.columns.push_back(std::move(ordinal));
    rows.schema = output_schema_;
    return rows;
  }

  ChangelogCommit commit_;
  std::shared_ptr<FileIO> io_;
  const TableScan& reader_;
  ThreadPool* pool_;
  const floe::Schema& output_schema_;
  std::vector<int> key_indexes_;
  std::vector<int> row_columns_;
  bool keyed_ = false;
  size_t table_columns_;
  bool removed_read_ = false;
  RecordBatch removed_;
  std::vector<bool> consumed_;
  // Each key's first removed row not yet paired; next_same_key_ chains the
  // key's later rows (-1 ends a chain).
  std::unordered_map<std::string, int64_t> by_key_;
  std::vector<int64_t> next_same_key_;
  size_t next_added_ = 0;
  std::unique_ptr<TaskReader> added_reader_;
  int64_t next_delete_ = 0;
  int64_t next_ordinal_ = 0;
};

std::vector<std::string> SplitNames(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string name = text.substr(start, comma - start);
    const size_t begin = name.find_first_not_of(' ');
    const size_t end = name.find_last_not_of(' ');
    if (begin != std::string::npos) out.push_back(name.substr(begin, end - begin + 1));
    start = comma + 1;
  }
  return out;
}

}  // namespace

std::vector<floe::Field> ChangeColumnFields() {
  return {MakeField(kChangeTypeColumn, String(), false), MakeField(kCommitSnapshotIdColumn, Int64(), false),
          MakeField(kCommitTimestampColumn, Timestamp(TimeUnit::kMicro, true), false),
          MakeField(kChangeOrdinalColumn, Int64(), false)};
}

ChangelogScan::~ChangelogScan() = default;

Status ChangelogScan::Init(std::vector<std::string> key_columns) {
  ScanOptions scan_options;
  scan_options.read_schema = schema_;
  scan_options.with_row_positions = true;
  FLOE_ASSIGN_OR_RETURN(reader_, TableScan::Make(metadata_, io_, std::move(scan_options)));
  FLOE_ASSIGN_OR_RETURN(output_schema_, ToFloeSchema(schema_));
  for (const floe::Field& field : ChangeColumnFields()) {
    for (const floe::Field& existing : output_schema_) {
      if (existing.name == field.name) {
        return Status::NotSupported("the table has a column named " + field.name +
                                    ", which the change feed adds itself");
      }
    }
    output_schema_.push_back(field);
  }
  key_columns_ = std::move(key_columns);
  for (const std::string& name : key_columns_) {
    int index = -1;
    for (size_t i = 0; i < schema_.fields.size(); ++i) {
      if (schema_.fields[i].name == name) index = static_cast<int>(i);
    }
    if (index < 0) return Status::InvalidArgument("key column '" + name + "' is not in the table schema");
    if (!schema_.fields[static_cast<size_t>(index)].type.is_primitive()) {
      return Status::InvalidArgument("key column '" + name + "' is not a primitive column");
    }
    key_indexes_.push_back(index);
  }
  return Status::OK();
}

Result<std::unique_ptr<ChangelogScan>> ChangelogScan::Make(TableMetadata metadata, std::shared_ptr<FileIO> io,
                                                           ChangelogOptions options) {
  std::unique_ptr<ChangelogScan> scan(new ChangelogScan());
  scan->metadata_ = std::move(metadata);
  scan->io_ = std::move(io);
  scan->options_ = std::move(options);
  const TableMetadata& m = scan->metadata_;
  const Snapshot* to = nullptr;
  if (scan->options_.to_snapshot_id) {
    to = m.SnapshotById(*scan->options_.to_snapshot_id);
    if (to == nullptr) {
      return Status::InvalidArgument("snapshot " + std::to_string(*scan->options_.to_snapshot_id) +
                                     " is not in the table");
    }
  } else {
    to = m.CurrentSnapshot();
  }
  const Schema* schema = m.CurrentSchema();
  if (to != nullptr) {
    scan->to_snapshot_id_ = to->snapshot_id;
    if (to->schema_id && m.SchemaById(*to->schema_id) != nullptr) schema = m.SchemaById(*to->schema_id);
  }
  if (schema == nullptr) return Status::Corruption("table metadata has no current schema");
  scan->schema_ = *schema;
  std::vector<std::string> keys = scan->options_.key_columns;
  if (keys.empty()) keys = DefaultChangeKeyColumns(m, scan->schema_);
  if (!scan->options_.columns.empty())
    scan->schema_ = ProjectColumns(scan->schema_, scan->options_.columns, keys);
  FLOE_RETURN_IF_ERROR(scan->Init(std::move(keys)));
  return scan;
}

Schema ProjectColumns(const Schema& schema, const std::vector<std::string>& columns,
                      const std::vector<std::string>& keys) {
  auto wanted = [&](const std::string& name) {
    return std::find(columns.begin(), columns.end(), name) != columns.end() ||
           std::find(keys.begin(), keys.end(), name) != keys.end();
  };
  Schema projected = schema;
  projected.fields.clear();
  projected.identifier_field_ids.clear();
  for (const NestedField& field : schema.fields) {
    if (wanted(field.name)) projected.fields.push_back(field);
  }
  for (int32_t id : schema.identifier_field_ids) {
    for (const NestedField& field : projected.fields) {
      if (field.id == id) projected.identifier_field_ids.push_back(id);
    }
  }
  return projected;
}

std::vector<std::string> DefaultChangeKeyColumns(const TableMetadata& metadata, const Schema& schema) {
  std::vector<std::string> keys;
  for (int32_t id : schema.identifier_field_ids) {
    for (const NestedField& field : schema.fields) {
      if (field.id == id) keys.push_back(field.name);
    }
  }
  if (keys.empty()) keys = SplitNames(metadata.Property(kMergeKeysProperty, ""));
  return keys;
}

Result<std::unique_ptr<ChangelogScan>> ChangelogScan::ForPendingCommit(TableMetadata base,
                                                                       std::shared_ptr<FileIO> io,
                                                                       const Schema& schema,
                                                                       std::vector<std::string> key_columns,
                                                                       PendingCommit commit) {
  std::unique_ptr<ChangelogScan> scan(new ChangelogScan());
  scan->metadata_ = std::move(base);
  scan->io_ = std::move(io);
  scan->schema_ = schema;
  scan->to_snapshot_id_ = commit.snapshot_id;
  FLOE_RETURN_IF_ERROR(scan->Init(std::move(key_columns)));
  ChangelogCommit pending;
  pending.snapshot_id = commit.snapshot_id;
  pending.timestamp_ms = commit.timestamp_ms;
  pending.sequence_number = scan->metadata_.last_sequence_number + 1;
  // The deleted positions are live rows (the caller's guarantee), so no
  // older delete file needs reading; the new data files have none yet.
  for (auto& [path, positions] : commit.deleted_positions) {
    ChangedFileRows rows;
    rows.task.data.file.file_path = path;
    std::sort(positions.begin(), positions.end());
    positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
    rows.positions = std::move(positions);
    pending.removed.push_back(std::move(rows));
  }
  for (DataFile& file : commit.added_data_files) {
    ChangedFileRows rows;
    rows.task.data.file = std::move(file);
    pending.added.push_back(std::move(rows));
  }
  scan->pending_ = std::move(pending);
  return scan;
}

Result<std::vector<ChangelogCommit>> ChangelogScan::PlanCommits() {
  std::vector<ChangelogCommit> commits;
  if (pending_) {
    commits.push_back(*pending_);
    return commits;
  }
  if (!to_snapshot_id_) {
    if (options_.from_snapshot_id) {
      return Status::InvalidArgument("snapshot " + std::to_string(*options_.from_snapshot_id) +
                                     " is not in the table (it has no snapshots)");
    }
    return commits;
  }
  const TableMetadata& m = metadata_;
  const std::optional<int64_t> from = options_.from_snapshot_id;
  // The range, newest first: `to` back to (not including) `from`. The walk
  // is bounded by the number of snapshots, so a parent cycle cannot hang it.
  std::vector<const Snapshot*> range;
  bool reached = false;
  const Snapshot* s = m.SnapshotById(*to_snapshot_id_);
  for (size_t steps = 0; s != nullptr && steps <= m.snapshots.size(); ++steps) {
    if (from && s->snapshot_id == *from) {
      reached = true;
      break;
    }
    range.push_back(s);
    if (!s->parent_snapshot_id) {
      reached = !from;
      break;
    }
    if (from && *s->parent_snapshot_id == *from) {
      reached = true;  // `from` itself may have been expired
      break;
    }
    s = m.SnapshotById(*s->parent_snapshot_id);
  }
  if (!reached) {
    const std::string to_text = std::to_string(*to_snapshot_id_);
    if (!from) {
      return Status::InvalidArgument("the history of snapshot " + to_text +
                                     " no longer reaches the table's first snapshot (older snapshots were "
                                     "expired); give a snapshot to start from");
    }
    return Status::InvalidArgument("snapshot " + std::to_string(*from) + " is not an ancestor of snapshot " +
                                   to_text + " (or the snapshots between them were expired)");
  }
  if (range.empty()) return commits;
  std::reverse(range.begin(), range.end());

  // The live files before the range: the oldest commit's, with its own changes undone.
  FLOE_ASSIGN_OR_RETURN(LiveFiles live, ReadLiveFiles(*io_, m, schema_, *range.front()));
  FLOE_ASSIGN_OR_RETURN(CommitDelta first_delta, ReadCommitDelta(*io_, m, schema_, *range.front()));
  for (const ScanFile& file : first_delta.added) live.Remove(file.file);
  for (const ScanFile& file : first_delta.removed) live.Add(file);

  for (size_t i = 0; i < range.size(); ++i) {
    const Snapshot& snapshot = *range[i];
    CommitDelta delta;
    if (i == 0) {
      delta = std::move(first_delta);
    } else {
      FLOE_ASSIGN_OR_RETURN(delta, ReadCommitDelta(*io_, m, schema_, snapshot));
    }
    const bool maintenance = IsMaintenance(snapshot);
    ChangelogCommit commit;
    commit.snapshot_id = snapshot.snapshot_id;
    commit.sequence_number = snapshot.sequence_number;
    commit.timestamp_ms = snapshot.timestamp_ms;
    std::map<std::string, ChangedFileRows> removed;
    if (!maintenance) {
      for (const ScanFile& file : delta.added) {
        if (file.file.content == DataFileContent::kEqualityDeletes) {
          return Status::NotSupported("snapshot " + std::to_string(snapshot.snapshot_id) +
                                      " adds equality delete file " + file.file.file_path +
                                      "; the rows it deleted are ambiguous, so its changes cannot be listed");
        }
      }
      // A removed data file loses every row that was live; other files lose
      // the live rows the new delete files name.
      for (const ScanFile& file : delta.removed) {
        if (file.file.content != DataFileContent::kData) continue;
        ChangedFileRows& rows = removed[file.file.file_path];
        rows.task.data = file;
        rows.task.deletes = live.DeletesFor(file);
      }
      std::set<std::string> whole_files;
      for (const auto& [path, rows] : removed) whole_files.insert(path);
      for (const ScanFile& deletes : delta.added) {
        if (deletes.file.content != DataFileContent::kPositionDeletes) continue;
        std::vector<const ScanFile*> targets;
        if (deletes.file.referenced_data_file) {
          if (auto it = live.data.find(*deletes.file.referenced_data_file); it != live.data.end())
            targets.push_back(&it->second);
        } else {
          for (const auto& [path, data] : live.data) {
            if (DeleteApplies(deletes, data)) targets.push_back(&data);
          }
        }
        for (const ScanFile* target : targets) {
          if (whole_files.count(target->file.file_path) > 0) continue;
          auto [it, fresh] = removed.try_emplace(target->file.file_path);
          if (fresh) {
            it->second.task.data = *target;
            it->second.task.deletes = live.DeletesFor(*target);
          }
          it->second.new_deletes.push_back(deletes.file);
        }
      }
    }
    for (const ScanFile& file : delta.removed) live.Remove(file.file);
    for (const ScanFile& file : delta.added) live.Add(file);
    if (maintenance) continue;
    for (auto& [path, rows] : removed) commit.removed.push_back(std::move(rows));
    for (const ScanFile& file : delta.added) {
      if (file.file.content != DataFileContent::kData) continue;
      ChangedFileRows rows;
      rows.task.data = file;
      rows.task.deletes = live.DeletesFor(file);
      commit.added.push_back(std::move(rows));
    }
    if (!commit.removed.empty() || !commit.added.empty()) commits.push_back(std::move(commit));
  }
  return commits;
}

Result<std::unique_ptr<ChangeReader>> ChangelogScan::Open(const ChangelogCommit& commit) const {
  return std::unique_ptr<ChangeReader>(new CommitChangeReader(commit, io_, *reader_, output_schema_,
                                                              key_indexes_, schema_.fields.size(), pool_));
}

}  // namespace floe::iceberg
