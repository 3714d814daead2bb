#include "ingest/change_feed_table.h"

#include <charconv>
#include <memory>
#include <utility>

#include "iceberg/spec/random_ids.h"
#include "iceberg/spec/snapshot_ancestry.h"
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

std::optional<int64_t> SummaryLong(const iceberg::Snapshot& snapshot, const std::string& key) {
  auto it = snapshot.summary.find(key);
  if (it == snapshot.summary.end()) return std::nullopt;
  return ParseLong(it->second);
}

const iceberg::Snapshot* NewestSourceRecording(const iceberg::TableMetadata& table) {
  for (const iceberg::Snapshot* s : iceberg::CurrentAncestors(table)) {
    if (SummaryLong(*s, kSummarySourceSnapshot)) return s;
  }
  return nullptr;
}

std::optional<std::optional<int64_t>> RecordedSourceSnapshot(const iceberg::TableMetadata& feed) {
  if (const iceberg::Snapshot* s = NewestSourceRecording(feed))
    return std::optional<int64_t>(SummaryLong(*s, kSummarySourceSnapshot));
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

Result<std::shared_ptr<iceberg::Table>> LoadTableIfExists(catalog::Catalog& catalog,
                                                          const catalog::TableIdentifier& id) {
  auto ops = catalog.LoadTable(id);
  if (!ops.ok()) {
    if (ops.status().kind() == ErrorKind::kNotFound) return std::shared_ptr<iceberg::Table>();
    return ops.status().WithContext("table " + id.ToString());
  }
  auto loaded = iceberg::Table::Load(*ops);
  if (!loaded.ok()) return loaded.status().WithContext("table " + id.ToString());
  return std::make_shared<iceberg::Table>(std::move(loaded).value());
}

Result<std::shared_ptr<iceberg::Table>> ChangeFeedTable::LoadFeed() {
  return LoadTableIfExists(catalog_, id_);
}

Result<std::shared_ptr<iceberg::Table>> ChangeFeedTable::CreateFeed(const floe::Schema& columns,
                                                                    const std::string& start_after) {
  catalog::TableCreation creation;
  int32_t next_id = 1;
  FLOE_ASSIGN_OR_RETURN(creation.schema, iceberg::FromFloeSchema(columns, 2, &next_id));
  creation.format_version = 2;
  creation.properties = options_.table_properties;
  creation.properties[kFeedStartProperty] = start_after;
  auto created = catalog_.CreateTable(id_, creation);
  if (!created.ok()) return created.status().WithContext("creating table " + id_.ToString());
  auto loaded = iceberg::Table::Load(*created);
  if (!loaded.ok()) return loaded.status().WithContext("table " + id_.ToString());
  return std::make_shared<iceberg::Table>(std::move(loaded).value());
}

Result<std::optional<StagedChanges>> ChangeFeedTable::WriteCommit(std::shared_ptr<iceberg::Table> feed,
                                                                  iceberg::ChangelogScan& scan,
                                                                  const iceberg::ChangelogCommit& commit) {
  const std::string name = id_.ToString();
  const floe::Schema columns = WithoutFieldIds(scan.output_schema());
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

  iceberg::RollingWriterOptions writer_options = options_.writer;
  writer_options.file_prefix = "s" + std::to_string(commit.snapshot_id) + "-" + iceberg::NewUuidV4();
  FLOE_ASSIGN_OR_RETURN(
      auto writer, iceberg::PartitionedWriter::Make(feed->io(), feed->metadata().location, feed_schema,
                                                    iceberg::PartitionSpec::Unpartitioned(), writer_options));
  scan.set_read_pool(options_.read_pool);
  FLOE_ASSIGN_OR_RETURN(auto reader, scan.Open(commit));
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
  if (files.empty()) return std::optional<StagedChanges>();
  StagedChanges staged;
  staged.feed = std::move(feed);
  staged.append = std::make_unique<iceberg::FastAppend>(*staged.feed);
  for (const iceberg::DataFile& file : files) {
    staged.append->AppendFile(file);
    staged.files.push_back(file.file_path);
  }
  if (evolved) staged.append->SetSchema(*evolved);
  staged.append->Set(kSummarySourceSnapshot, std::to_string(commit.snapshot_id))
      .Set(kSummarySourceSequence, std::to_string(commit.sequence_number));
  staged.rows = rows;
  return std::optional<StagedChanges>(std::move(staged));
}

void StagedChanges::Discard(const Status& why) {
  if (why.kind() == ErrorKind::kCommitStateUnknown || feed == nullptr) return;
  for (const std::string& path : files) (void)feed->io().Delete(path);
  files.clear();
}

Result<CatchUpResult> ChangeFeedTable::CatchUp(const iceberg::TableMetadata& source, FileIO& source_io,
                                               const std::vector<std::string>& keys,
                                               const JustCommitted* just_committed) {
  CatchUpResult result;
  FLOE_ASSIGN_OR_RETURN(std::shared_ptr<iceberg::Table> feed, LoadFeed());
  // Every return hands the feed back as it stands after the call.
  result.feed = feed;
  const std::optional<int64_t> source_current = source.current_snapshot_id;
  if (!source_current) return result;
  const std::string name = id_.ToString();

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
  if (!feed) {
    const bool starts_now = fresh && commits.empty() && !only_the_new_commit && !result.warnings.empty();
    FLOE_ASSIGN_OR_RETURN(feed, CreateFeed(WithoutFieldIds(scan->output_schema()),
                                           starts_now ? std::to_string(*source_current) : ""));
    result.feed = feed;
  }

  for (const iceberg::ChangelogCommit& commit : commits) {
    FLOE_ASSIGN_OR_RETURN(std::optional<StagedChanges> staged, WriteCommit(feed, *scan, commit));
    if (!staged) continue;
    if (const iceberg::Snapshot* committed = source.SnapshotById(commit.snapshot_id)) {
      staged->append->Set(kSummarySourceSequence, std::to_string(committed->sequence_number));
      for (const char* key : {kSummaryPipeline, kSummaryBatchId}) {
        if (auto it = committed->summary.find(key); it != committed->summary.end())
          staged->append->Set(key, it->second);
      }
    }
    auto appended = staged->append->Commit();
    if (!appended.ok()) {
      staged->Discard(appended.status());
      return appended.status().WithContext("committing the changes of snapshot " +
                                           std::to_string(commit.snapshot_id) + " to " + name);
    }
    ++result.commits;
    result.rows += staged->rows;
  }
  return result;
}

Result<std::optional<StagedChanges>> ChangeFeedTable::Stage(FileIO& source_io,
                                                            const std::vector<std::string>& keys,
                                                            const JustCommitted& pending,
                                                            std::vector<std::string>* warnings) {
  const iceberg::TableMetadata& parent = *pending.parent;
  // The feed is levelled with the parent first (from the history, when behind).
  FLOE_ASSIGN_OR_RETURN(CatchUpResult caught, CatchUp(parent, source_io, keys));
  for (std::string& warning : caught.warnings) warnings->push_back(std::move(warning));
  std::shared_ptr<iceberg::Table> feed = std::move(caught.feed);
  if (feed != nullptr) {
    std::optional<std::optional<int64_t>> recorded = RecordedSourceSnapshot(feed->metadata());
    if (!recorded || *recorded != parent.current_snapshot_id) return std::optional<StagedChanges>();
  } else if (parent.current_snapshot_id) {
    return std::optional<StagedChanges>();
  }
  std::shared_ptr<FileIO> io(&source_io, [](FileIO*) {});
  FLOE_ASSIGN_OR_RETURN(
      auto scan, iceberg::ChangelogScan::ForPendingCommit(parent, io, *pending.schema, keys, pending.commit));
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ChangelogCommit> commits, scan->PlanCommits());
  if (commits.empty()) return std::optional<StagedChanges>();
  // A table's first commit: its feed starts at the beginning.
  if (!feed) {
    FLOE_ASSIGN_OR_RETURN(feed, CreateFeed(WithoutFieldIds(scan->output_schema()), ""));
  }
  return WriteCommit(std::move(feed), *scan, commits.front());
}

}  // namespace floe::ingest
