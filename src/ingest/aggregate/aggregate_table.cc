#include "ingest/aggregate/aggregate_table.h"

#include <map>
#include <set>
#include <utility>

#include "iceberg/scan/changelog_scan.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/spec/random_ids.h"
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
                             const std::set<GroupKey>* only = nullptr) {
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
      FLOE_RETURN_IF_ERROR(reading.Accumulate(*batch, nullptr, states, only));
    }
  }
  return Status::OK();
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
  std::shared_ptr<iceberg::Table> table;
  {
    auto ops = catalog_.LoadTable(id_);
    if (!ops.ok() && ops.status().kind() != ErrorKind::kNotFound)
      return ops.status().WithContext("table " + name);
    if (!ops.ok()) {
      catalog::TableCreation creation;
      int32_t next_id = 1;
      FLOE_ASSIGN_OR_RETURN(creation.schema, iceberg::FromFloeSchema(bound.output_schema(), 2, &next_id));
      creation.properties = options_.table_properties;
      creation.properties[kAggregateDefinitionProperty] = AggregateDefinitionText(config_);
      ops = catalog_.CreateTable(id_, creation);
      if (!ops.ok()) return ops.status().WithContext("creating table " + name);
    }
    auto loaded = iceberg::Table::Load(*ops);
    if (!loaded.ok()) return loaded.status().WithContext("table " + name);
    table = std::make_shared<iceberg::Table>(std::move(loaded).value());
  }
  FLOE_ASSIGN_OR_RETURN(Schema table_columns, iceberg::ToFloeSchema(*table->metadata().CurrentSchema()));
  if (!SameColumns(table_columns, bound.output_schema())) {
    return Status::InvalidArgument("table " + name + " has columns that differ from [[aggregates]] \"" +
                                   config_.name + "\" (drop the table and floe rebuilds it)");
  }
  // The same columns may hold another definition (a window's length, a filter).
  const std::string definition = AggregateDefinitionText(config_);
  if (auto kept = table->metadata().properties.find(kAggregateDefinitionProperty);
      kept != table->metadata().properties.end() && kept->second != definition) {
    return Status::InvalidArgument("table " + name + " was built for [[aggregates]] \"" + config_.name +
                                   "\" as " + kept->second + "; the config now says " + definition +
                                   " (drop the table and floe rebuilds it from the current rows of " +
                                   source_.ToString() + ")");
  }

  const std::optional<std::optional<int64_t>> recorded = RecordedSourceSnapshot(table->metadata());
  if (recorded && *recorded == source_current) return result;
  bool rebuild = !recorded.has_value();

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
        FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(commit));
        while (true) {
          FLOE_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
          if (!batch) break;
          const std::vector<int8_t> signs = ChangeSigns(*batch, change_type_column);
          FLOE_RETURN_IF_ERROR(reading.Accumulate(*batch, &signs, &deltas));
        }
        ++result.source_commits;
      }
    }
  }
  if (rebuild) {
    deltas.clear();
    FLOE_RETURN_IF_ERROR(AccumulateCurrentRows(source, source_io, bound, &deltas));
    result.rebuilt = true;
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
  auto commit = [&]() -> Result<iceberg::Snapshot> {
    if (data_files.empty() && !delete_file) {
      iceberg::FastAppend marker = table->NewFastAppend();
      marker.AllowEmpty();
      marker.Set(kSummarySourceSnapshot, std::to_string(*source_current))
          .Set(kSummarySourceSequence, sequence);
      return marker.Commit();
    }
    iceberg::RowDelta delta = table->NewRowDelta();
    for (const iceberg::DataFile& file : data_files) delta.AddRows(file);
    if (delete_file) {
      delta.AddDeletes(*delete_file);
      for (const auto& [file, positions] : deletes) delta.ValidateDataFileExists(file);
    }
    delta.Set(kSummarySourceSnapshot, std::to_string(*source_current)).Set(kSummarySourceSequence, sequence);
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
