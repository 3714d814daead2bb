// Phase 6 of a batch (table_ingestor_phases.h): the delete files and the
// rows for side tables written, the key index of the new snapshot saved, and
// data files, delete files and any schema evolution committed in ONE
// snapshot that carries the batch id (an empty append when the batch only
// set rows aside), then the side tables' appends (side_tables.h) and, with
// [target] change_feed, the commit's changes (change_feed_table.h).
#include <map>
#include <optional>
#include <utility>

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
                                                iceberg::PartitionedWriter& writer,
                                                std::vector<StagedLive> lives, Resolution resolution,
                                                SideTables& side, const StreamMarkers& stream) {
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
    for (const auto& [key, order] : resolution.tombstones) index->PutTombstone(key, order, now_ms);
    if (retention > 0) index->DropTombstonesBefore(now_ms - retention);
  };

  if (data_files->empty() && resolution.deletes.empty() && side.empty()) {
    // Nothing for a snapshot; tombstones of absent keys still matter, so the
    // index of the current snapshot is rewritten with them.
    if (merging() && !resolution.tombstones.empty()) {
      index_valid = false;
      apply_to_index();
      const int64_t snapshot_id = table->metadata().current_snapshot_id.value_or(0);
      FLOE_RETURN_IF_ERROR(index->Save(*state_io, options.state_dir, snapshot_id)
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
  if (options.settings.target.change_feed) {
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

    // The index of the new snapshot is saved before the commit, so a crash
    // right after the commit finds it.
    std::string saved_index;
    if (merging()) {
      index_valid = false;
      apply_to_index();
      Status saved = index->Save(*state_io, options.state_dir, producer.snapshot_id());
      if (!saved.ok()) {
        discard_written();
        return saved.WithContext("saving the key index of " + options.table.ToString());
      }
      saved_index = PrimaryKeyIndex::FilePath(options.state_dir, producer.snapshot_id());
    }
    auto committed = producer.Commit();
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
    // The batch is in the table now; a failure here leaves its side rows for
    // the batch's resolution (pipeline_recovery.cc), which finishes them.
    FLOE_RETURN_IF_ERROR(
        CompleteSideCommits(catalog, options.table, *committed, options.pipeline_name, batch_id)
            .WithContext("side tables of batch " + std::to_string(batch_id)));
    result.snapshot_id = committed->snapshot_id;
    result.counts.data_files_written = static_cast<int64_t>(data_files->size());
    result.counts.delete_files_written = static_cast<int64_t>(delete_files->added.size());
    if (parent) {
      JustCommitted just{&*parent, &schema.table_schema,
                         iceberg::PendingCommit{committed->snapshot_id, committed->timestamp_ms, *data_files,
                                                std::move(feed_deletes)}};
      FeedChanges(&just, result);
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

void TableIngestor::Impl::FeedChanges(const JustCommitted* just, BatchResult& result) {
  if (!options.settings.target.change_feed || !table) return;
  ChangeFeedOptions feed_options;
  feed_options.writer.file.parquet.codec = codec.codec;
  feed_options.writer.file.parquet.compression_level = options.settings.target.codec_level.value_or(0);
  feed_options.writer.file.parquet.pool = Pool();
  feed_options.writer.target_file_size = options.settings.target.target_file_size_bytes;
  feed_options.table_properties["write.parquet.compression-codec"] = codec.iceberg_name;
  ChangeFeedTable feed(catalog, options.table, feed_options);
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

}  // namespace floe::ingest
