#include "ingest/change_feed_table.h"

#include <charconv>
#include <memory>
#include <utility>

#include "iceberg/spec/random_ids.h"
#include "iceberg/transaction/table.h"
#include "ingest/batch_recovery.h"
#include "ingest/schema/schema_reconcile.h"
#include "ingest/side_tables.h"

namespace floe::ingest {
namespace {

std::optional<int64_t> ParseLong(const std::string& text) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

void ClearFieldIds(floe::DataType& type) {
  for (floe::Field& child : type.children) {
    child.field_id.reset();
    ClearFieldIds(child.type);
  }
}

// The feed's columns without field ids: the feed table numbers its own.
floe::Schema WithoutFieldIds(floe::Schema schema) {
  for (floe::Field& field : schema) {
    field.field_id.reset();
    ClearFieldIds(field.type);
  }
  return schema;
}

}  // namespace

catalog::TableIdentifier ChangesTableOf(const catalog::TableIdentifier& source) {
  return SideTableId(source, kChangesSuffix);
}

std::optional<std::optional<int64_t>> RecordedSourceSnapshot(const iceberg::TableMetadata& feed) {
  // Newest first along the current snapshot's parents; bounded by the number of snapshots.
  const iceberg::Snapshot* s = feed.CurrentSnapshot();
  for (size_t steps = 0; s != nullptr && steps <= feed.snapshots.size(); ++steps) {
    if (auto it = s->summary.find(kSummarySourceSnapshot); it != s->summary.end()) {
      if (std::optional<int64_t> id = ParseLong(it->second)) return std::optional<int64_t>(*id);
    }
    if (!s->parent_snapshot_id) break;
    s = feed.SnapshotById(*s->parent_snapshot_id);
  }
  auto start = feed.properties.find(kFeedStartProperty);
  if (start == feed.properties.end()) return std::nullopt;
  if (start->second.empty()) return std::optional<int64_t>();
  if (std::optional<int64_t> id = ParseLong(start->second)) return std::optional<int64_t>(*id);
  return std::nullopt;
}

ChangeFeedTable::ChangeFeedTable(catalog::Catalog& catalog, catalog::TableIdentifier source,
                                 ChangeFeedOptions options)
    : catalog_(catalog),
      source_(std::move(source)),
      id_(ChangesTableOf(source_)),
      options_(std::move(options)) {}

Result<CatchUpResult> ChangeFeedTable::CatchUp(const iceberg::TableMetadata& source, FileIO& source_io,
                                               const std::vector<std::string>& keys,
                                               const JustCommitted* just_committed) {
  CatchUpResult result;
  const std::optional<int64_t> source_current = source.current_snapshot_id;
  if (!source_current) return result;
  const std::string name = id_.ToString();

  std::optional<iceberg::Table> feed;
  auto ops = catalog_.LoadTable(id_);
  if (ops.ok()) {
    auto loaded = iceberg::Table::Load(*ops);
    if (!loaded.ok()) return loaded.status().WithContext("table " + name);
    feed.emplace(std::move(loaded).value());
  } else if (ops.status().kind() != ErrorKind::kNotFound) {
    return ops.status().WithContext("table " + name);
  }
  std::optional<std::optional<int64_t>> recorded;
  if (feed) recorded = RecordedSourceSnapshot(feed->metadata());
  const bool fresh = !recorded.has_value();
  const std::optional<int64_t> from = fresh ? std::nullopt : *recorded;
  if (!fresh && from == source_current) return result;

  // The scan runs within this call: the source FileIO outlives it.
  std::shared_ptr<FileIO> io(&source_io, [](FileIO*) {});
  std::unique_ptr<iceberg::ChangelogScan> scan;
  std::vector<iceberg::ChangelogCommit> commits;
  const bool only_the_new_commit = just_committed != nullptr &&
                                   just_committed->commit.snapshot_id == *source_current &&
                                   just_committed->parent->current_snapshot_id == from;
  if (only_the_new_commit) {
    FLOE_ASSIGN_OR_RETURN(
        scan, iceberg::ChangelogScan::ForPendingCommit(*just_committed->parent, io, *just_committed->schema,
                                                       keys, just_committed->commit));
    FLOE_ASSIGN_OR_RETURN(commits, scan->PlanCommits());
  } else {
    iceberg::ChangelogOptions range{from, std::nullopt, keys};
    FLOE_ASSIGN_OR_RETURN(scan, iceberg::ChangelogScan::Make(source, io, range));
    auto planned = scan->PlanCommits();
    if (!planned.ok()) {
      if (!fresh || planned.status().kind() != ErrorKind::kInvalidArgument) {
        return planned.status().WithContext("the changes of " + source_.ToString() + " for " + name);
      }
      // A new feed over a history that no longer reaches the first snapshot.
      result.warnings.push_back(name + " starts after snapshot " + std::to_string(*source_current) + ": " +
                                planned.status().message());
      commits.clear();
    } else {
      commits = std::move(planned).value();
    }
  }

  // The feed table, created on first use with the scan's columns.
  const floe::Schema columns = WithoutFieldIds(scan->output_schema());
  if (!feed) {
    catalog::TableCreation creation;
    int32_t next_id = 1;
    FLOE_ASSIGN_OR_RETURN(creation.schema, iceberg::FromFloeSchema(columns, 2, &next_id));
    creation.format_version = 2;
    creation.properties = options_.table_properties;
    const bool starts_now = fresh && commits.empty() && !only_the_new_commit && !result.warnings.empty();
    creation.properties[kFeedStartProperty] = starts_now ? std::to_string(*source_current) : "";
    auto created = catalog_.CreateTable(id_, creation);
    if (!created.ok()) return created.status().WithContext("creating table " + name);
    auto loaded = iceberg::Table::Load(*created);
    if (!loaded.ok()) return loaded.status().WithContext("table " + name);
    feed.emplace(std::move(loaded).value());
  }
  if (commits.empty()) return result;

  // New or widened source columns widen the feed (by name, like any source).
  ReconcileOptions reconcile;
  reconcile.policy = IncompatiblePolicy::kFail;
  reconcile.table_name = name;
  const iceberg::TableMetadata& feed_metadata = feed->metadata();
  FLOE_ASSIGN_OR_RETURN(FileMapping mapping,
                        Reconcile(*feed_metadata.CurrentSchema(), columns, source_.ToString(), reconcile));
  std::optional<iceberg::Schema> evolved;
  iceberg::Schema feed_schema = *feed_metadata.CurrentSchema();
  if (!mapping.evolution.empty()) {
    FLOE_ASSIGN_OR_RETURN(feed_schema, EvolveSchema(feed_schema, feed_metadata.last_column_id,
                                                    {mapping.evolution}, feed_metadata.format_version));
    evolved = feed_schema;
  }

  for (const iceberg::ChangelogCommit& commit : commits) {
    iceberg::RollingWriterOptions writer_options = options_.writer;
    writer_options.file_prefix = "s" + std::to_string(commit.snapshot_id) + "-" + iceberg::NewUuidV4();
    FLOE_ASSIGN_OR_RETURN(auto writer, iceberg::PartitionedWriter::Make(
                                           feed->io(), feed->metadata().location, feed_schema,
                                           iceberg::PartitionSpec::Unpartitioned(), writer_options));
    FLOE_ASSIGN_OR_RETURN(auto reader, scan->Open(commit));
    int64_t rows = 0;
    Status status;
    while (status.ok()) {
      auto batch = reader->Next();
      if (!batch.ok()) {
        status = batch.status();
        break;
      }
      if (!batch->has_value()) break;
      auto conformed = ConformBatch(**batch, mapping, feed_schema);
      if (!conformed.ok()) {
        status = conformed.status();
        break;
      }
      rows += conformed->num_rows;
      status = writer->Write(*conformed);
    }
    if (!status.ok()) {
      writer->Abort();
      return status.WithContext("the changes of snapshot " + std::to_string(commit.snapshot_id) + " of " +
                                source_.ToString());
    }
    FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::DataFile> files, writer->Close());
    if (files.empty()) continue;
    iceberg::FastAppend append = feed->NewFastAppend();
    for (const iceberg::DataFile& file : files) append.AppendFile(file);
    if (evolved) append.SetSchema(*evolved);
    int64_t sequence = commit.sequence_number;
    if (const iceberg::Snapshot* committed = source.SnapshotById(commit.snapshot_id)) {
      sequence = committed->sequence_number;
      for (const char* key : {kSummaryPipeline, kSummaryBatchId}) {
        if (auto it = committed->summary.find(key); it != committed->summary.end())
          append.Set(key, it->second);
      }
    }
    append.Set(kSummarySourceSnapshot, std::to_string(commit.snapshot_id))
        .Set(kSummarySourceSequence, std::to_string(sequence));
    auto appended = append.Commit();
    if (!appended.ok()) {
      if (appended.status().kind() != ErrorKind::kCommitStateUnknown) {
        for (const iceberg::DataFile& file : files) (void)feed->io().Delete(file.file_path);
      }
      return appended.status().WithContext("committing the changes of snapshot " +
                                           std::to_string(commit.snapshot_id) + " to " + name);
    }
    evolved.reset();
    ++result.commits;
    result.rows += rows;
  }
  return result;
}

}  // namespace floe::ingest
