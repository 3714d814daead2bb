// AggregateTable: the Iceberg table of one [[aggregates]] entry, brought up
// to date from its source table's changes.
//
// Contract:
// - The table <source namespace>.<name> has BoundAggregate::output_schema's
//   columns (format version 2, unpartitioned), one row per group with at
//   least one row. A table whose columns differ from the config, or whose
//   recorded definition (kAggregateDefinitionProperty: a window's length, a
//   filter, ...) does, is refused (drop it and it is rebuilt).
// - CatchUp applies every source commit after the one recorded in the
//   aggregate table up to the source's current snapshot, in ONE commit whose
//   summary carries floe.source-snapshot-id (the source snapshot applied up
//   to) and floe.source-sequence-number. What is recorded is read back from
//   the table on every call (RecordedSourceSnapshot, change_feed_table.h),
//   so a call after a crash, a failed or an unknown commit never applies a
//   source commit twice, and a call after missed ones catches up. Nothing
//   recorded (a new aggregate, also over an existing table) or a recorded
//   snapshot no longer in the source's history: the table is rebuilt from
//   the source's current rows (its old rows deleted in the same commit).
// - The changes come from the ChangelogScan (maintenance commits contribute
//   nothing): inserts add, deletes retract, an update retracts its
//   pre-image and adds its post-image; the filter applies to each image.
//   Changed groups are written through position deletes of their old rows
//   and new rows (a RowDelta; no equality deletes); a group left without
//   rows is deleted; a group whose min or max may have been retracted is
//   recomputed from the source's current rows of that group (one scan of
//   the source for all such groups of the call).
// - Watermark (config watermark_ms): the source commits of a call are
//   applied in order, each judged against the watermark left by the ones
//   before it (the largest window time among the inserts and post-images
//   applied so far, minus watermark_ms; Spark's watermark, advanced between
//   micro-batches, a source commit being one), so the outcome does not
//   depend on how commits are grouped into calls (a crash, a call that
//   missed commits). A change image with a closed window (window end <=
//   watermark) is late: counted, and under late_changes = "drop" not
//   applied to its closed windows (BoundAggregate::Lateness). The largest
//   time (epoch ms, kSummaryMaxEventTime) and the late changes so far
//   (kSummaryLateChanges) are recorded in the same summary as the source
//   snapshot and read back from the same snapshot, so they are exactly once
//   too. A rebuild applies every current row of the source, closed windows
//   included (the aggregate of the table as it is: changes dropped earlier
//   count again), raises the largest time with the current rows' and keeps
//   the late count.
// - `just_committed` (floe's ingestor, the commit made a moment ago): when
//   it is the only commit missing its changes are computed from it without
//   reading the source's manifests.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/table/catalog.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "iceberg/writer/data_file_writer.h"
#include "ingest/change_feed_table.h"
#include "ingest/config/aggregate_config.h"

namespace floe::ingest {

// The table property holding the aggregate's definition
// (AggregateDefinitionText), set when the table is created.
inline constexpr const char* kAggregateDefinitionProperty = "floe.aggregate-definition";
// Summary entries of an aggregate with a watermark, next to floe.source-snapshot-id:
// the largest window time applied (epoch ms; absent until one is) and the late changes so far.
inline constexpr const char* kSummaryMaxEventTime = "floe.aggregate-max-event-time";
inline constexpr const char* kSummaryLateChanges = "floe.aggregate-late-changes";

struct AggregateOptions {
  iceberg::RollingWriterOptions writer;
  ThreadPool* read_pool = nullptr;  // reads removed rows of the source in parallel; nullptr: this thread
  std::map<std::string, std::string> table_properties;  // for the table's creation
};

struct AggregateCatchUpResult {
  int64_t source_commits = 0;     // source commits applied (0 when already up to date)
  bool rebuilt = false;           // built from the source's current rows
  int64_t groups_written = 0;     // new or changed groups
  int64_t groups_removed = 0;     // groups left without rows
  int64_t groups_recomputed = 0;  // min/max recomputed from the source
  // With a watermark: the change images of this call that met a closed
  // window (dropped or applied, as late_changes says), and the watermark
  // after the call (nullopt: no time seen yet).
  int64_t late_changes = 0;
  std::optional<int64_t> watermark_ms;
  std::vector<std::string> warnings;
};

// The state of an aggregate table as `floe validate` reports it (AggregateTable::Inspect).
struct AggregateInspection {
  bool exists = false;                  // the aggregate table exists
  bool rebuild = false;                 // the next catch-up builds it from the source's current rows
  int64_t snapshots_behind = 0;         // source snapshots after the recorded one (when not rebuilding)
  std::optional<int64_t> watermark_ms;  // with a watermark: the recorded one (nullopt: none yet)
  int64_t late_changes = 0;             // recorded so far
};

// <namespace of `source`>.<aggregate name>.
catalog::TableIdentifier AggregateTableOf(const catalog::TableIdentifier& source,
                                          const AggregateConfig& config);

class AggregateTable {
 public:
  AggregateTable(catalog::Catalog& catalog, catalog::TableIdentifier source, AggregateConfig config,
                 AggregateOptions options);

  const catalog::TableIdentifier& id() const { return id_; }

  // `source` / `source_io`: the source table as just loaded or committed;
  // `keys`: the key columns pairing updates (empty: the table's own).
  Result<AggregateCatchUpResult> CatchUp(const iceberg::TableMetadata& source, FileIO& source_io,
                                         const std::vector<std::string>& keys,
                                         const JustCommitted* just_committed = nullptr);

  // Writes and creates nothing: binds the aggregate to `source`'s current
  // columns and, where the aggregate table exists, checks it as CatchUp does
  // (columns, definition) and says how far behind `source` it is. The
  // errors are CatchUp's.
  Result<AggregateInspection> Inspect(const iceberg::TableMetadata& source);

 private:
  // Whether `table` holds this aggregate: its columns are `columns` and its
  // recorded definition (if any) is the config's.
  Status CheckTable(const iceberg::TableMetadata& table, const Schema& columns) const;

  catalog::Catalog& catalog_;
  catalog::TableIdentifier source_;
  catalog::TableIdentifier id_;
  AggregateConfig config_;
  AggregateOptions options_;
};

}  // namespace floe::ingest
