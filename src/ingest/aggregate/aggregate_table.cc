#include "ingest/aggregate/aggregate_table.h"

#include <map>
#include <set>
#include <utility>

#include "iceberg/scan/changelog_scan.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/spec/random_ids.h"
#include "iceberg/spec/snapshot_ancestry.h"
#include "iceberg/transaction/fast_append.h"
#include "iceberg/transaction/row_delta.h"
#include "iceberg/transaction/table.h"
#include "iceberg/writer/position_delete_writer.h"
#include "ingest/aggregate/aggregate_groups.h"
#include "ingest/batch_recovery.h"

namespace floe::ingest {
namespace {

// A non-owning shared_ptr for scans that run within one call.
std::shared_ptr<FileIO> Borrowed(FileIO& io) {
  return std::shared_ptr<FileIO>(&io, [](FileIO*) {});
}

// Whether two column lists agree by name and type as Iceberg spells it
// (field ids, nullability and Parquet annotations aside).
bool SameColumns(const Schema& a, const Schema& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].name != b[i].name || a[i].type.ToString() != b[i].type.ToString()) return false;
  }
  return true;
}

// Per row of a change batch: +1 for insert and update_postimage, -1 for
// delete and update_preimage.
std::vector<int8_t> ChangeSigns(const RecordBatch& batch, size_t change_type_column) {
  const Column& types = batch.columns[change_type_column];
  std::vector<int8_t> signs(static_cast<size_t>(batch.num_rows));
  for (int64_t row = 0; row < batch.num_rows; ++row) {
    const std::string_view type = types.StringAt(row);
    signs[static_cast<size_t>(row)] =
        (type == iceberg::kChangeInsert || type == iceberg::kChangeUpdatePostimage) ? 1 : -1;
  }
  return signs;
}

// `config` bound to the first `columns.size() - drop_last` columns of a scan's output.
Result<BoundAggregate> BindToScan(const AggregateConfig& config, Schema columns, size_t drop_last) {
  columns.resize(columns.size() - drop_last);
  return BoundAggregate::Bind(config, columns);
}

// Every live row of the source's current snapshot accumulated (+1), only
// of the groups in `only` when set; only the columns `bound` reads are read.
Status AccumulateCurrentRows(const iceberg::TableMetadata& source, FileIO& source_io,
                             const BoundAggregate& bound, GroupStates* states,
                             const std::set<GroupKey>* only = nullptr,
                             BoundAggregate::Lateness* lateness = nullptr) {
  iceberg::ScanOptions options;
  if (!bound.source_columns().empty()) options.columns = bound.source_columns();
  FLOE_ASSIGN_OR_RETURN(auto scan, iceberg::TableScan::Make(source, Borrowed(source_io), options));
  FLOE_ASSIGN_OR_RETURN(BoundAggregate reading, BindToScan(bound.config(), scan->output_schema(), 0));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
  for (const iceberg::FileScanTask& task : tasks) {
    FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(task));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
      if (!batch) break;
      FLOE_RETURN_IF_ERROR(reading.Accumulate(*batch, nullptr, states, only, lateness));
    }
  }
  return Status::OK();
}

// An aggregate's watermark state as recorded with its source snapshot.
struct WatermarkState {
  std::optional<int64_t> max_event_ms;  // the largest window time applied
  int64_t late = 0;                     // late changes so far
};

WatermarkState RecordedWatermark(const iceberg::TableMetadata& table) {
  WatermarkState state;
  if (const iceberg::Snapshot* recording = NewestSourceRecording(table)) {
    state.max_event_ms = SummaryLong(*recording, kSummaryMaxEventTime);
    state.late = SummaryLong(*recording, kSummaryLateChanges).value_or(0);
  }
  return state;
}

// The watermark of `state`: windows ending at or before it are closed;
// nullopt when none can be (no time seen, or none earlier than the range).
std::optional<int64_t> WatermarkOf(const WatermarkState& state, int64_t delay_ms) {
  int64_t watermark = 0;
  if (!state.max_event_ms || __builtin_sub_overflow(*state.max_event_ms, delay_ms, &watermark))
    return std::nullopt;
  return watermark;
}

struct StoredGroup {
  GroupState state;
  std::string file;
  int64_t position = 0;
};

}  // namespace

catalog::TableIdentifier AggregateTableOf(const catalog::TableIdentifier& source,
                                          const AggregateConfig& config) {
  return catalog::TableIdentifier{source.ns, config.name};
}

Status AggregateTable::CheckTable(const iceberg::TableMetadata& table, const Schema& columns) const {
  const std::string name = id_.ToString();
  FLOE_ASSIGN_OR_RETURN(Schema table_columns, iceberg::ToFloeSchema(*table.CurrentSchema()));
  if (!SameColumns(table_columns, columns)) {
    return Status::InvalidArgument("table " + name + " has columns that differ from [[aggregates]] \"" +
                                   config_.name + "\" (drop the table and floe rebuilds it)");
  }
  // The same columns may hold another definition (a window's length, a filter).
  const std::string definition = AggregateDefinitionText(config_);
  if (auto kept = table.properties.find(kAggregateDefinitionProperty);
      kept != table.properties.end() && kept->second != definition) {
    return Status::InvalidArgument("table " + name + " was built for [[aggregates]] \"" + config_.name +
                                   "\" as " + kept->second + "; the config now says " + definition +
                                   " (drop the table and floe rebuilds it from the current rows of " +
                                   source_.ToString() + ")");
  }
  return Status::OK();
}

Result<AggregateInspection> AggregateTable::Inspect(const iceberg::TableMetadata& source) {
  AggregateInspection inspection;
  FLOE_ASSIGN_OR_RETURN(Schema source_columns, iceberg::ToFloeSchema(*source.CurrentSchema()));
  FLOE_ASSIGN_OR_RETURN(BoundAggregate bound, BoundAggregate::Bind(config_, source_columns));
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Table> table, LoadTableIfExists(catalog_, id_));
  if (!table) return inspection;
  inspection.exists = true;
  FLOE_RETURN_IF_ERROR(CheckTable(table->metadata(), bound.output_schema()));
  const std::optional<std::optional<int64_t>> recorded = RecordedSourceSnapshot(table->metadata());
  inspection.rebuild = !recorded.has_value();
  if (recorded) {
    // The source snapshots after the recorded one; a recorded snapshot not among them left the history.
    bool found = !recorded->has_value();
    for (const iceberg::Snapshot* snapshot : iceberg::CurrentAncestors(source)) {
      if (snapshot->snapshot_id == *recorded) {
        found = true;
        break;
      }
      ++inspection.snapshots_behind;
    }
    if (!found) {
      inspection.rebuild = true;
      inspection.snapshots_behind = 0;
    }
  }
  if (config_.watermark_ms) {
    const WatermarkState state = RecordedWatermark(table->metadata());
    inspection.watermark_ms = WatermarkOf(state, *config_.watermark_ms);
    inspection.late_changes = state.late;
  }
  return inspection;
}

AggregateTable::AggregateTable(catalog::Catalog& catalog, catalog::TableIdentifier source,
                               AggregateConfig config, AggregateOptions options)
    : catalog_(catalog),
      source_(std::move(source)),
      id_(AggregateTableOf(source_, config)),
      config_(std::move(config)),
      options_(std::move(options)) {}

Result<AggregateCatchUpResult> AggregateTable::CatchUp(const iceberg::TableMetadata& source,
                                                       FileIO& source_io,
                                                       const std::vector<std::string>& keys,
                                                       const JustCommitted* just_committed) {
  AggregateCatchUpResult result;
  const std::optional<int64_t> source_current = source.current_snapshot_id;
  if (!source_current) return result;
  const std::string name = id_.ToString();
  FLOE_ASSIGN_OR_RETURN(Schema source_columns, iceberg::ToFloeSchema(*source.CurrentSchema()));
  FLOE_ASSIGN_OR_RETURN(BoundAggregate bound, BoundAggregate::Bind(config_, source_columns));

  // The aggregate table, created on first use.
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Table> table, LoadTableIfExists(catalog_, id_));
  if (!table) {
    catalog::TableCreation creation;
    int32_t next_id = 1;
    FLOE_ASSIGN_OR_RETURN(creation.schema, iceberg::FromFloeSchema(bound.output_schema(), 2, &next_id));
    creation.properties = options_.table_properties;
    creation.properties[kAggregateDefinitionProperty] = AggregateDefinitionText(config_);
    auto ops = catalog_.CreateTable(id_, creation);
    if (!ops.ok()) return ops.status().WithContext("creating table " + name);
    auto loaded = iceberg::Table::Load(*ops);
    if (!loaded.ok()) return loaded.status().WithContext("table " + name);
    table = std::make_shared<iceberg::Table>(std::move(loaded).value());
  }
  FLOE_RETURN_IF_ERROR(CheckTable(table->metadata(), bound.output_schema()));

  const std::optional<std::optional<int64_t>> recorded = RecordedSourceSnapshot(table->metadata());
  if (recorded && *recorded == source_current) return result;
  bool rebuild = !recorded.has_value();
  // With a watermark: the state the recorded snapshot left, advanced per source commit below.
  WatermarkState watermark = config_.watermark_ms ? RecordedWatermark(table->metadata()) : WatermarkState{};
  const WatermarkState recorded_watermark = watermark;
  auto lateness_for_next_commit = [&]() {
    BoundAggregate::Lateness lateness;
    if (config_.watermark_ms) lateness.watermark_ms = WatermarkOf(watermark, *config_.watermark_ms);
    lateness.drop = config_.late_changes == LateChanges::kDrop;
    return lateness;
  };
  auto advance = [&](const BoundAggregate::Lateness& lateness) {
    watermark.late += lateness.late;
    if (lateness.max_event_ms &&
        (!watermark.max_event_ms || *lateness.max_event_ms > *watermark.max_event_ms))
      watermark.max_event_ms = lateness.max_event_ms;
  };

  // The changes since the recorded snapshot, as per-group deltas.
  GroupStates deltas;
  if (!rebuild) {
    const std::optional<int64_t> from = *recorded;
    std::unique_ptr<iceberg::ChangelogScan> scan;
    const bool only_the_new_commit = just_committed != nullptr &&
                                     just_committed->commit.snapshot_id == *source_current &&
                                     just_committed->parent->current_snapshot_id == from;
    Result<std::vector<iceberg::ChangelogCommit>> planned = std::vector<iceberg::ChangelogCommit>{};
    // Only the columns the aggregate reads (and the keys pairing updates) are read.
    std::vector<std::string> read_columns = bound.source_columns();
    if (read_columns.empty()) read_columns.push_back(source_columns.front().name);
    if (only_the_new_commit) {
      FLOE_ASSIGN_OR_RETURN(scan, iceberg::ChangelogScan::ForPendingCommit(
                                      *just_committed->parent, Borrowed(source_io),
                                      iceberg::ProjectColumns(*just_committed->schema, read_columns, keys),
                                      keys, just_committed->commit));
      planned = scan->PlanCommits();
    } else {
      iceberg::ChangelogOptions range{from, std::nullopt, keys};
      range.columns = read_columns;
      auto made = iceberg::ChangelogScan::Make(source, Borrowed(source_io), range);
      if (made.ok()) {
        scan = std::move(made).value();
        planned = scan->PlanCommits();
      } else {
        planned = made.status();
      }
    }
    if (!planned.ok()) {
      if (planned.status().kind() != ErrorKind::kInvalidArgument)
        return planned.status().WithContext("the changes of " + source_.ToString() + " for " + name);
      // The recorded snapshot left the source's history (expired): start over.
      result.warnings.push_back(name + " is rebuilt from the current rows of " + source_.ToString() + ": " +
                                planned.status().message());
      rebuild = true;
    } else {
      scan->set_read_pool(options_.read_pool);
      const size_t change_columns = iceberg::ChangeColumnFields().size();
      FLOE_ASSIGN_OR_RETURN(BoundAggregate reading,
                            BindToScan(config_, scan->output_schema(), change_columns));
      const size_t change_type_column = scan->output_schema().size() - change_columns;
      for (const iceberg::ChangelogCommit& commit : *planned) {
        // The commit's rows are judged against the watermark of the commits before it.
        BoundAggregate::Lateness lateness = lateness_for_next_commit();
        FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(commit));
        while (true) {
          FLOE_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
          if (!batch) break;
          const std::vector<int8_t> signs = ChangeSigns(*batch, change_type_column);
          FLOE_RETURN_IF_ERROR(reading.Accumulate(*batch, &signs, &deltas, nullptr, &lateness));
        }
        advance(lateness);
        ++result.source_commits;
      }
    }
  }
  if (rebuild) {
    // Every current row, closed windows included: only the largest time is taken.
    deltas.clear();
    watermark = recorded_watermark;
    BoundAggregate::Lateness lateness;
    FLOE_RETURN_IF_ERROR(AccumulateCurrentRows(source, source_io, bound, &deltas, nullptr, &lateness));
    advance(lateness);
    result.rebuilt = true;
  }
  if (config_.watermark_ms) {
    result.late_changes = watermark.late - recorded_watermark.late;
    result.watermark_ms = WatermarkOf(watermark, *config_.watermark_ms);
  }

  // The stored rows of the groups that change (every row on a rebuild), with their positions.
  std::map<GroupKey, StoredGroup> stored;
  std::map<std::string, std::vector<int64_t>> deletes;
  if (table->metadata().current_snapshot_id) {
    iceberg::ScanOptions scan_options;
    scan_options.with_row_positions = true;
    FLOE_ASSIGN_OR_RETURN(auto scan,
                          iceberg::TableScan::Make(table->metadata(), Borrowed(table->io()), scan_options));
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::FileScanTask> tasks, scan->PlanFiles());
    for (const iceberg::FileScanTask& task : tasks) {
      FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(task));
      while (true) {
        FLOE_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
        if (!batch) break;
        const Column& positions = batch->columns.back();
        for (int64_t row = 0; row < batch->num_rows; ++row) {
          auto [key, state] = bound.ReadRow(*batch, row);
          if (rebuild) {
            deletes[task.data.file.file_path].push_back(positions.Value<int64_t>(row));
            continue;
          }
          if (!deltas.contains(key)) continue;
          stored[std::move(key)] =
              StoredGroup{std::move(state), task.data.file.file_path, positions.Value<int64_t>(row)};
        }
      }
    }
  }

  GroupStates written;
  std::set<GroupKey> recompute;
  for (const auto& [key, delta] : deltas) {
    auto it = stored.find(key);
    const StoredGroup* old = it == stored.end() ? nullptr : &it->second;
    if (old) deletes[old->file].push_back(old->position);
    GroupState next;
    switch (bound.Apply(old ? &old->state : nullptr, delta, &next)) {
      case BoundAggregate::Outcome::kRemove:
        if (old) ++result.groups_removed;
        break;
      case BoundAggregate::Outcome::kKeep: written.emplace(key, std::move(next)); break;
      case BoundAggregate::Outcome::kRecompute: recompute.insert(key); break;
    }
  }
  if (!recompute.empty()) {
    GroupStates fresh;
    FLOE_RETURN_IF_ERROR(AccumulateCurrentRows(source, source_io, bound, &fresh, &recompute));
    result.groups_recomputed = static_cast<int64_t>(recompute.size());
    for (const GroupKey& key : recompute) {
      auto it = fresh.find(key);
      if (it != fresh.end() && it->second.rows > 0) {
        written.insert_or_assign(key, std::move(it->second));
      } else if (stored.contains(key)) {
        ++result.groups_removed;
      }
    }
  }
  result.groups_written = static_cast<int64_t>(written.size());

  // New rows, position deletes of the old ones, one commit recording the source snapshot.
  const std::string prefix = "s" + std::to_string(*source_current) + "-" + iceberg::NewUuidV4();
  std::vector<iceberg::DataFile> data_files;
  std::vector<std::string> paths;
  auto discard = [&](const Status& why) {
    if (why.kind() == ErrorKind::kCommitStateUnknown) return;
    for (const std::string& path : paths) (void)table->io().Delete(path);
  };
  if (!written.empty()) {
    RecordBatch rows;
    FLOE_ASSIGN_OR_RETURN(rows.schema, iceberg::ToFloeSchema(*table->metadata().CurrentSchema()));
    for (const Field& field : rows.schema) rows.columns.push_back(MakeEmptyColumn(field.type));
    for (const auto& [key, state] : written) bound.AppendRow(key, state, &rows.columns);
    rows.num_rows = static_cast<int64_t>(written.size());
    iceberg::RollingWriterOptions writer_options = options_.writer;
    writer_options.file_prefix = prefix;
    FLOE_ASSIGN_OR_RETURN(auto writer,
                          iceberg::PartitionedWriter::Make(
                              table->io(), table->metadata().location, *table->metadata().CurrentSchema(),
                              iceberg::PartitionSpec::Unpartitioned(), writer_options));
    Status wrote = writer->Write(rows);
    if (!wrote.ok()) {
      writer->AbortAndDelete();
      return wrote.WithContext("writing " + name);
    }
    FLOE_ASSIGN_OR_RETURN(data_files, writer->Close());
    for (const iceberg::DataFile& file : data_files) paths.push_back(file.file_path);
  }
  std::optional<iceberg::DataFile> delete_file;
  if (!deletes.empty()) {
    const std::string path = table->metadata().location + "/data/" + prefix + "-deletes.parquet";
    iceberg::DataFileWriterOptions file_options = options_.writer.file;
    file_options.spec_id = 0;
    auto writer = iceberg::PositionDeleteWriter::Open(table->io(), path, {}, file_options);
    Status status = writer.status();
    for (auto& [file, positions] : deletes) {
      std::sort(positions.begin(), positions.end());
      for (int64_t position : positions) {
        if (status.ok()) status = (*writer)->Delete(file, position);
      }
    }
    if (status.ok()) {
      paths.push_back(path);
      auto closed = (*writer)->Close();
      if (closed.ok()) delete_file = std::move(closed).value();
      status = closed.status();
    }
    if (!status.ok()) {
      discard(status);
      return status.WithContext("writing the deletes of " + name);
    }
  }

  const iceberg::Snapshot* source_snapshot = source.SnapshotById(*source_current);
  const std::string sequence = source_snapshot ? std::to_string(source_snapshot->sequence_number) : "0";
  // What the commit records with the source snapshot, read back by the next catch-up.
  std::map<std::string, std::string> recording = {{kSummarySourceSnapshot, std::to_string(*source_current)},
                                                  {kSummarySourceSequence, sequence}};
  if (config_.watermark_ms) {
    if (watermark.max_event_ms) recording[kSummaryMaxEventTime] = std::to_string(*watermark.max_event_ms);
    recording[kSummaryLateChanges] = std::to_string(watermark.late);
  }
  auto commit = [&]() -> Result<iceberg::Snapshot> {
    if (data_files.empty() && !delete_file) {
      iceberg::FastAppend marker = table->NewFastAppend();
      marker.AllowEmpty();
      for (const auto& [key, value] : recording) marker.Set(key, value);
      return marker.Commit();
    }
    iceberg::RowDelta delta = table->NewRowDelta();
    for (const iceberg::DataFile& file : data_files) delta.AddRows(file);
    if (delete_file) {
      delta.AddDeletes(*delete_file);
      for (const auto& [file, positions] : deletes) delta.ValidateDataFileExists(file);
    }
    for (const auto& [key, value] : recording) delta.Set(key, value);
    return delta.Commit();
  };
  Result<iceberg::Snapshot> committed = commit();
  if (!committed.ok()) {
    discard(committed.status());
    return committed.status().WithContext("committing " + name + " up to snapshot " +
                                          std::to_string(*source_current) + " of " + source_.ToString());
  }
  return result;
}

}  // namespace floe::ingest
