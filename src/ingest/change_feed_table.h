// ChangeFeedTable: the append-only Iceberg table <table>__changes that
// holds a source table's change feed ([target] change_feed = true), so any
// engine can read the changes of floe's merge-on-read tables.
//
// Contract:
// - Its columns are the source table's (matched by name; new source columns
//   are added, widened ones widened) plus _change_type, _commit_snapshot_id,
//   _commit_timestamp and _change_ordinal (iceberg/scan/changelog_scan.h);
//   field ids are its own. Format version 2, unpartitioned, append only.
// - CatchUp appends the changes of every source commit not yet recorded, in
//   source order, ONE snapshot per source commit that changed rows, whose
//   summary carries floe.source-snapshot-id and floe.source-sequence-number
//   (and the source snapshot's floe.pipeline / floe.batch-id). What is
//   recorded is read from the table itself on every call (the newest
//   snapshot carrying floe.source-snapshot-id, else the start recorded when
//   the table was created), so a call repeated after a crash, a failed or an
//   unknown commit never appends a commit twice, and a call after a missed
//   one catches up. A feed created on a table whose early snapshots were
//   expired starts after the current snapshot (and says so in `warnings`).
// - `just_committed` describes the commit the caller made a moment ago on
//   top of `parent` (floe's ingestor); when it is the only commit missing,
//   its changes are computed from it (no manifest is read). Otherwise they
//   are computed from the source's history.
// - Stage prepares the feed's snapshot for a commit not yet made, to be
//   committed together with it (iceberg::CommitTogether through
//   Catalog::CommitTables) where the catalog commits several tables
//   atomically. Elsewhere the two tables are committed one after the other
//   (data first, then CatchUp): a reader may see a data commit before its
//   changes; the next CatchUp closes the gap.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "catalog/table/catalog.h"
#include "common/status.h"
#include "iceberg/scan/changelog_scan.h"
#include "iceberg/spec/table_metadata.h"
#include "iceberg/transaction/fast_append.h"
#include "iceberg/transaction/table.h"
#include "iceberg/writer/data_file_writer.h"

namespace floe::ingest {

// The feed is a table beside its source, named like the side tables: <table>__changes.
inline constexpr const char* kChangesSuffix = "changes";
inline constexpr const char* kSummarySourceSnapshot = "floe.source-snapshot-id";
inline constexpr const char* kSummarySourceSequence = "floe.source-sequence-number";
// Table property of a feed table: the source snapshot its feed starts after ("" = the beginning).
inline constexpr const char* kFeedStartProperty = "floe.changes.start-after-snapshot-id";

// <namespace>.<table>__changes (SideTableId, side_tables.h).
catalog::TableIdentifier ChangesTableOf(const catalog::TableIdentifier& source);

struct ChangeFeedOptions {
  iceberg::RollingWriterOptions writer;
  // Reads the files a commit removed rows from in parallel (not owned; must
  // outlive the ChangeFeedTable); nullptr: on the calling thread.
  ThreadPool* read_pool = nullptr;
  std::map<std::string, std::string> table_properties;  // for the feed table's creation
};

// A commit made a moment ago: its parent's metadata and what it changed.
struct JustCommitted {
  const iceberg::TableMetadata* parent = nullptr;
  const iceberg::Schema* schema = nullptr;  // the schema the commit wrote with
  iceberg::PendingCommit commit;
};

struct CatchUpResult {
  int64_t commits = 0;  // source commits whose changes were appended
  int64_t rows = 0;
  std::vector<std::string> warnings;
  // The feed table as it stands after the call (its appends included), so
  // a caller need not load it again; nullptr when it does not exist.
  std::shared_ptr<iceberg::Table> feed;
};

// One source commit's changes written as feed data files, and the feed's
// append of them (summary: floe.source-snapshot-id and
// floe.source-sequence-number; the caller adds the pipeline and batch).
struct StagedChanges {
  std::shared_ptr<iceberg::Table> feed;
  std::unique_ptr<iceberg::FastAppend> append;
  std::vector<std::string> files;
  int64_t rows = 0;
  // The append did not commit for `why`: its files go, unless the outcome is unknown.
  void Discard(const Status& why);
};

class ChangeFeedTable {
 public:
  ChangeFeedTable(catalog::Catalog& catalog, catalog::TableIdentifier source, ChangeFeedOptions options);

  const catalog::TableIdentifier& id() const { return id_; }

  // `source` / `source_io`: the source table as just loaded or committed;
  // `keys`: the key columns pairing updates.
  Result<CatchUpResult> CatchUp(const iceberg::TableMetadata& source, FileIO& source_io,
                                const std::vector<std::string>& keys,
                                const JustCommitted* just_committed = nullptr);

  // The feed's append for `pending`, a commit on top of `pending.parent`
  // not made yet, whose snapshot id and timestamp are fixed: the feed is
  // first caught up to the parent (its warnings go to `warnings`), created
  // if missing on a table without snapshots. Empty when the commit changes
  // no rows or the feed cannot be levelled with the parent (the caller
  // commits alone and catches up afterwards). The caller sets
  // floe.source-sequence-number once the commit's sequence number is known.
  Result<std::optional<StagedChanges>> Stage(FileIO& source_io, const std::vector<std::string>& keys,
                                             const JustCommitted& pending,
                                             std::vector<std::string>* warnings);

 private:
  // nullptr when the feed table does not exist.
  Result<std::shared_ptr<iceberg::Table>> LoadFeed();
  Result<std::shared_ptr<iceberg::Table>> CreateFeed(const floe::Schema& columns,
                                                     const std::string& start_after);
  // `commit`'s rows of `scan` as feed files (the feed widened by name where
  // the source gained columns); empty when it changed no rows.
  Result<std::optional<StagedChanges>> WriteCommit(std::shared_ptr<iceberg::Table> feed,
                                                   iceberg::ChangelogScan& scan,
                                                   const iceberg::ChangelogCommit& commit);

  catalog::Catalog& catalog_;
  catalog::TableIdentifier source_;
  catalog::TableIdentifier id_;
  ChangeFeedOptions options_;
};

// The table `id` of `catalog`, loaded; nullptr when it does not exist.
Result<std::shared_ptr<iceberg::Table>> LoadTableIfExists(catalog::Catalog& catalog,
                                                          const catalog::TableIdentifier& id);

// The newest snapshot along `table`'s current snapshot's parents whose
// summary records a source snapshot (a numeric floe.source-snapshot-id):
// where a table kept from another's commits reads its position and what it
// records with it. nullptr: none does.
const iceberg::Snapshot* NewestSourceRecording(const iceberg::TableMetadata& table);
// A snapshot summary's entry `key` as a whole decimal number; nullopt when
// absent or not one.
std::optional<int64_t> SummaryLong(const iceberg::Snapshot& snapshot, const std::string& key);

// The newest source snapshot recorded in a feed table: from its snapshots'
// floe.source-snapshot-id, else its start property. `nullopt` inside the
// optional means "from the beginning"; an empty optional, nothing recorded.
std::optional<std::optional<int64_t>> RecordedSourceSnapshot(const iceberg::TableMetadata& feed);

}  // namespace floe::ingest
