// Phase 6 of a batch (table_ingestor_phases.h): the delete files and the
// rows for side tables written, the key index of the new snapshot saved, and
// data files, delete files and any schema evolution committed in ONE
// snapshot that carries the batch id (an empty append when the batch only
// set rows aside), then the side tables' appends (side_tables.h). With
// [target] change_feed the commit's changes (change_feed_table.h) are
// committed in the same catalog transaction where the catalog can commit
// several tables at once, else right after the side tables. Then each
// [[aggregates]] table over this table is brought up to date
// (aggregate/aggregate_table.h).
#include <algorithm>
#include <map>
#include <optional>
#include <utility>

#include "columnar/json_format.h"
#include "iceberg/spec/table_metadata_builder.h"
#include "ingest/aggregate/aggregate_table.h"
#include "ingest/batch_delete_writer.h"
#include "ingest/change_feed_table.h"
#include "ingest/stream_positions.h"
#include "ingest/table_ingestor_phases.h"
#include "maintenance/maintenance.h"

namespace floe::ingest {

std::string StreamRangesSummary(const std::vector<SourceUnit>& batch) {
  std::string ranges;
  for (const SourceUnit& unit : batch) {
    if (unit.kind != UnitKind::kStreamRange) continue;
    if (!ranges.empty()) ranges += ',';
    ranges += unit.range.stream + "/" + unit.range.partition + "/" + unit.range.first + "-" + unit.range.last;
  }
  return ranges;
}

Result<BatchResult> TableIngestor::Impl::Commit(BatchResult result, int64_t batch_id, int64_t now_ms,
                                                const SettledSchema& schema,
                                                iceberg::PartitionedWriter& writer, KeyIndexDelta lives,
                                                Resolution resolution, SideTables& side,
                                                const StreamMarkers& stream) {
  auto data_files = writer.Close();
  if (!data_files.ok()) {
    writer.AbortAndDelete();
    return data_files.status();
  }
  // Deletes of the batch (of live keys or not) leave tombstones beside the rows written.
  auto add_tombstones = [&]() {
    for (const auto& [key, order] : resolution.tombstones) lives.PutTombstone(key, order, now_ms);
  };

  if (data_files->empty() && resolution.deletes.empty() && side.empty()) {
    // Nothing for a snapshot; tombstones of absent keys still matter, so they
    // are saved for the current snapshot.
    if (merging() && !resolution.tombstones.empty()) {
      index_valid = false;
      add_tombstones();
      const int64_t snapshot_id = table->metadata().current_snapshot_id.value_or(0);
      FLOE_RETURN_IF_ERROR(index->Save(std::move(lives), snapshot_id, &result.warnings)
                               .WithContext("saving the key index of " + options.table.ToString()));
      index_valid = true;
    }
    return result;
  }

  // Rows for side tables are written first; the data commit names them.
  std::map<std::string, std::string> side_summary;
  if (!side.empty()) {
    auto pending = side.WritePending(catalog, options.table, DataFilePrefix(batch_id), format_version());
    if (!pending.ok()) {
      writer.AbortAndDelete();
      return pending.status();
    }
    side_summary = std::move(pending).value();
  }

  BatchDeleteOptions delete_options;
  delete_options.file.parquet.codec = codec.codec;
  delete_options.file.parquet.compression_level = options.settings.target.codec_level.value_or(0);
  delete_options.file_prefix = DataFilePrefix(batch_id);
  delete_options.file.parquet.pool = Pool();
  std::vector<std::string> deleted_data_files;
  for (const auto& [path, positions] : resolution.deletes) deleted_data_files.push_back(path);
  // The change feed needs the commit's parent and what it deletes.
  std::optional<iceberg::TableMetadata> parent;
  std::map<std::string, std::vector<int64_t>> feed_deletes;
  if (options.settings.target.change_feed || !options.settings.aggregates.empty()) {
    parent = table->metadata();
    feed_deletes = resolution.deletes;
  }
  auto delete_files =
      WriteBatchDeletes(table->io(), table->metadata(), std::move(resolution.deletes), delete_options);
  if (!delete_files.ok()) {
    writer.AbortAndDelete();
    side.AbortPending(catalog);
    return delete_files.status().WithContext("writing deletes of " + options.table.ToString());
  }
  auto discard_written = [&]() {
    writer.AbortAndDelete();
    for (const std::string& path : delete_files->written_paths) (void)table->io().Delete(path);
    side.AbortPending(catalog);
  };

  // The snapshot, whichever action makes it: summary, index, commit, side tables.
  auto commit_snapshot = [&](auto& producer) -> Result<BatchResult> {
    if (schema.evolved) producer.SetSchema(schema.table_schema);
    producer.Set(kSummaryPipeline, options.pipeline_name)
        .Set(kSummaryBatchId, std::to_string(batch_id))
        .Set(kSummarySourceFiles, std::to_string(result.counts.files))
        .Set(kSummaryRowsInserted, std::to_string(result.counts.inserted))
        .Set(kSummaryRowsUpdated, std::to_string(result.counts.updated))
        .Set(kSummaryRowsDeleted, std::to_string(result.counts.deleted))
        .Set(kSummaryRowsStale, std::to_string(result.counts.stale));
    if (options.lease_epoch) producer.Set(kSummaryLeaseEpoch, std::to_string(*options.lease_epoch));
    if (!transform->empty()) {
      producer.Set(kSummaryRowsFiltered, std::to_string(result.counts.filtered))
          .Set(kSummaryRowsDropped, std::to_string(result.counts.dropped))
          .Set(kSummaryRowsQuarantined, std::to_string(result.counts.quarantined_rows));
      for (const ExpectationCount& count : result.counts.expectations) {
        const std::string prefix = std::string(kSummaryExpectPrefix) + count.name;
        producer.Set(prefix + ".checked", std::to_string(count.checked))
            .Set(prefix + ".passed", std::to_string(count.passed()))
            .Set(prefix + ".failed", std::to_string(count.failed));
      }
    }
    for (const auto& [key, value] : side_summary) producer.Set(key, value);
    if (!stream.ranges.empty()) producer.Set(kSummaryStreamRanges, stream.ranges);
    if (!stream.ends.empty()) producer.Set(StreamEndsSummaryKey(options.pipeline_name), stream.ends);
    // Other pipelines' stream positions stay in the newest snapshot (stream_positions.h).
    producer.CarryFromParent(maintenance::kCarriedSummaryPrefix);

    // Where the catalog commits several tables atomically, the commit's
    // changes are written now and committed with it.
    std::optional<StagedChanges> staged;
    if (parent && options.settings.target.change_feed && catalog.SupportsMultiTableCommit()) {
      const iceberg::Snapshot* current = parent->CurrentSnapshot();
      const int64_t timestamp_ms =
          std::max(iceberg::CurrentTimeMillis(), current != nullptr ? current->timestamp_ms : int64_t{0});
      producer.SetTimestampMs(timestamp_ms);
      producer.RequireUnchangedParent();
      JustCommitted pending{
          &*parent, &schema.table_schema,
          iceberg::PendingCommit{producer.snapshot_id(), timestamp_ms, *data_files, feed_deletes}};
      staged = StageFeed(pending, batch_id, result);
    }

    // The index of the new snapshot is saved before the commit, so a crash
    // right after the commit finds it.
    std::optional<PrimaryKeyIndex::PendingSave> saved;
    if (merging()) {
      index_valid = false;
      add_tombstones();
      auto prepared = index->Prepare(std::move(lives), producer.snapshot_id());
      if (!prepared.ok()) {
        discard_written();
        if (staged) staged->Discard(prepared.status());
        return prepared.status().WithContext("saving the key index of " + options.table.ToString());
      }
      saved = std::move(prepared).value();
    }
    auto committed = staged ? CommitWithFeed(producer, *staged) : producer.Commit();
    if (!committed.ok()) {
      if (committed.status().kind() != ErrorKind::kCommitStateUnknown) {
        discard_written();
        if (saved) index->Discard(*saved);
      }
      if (staged) staged->Discard(committed.status());
      return committed.status().WithContext("committing batch " + std::to_string(batch_id) + " to " +
                                            options.table.ToString() +
                                            (staged ? " and its change feed" : ""));
    }
    if (saved) {
      // The run joins the index; index files older than the previous snapshot's go.
      index->Publish(*saved, &result.warnings);
      index_snapshot = committed->snapshot_id;
      index_valid = true;
    }
    // The batch is in the table now; a failure here leaves its side rows for
    // the batch's resolution (pipeline_recovery.cc), which finishes them.
    FLOE_RETURN_IF_ERROR(
        CompleteSideCommits(catalog, options.table, *committed, options.pipeline_name, batch_id)
            .WithContext("side tables of batch " + std::to_string(batch_id)));
    result.snapshot_id = committed->snapshot_id;
    if (index) {
      result.key_index_memory_bytes = index->MemoryBytes();
      result.key_index_runs = static_cast<int64_t>(index->run_count());
    }
    result.counts.data_files_written = static_cast<int64_t>(data_files->size());
    result.counts.delete_files_written = static_cast<int64_t>(delete_files->added.size());
    if (parent) {
      JustCommitted just{&*parent, &schema.table_schema,
                         iceberg::PendingCommit{committed->snapshot_id, committed->timestamp_ms, *data_files,
                                                std::move(feed_deletes)}};
      if (!staged) FeedChanges(&just, result);
      MaintainAggregates(&just, result.warnings);
    }
    return std::move(result);
  };

  if (!data_files->empty() || !delete_files->added.empty()) {
    iceberg::RowDelta delta = table->NewRowDelta();
    for (const iceberg::DataFile& file : *data_files) delta.AddRows(file);
    for (const iceberg::DataFile& file : delete_files->added) delta.AddDeletes(file);
    for (const iceberg::DataFile& file : delete_files->replaced) delta.RemoveDeletes(file);
    for (const std::string& path : deleted_data_files) delta.ValidateDataFileExists(path);
    return commit_snapshot(delta);
  }
  // Only rows set aside: an empty append records the batch id in the table.
  iceberg::FastAppend marker = table->NewFastAppend();
  marker.AllowEmpty();
  return commit_snapshot(marker);
}

ChangeFeedOptions TableIngestor::Impl::FeedOptions() {
  ChangeFeedOptions feed_options;
  feed_options.writer.file.parquet.codec = codec.codec;
  feed_options.writer.file.parquet.compression_level = options.settings.target.codec_level.value_or(0);
  feed_options.writer.file.parquet.pool = Pool();
  feed_options.read_pool = Pool();
  feed_options.writer.target_file_size = options.settings.target.target_file_size_bytes;
  feed_options.table_properties["write.parquet.compression-codec"] = codec.iceberg_name;
  return feed_options;
}

std::optional<StagedChanges> TableIngestor::Impl::StageFeed(const JustCommitted& pending, int64_t batch_id,
                                                            BatchResult& result) {
  ChangeFeedTable feed(catalog, options.table, FeedOptions());
  const std::vector<std::string> key_columns = merging() ? keys() : std::vector<std::string>{};
  auto staged = feed.Stage(table->io(), key_columns, pending, &result.warnings);
  if (!staged.ok()) {
    // The data commit goes alone; a later batch's catch-up appends what is missing.
    result.warnings.push_back("change feed " + feed.id().ToString() +
                              " is behind: " + staged.status().ToString());
    return std::nullopt;
  }
  if (*staged) {
    (*staged)
        ->append->Set(kSummaryPipeline, options.pipeline_name)
        .Set(kSummaryBatchId, std::to_string(batch_id));
  }
  return std::move(staged).value();
}

Result<iceberg::Snapshot> TableIngestor::Impl::CommitWithFeed(iceberg::SnapshotProducer& data,
                                                              StagedChanges& staged) {
  const catalog::TableIdentifier feed_id = ChangesTableOf(options.table);
  auto commit_tables = [&](const std::vector<iceberg::TableCommitRequest>& requests) {
    std::vector<catalog::TableChanges> changes{{options.table, requests[0].requirements, requests[0].updates},
                                               {feed_id, requests[1].requirements, requests[1].updates}};
    return catalog.CommitTables(changes);
  };
  // The feed records the sequence number the data snapshot gets in each attempt.
  auto on_staged = [&](size_t index, const iceberg::Snapshot& snapshot) {
    if (index == 0) staged.append->Set(kSummarySourceSequence, std::to_string(snapshot.sequence_number));
    return Status::OK();
  };
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::Snapshot> snapshots,
                        iceberg::CommitTogether({&data, staged.append.get()}, commit_tables, on_staged));
  return snapshots.front();
}

void TableIngestor::Impl::FeedChanges(const JustCommitted* just, BatchResult& result) {
  if (!options.settings.target.change_feed || !table) return;
  ChangeFeedTable feed(catalog, options.table, FeedOptions());
  const std::vector<std::string> key_columns = merging() ? keys() : std::vector<std::string>{};
  auto caught = feed.CatchUp(table->metadata(), table->io(), key_columns, just);
  if (!caught.ok()) {
    // The data commit stands; the next batch's catch-up appends what is missing.
    result.warnings.push_back("change feed " + feed.id().ToString() +
                              " is behind: " + caught.status().ToString());
    return;
  }
  for (std::string& warning : caught->warnings) result.warnings.push_back(std::move(warning));
}

void TableIngestor::Impl::MaintainAggregates(const JustCommitted* just, std::vector<std::string>& warnings) {
  if (options.settings.aggregates.empty() || !table || options.dry_run) return;
  AggregateOptions aggregate_options;
  ChangeFeedOptions feed_options = FeedOptions();
  aggregate_options.writer = feed_options.writer;
  aggregate_options.read_pool = feed_options.read_pool;
  aggregate_options.table_properties = feed_options.table_properties;
  const std::vector<std::string> key_columns = merging() ? keys() : std::vector<std::string>{};
  for (const AggregateConfig& config : options.settings.aggregates) {
    AggregateTable aggregate(catalog, options.table, config, aggregate_options);
    auto caught = aggregate.CatchUp(table->metadata(), table->io(), key_columns, just);
    if (!caught.ok()) {
      // The data commit stands; the next catch-up applies what is missing.
      warnings.push_back("aggregate " + aggregate.id().ToString() +
                         " is behind: " + caught.status().ToString());
      continue;
    }
    for (std::string& warning : caught->warnings) warnings.push_back(std::move(warning));
    if (caught->late_changes > 0) {
      aggregate_late_changes[aggregate.id().ToString()] += caught->late_changes;
      warnings.push_back(
          "aggregate " + aggregate.id().ToString() + ": " + std::to_string(caught->late_changes) +
          (caught->late_changes == 1 ? " late change" : " late changes") +
          " (to windows closed by the watermark" +
          (caught->watermark_ms ? " " + FormatTimestamp(*caught->watermark_ms, TimeUnit::kMilli, true) : "") +
          (config.late_changes == LateChanges::kDrop ? ") dropped" : ") applied all the same"));
    }
  }
}

}  // namespace floe::ingest
