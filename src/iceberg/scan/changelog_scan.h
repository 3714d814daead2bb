// ChangelogScan: every row change between two snapshots of a table's
// history, computed from the files each commit added and removed — what
// Iceberg's own changelog scan refuses to do once a table has delete files.
//
// Contract:
// - The range is (from, to]: the commits after `from` up to and including
//   `to` (default: the current snapshot), along `to`'s parent chain. `from`
//   must be an ancestor of `to`, or the parent id of the oldest commit still
//   in the metadata (its snapshot was expired); nullopt means "from before
//   the table's first snapshot" and needs the whole history. Anything else
//   is InvalidArgument naming both snapshots.
// - A commit's changes are the rows it removed (rows live at its parent in
//   data files it removed, or at positions its new position deletes /
//   deletion vectors name — a vector that replaces an older one counts only
//   its new positions, because the older one already hid the rest) and the
//   rows it added (rows of its new data files still live after it). Rows
//   are read through the delete files that applied at the time (TableScan
//   semantics), projected by field id onto `to`'s schema (columns added
//   since read as null, dropped ones are gone).
// - Removed and added rows with the same key form an update: an
//   update_preimage and an update_postimage row that share one
//   _change_ordinal; a removed and an added row identical in every column
//   are a carry-over (a file rewritten without change) and yield nothing;
//   other removed rows are deletes, other added rows inserts. The key is
//   ChangelogOptions::key_columns, else the schema's identifier fields, else
//   floe's [merge] keys recorded in the table (kMergeKeysProperty); without
//   a key only carry-overs are matched (by whole rows) and every change is
//   an insert or a delete. A key changed twice in the range appears once per
//   commit.
// - Maintenance commits (operation "replace", or a floe.maintenance summary
//   key) contribute nothing. A commit that adds equality deletes is refused
//   (NotSupported naming the snapshot and the file): which rows it deleted
//   is not knowable without replaying every reader's rules.
// - Output columns: `to`'s schema, then _change_type (string: insert,
//   delete, update_preimage, update_postimage), _commit_snapshot_id (long),
//   _commit_timestamp (timestamptz) and _change_ordinal (long: 0, 1, ...
//   within the commit, in the order rows are returned). Within a commit,
//   rows come in the order of its added files and their rows (an update's
//   pre-image right before its post-image), then the deletes.
// - Reading: a file that lost some rows is read only at their positions
//   (TableScan::OpenPositions: the row groups and pages holding them); the
//   files a commit removed rows from are read in parallel on the read pool
//   when one is set.
// - Memory: the rows a commit removed are held while its added rows stream
//   through (they are needed to pair updates); added rows are never held.
//   Reading them takes one decoded page per pool thread beyond them.
// Not thread-safe; ChangeReaders of one scan may run on different threads.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "common/thread_pool.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/spec/table_metadata.h"
#include "io/file_io.h"

namespace floe::iceberg {

inline constexpr const char* kChangeTypeColumn = "_change_type";
inline constexpr const char* kCommitSnapshotIdColumn = "_commit_snapshot_id";
inline constexpr const char* kCommitTimestampColumn = "_commit_timestamp";
inline constexpr const char* kChangeOrdinalColumn = "_change_ordinal";
inline constexpr const char* kChangeInsert = "insert";
inline constexpr const char* kChangeDelete = "delete";
inline constexpr const char* kChangeUpdatePreimage = "update_preimage";
inline constexpr const char* kChangeUpdatePostimage = "update_postimage";
// Table property where floe records a merged table's [merge] keys (comma-separated names).
inline constexpr const char* kMergeKeysProperty = "floe.merge.keys";
// Snapshot summary key floe's maintenance commits carry.
inline constexpr const char* kMaintenanceSummaryKey = "floe.maintenance";

// The four change columns, appended to a table's columns (no field ids).
std::vector<floe::Field> ChangeColumnFields();

struct ChangelogOptions {
  std::optional<int64_t> from_snapshot_id;  // exclusive; nullopt: from the table's beginning
  std::optional<int64_t> to_snapshot_id;    // inclusive; nullopt: the current snapshot
  std::vector<std::string> key_columns;     // empty: identifier fields, else kMergeKeysProperty
  // Empty: every column. Else only these top-level columns and the key
  // columns are read and returned (ProjectColumns): a change that touches
  // none of them pairs as a carry-over and yields nothing.
  std::vector<std::string> columns = {};
};

// `schema` narrowed to the top-level fields named in `columns` or `keys`,
// in the schema's order (field ids kept; identifier fields not kept are
// dropped from identifier_field_ids). Unknown names are ignored.
Schema ProjectColumns(const Schema& schema, const std::vector<std::string>& columns,
                      const std::vector<std::string>& keys);

// The key updates are paired by when none is given: `schema`'s identifier
// fields, else floe's [merge] keys recorded in `metadata`
// (kMergeKeysProperty); empty: none.
std::vector<std::string> DefaultChangeKeyColumns(const TableMetadata& metadata, const Schema& schema);

// Rows of one data file that a commit removed or added.
struct ChangedFileRows {
  // The data file with the delete files that applied to it: at the parent
  // for removed rows, after the commit for added rows.
  FileScanTask task;
  // Removed rows only: the position delete files / deletion vectors the
  // commit added for this file (their positions that were live are the
  // rows removed); empty means every live row (the file itself was removed).
  std::vector<DataFile> new_deletes;
  // Positions already known (a commit being prepared); used instead of
  // reading `new_deletes`.
  std::optional<std::vector<int64_t>> positions;
};

// One commit of the range and what it changed.
struct ChangelogCommit {
  int64_t snapshot_id = 0;
  int64_t sequence_number = 0;
  int64_t timestamp_ms = 0;
  std::vector<ChangedFileRows> removed;
  std::vector<ChangedFileRows> added;
};

// A commit not yet made (floe's ingestor before its commit): its data files
// and, per data file of the table's current snapshot, the positions it
// deletes (every one a live row: the caller guarantees it).
struct PendingCommit {
  int64_t snapshot_id = 0;
  int64_t timestamp_ms = 0;
  std::vector<DataFile> added_data_files;
  std::map<std::string, std::vector<int64_t>> deleted_positions;
};

// Returns one commit's change rows, a batch at a time.
class ChangeReader {
 public:
  virtual ~ChangeReader() = default;
  // The next non-empty batch, or nullopt at the end.
  virtual Result<std::optional<RecordBatch>> Next() = 0;
};

class ChangelogScan {
 public:
  static Result<std::unique_ptr<ChangelogScan>> Make(TableMetadata metadata, std::shared_ptr<FileIO> io,
                                                     ChangelogOptions options);
  // The changes of `commit` on top of `base` (its current snapshot is the
  // parent), read onto `schema` (the schema the commit writes with), keyed
  // by `key_columns` (names in `schema`; may be empty).
  static Result<std::unique_ptr<ChangelogScan>> ForPendingCommit(TableMetadata base,
                                                                 std::shared_ptr<FileIO> io,
                                                                 const Schema& schema,
                                                                 std::vector<std::string> key_columns,
                                                                 PendingCommit commit);
  ~ChangelogScan();

  // `to`'s schema plus the four change columns.
  const floe::Schema& output_schema() const { return output_schema_; }
  const Schema& table_schema() const { return schema_; }
  // The key the updates are paired by (empty: none).
  const std::vector<std::string>& key_columns() const { return key_columns_; }
  // The snapshot the range ends at (nullopt: the table has none).
  std::optional<int64_t> to_snapshot_id() const { return to_snapshot_id_; }

  // The commits of the range that change rows, oldest first (maintenance
  // commits left out). Reads each commit's own manifests and the live files
  // of the range's first parent once.
  Result<std::vector<ChangelogCommit>> PlanCommits();
  Result<std::unique_ptr<ChangeReader>> Open(const ChangelogCommit& commit) const;
  // Readers opened afterwards read a commit's removed rows on `pool` (not
  // owned; must outlive them); nullptr (the default) reads on the caller's thread.
  void set_read_pool(ThreadPool* pool) { pool_ = pool; }

 private:
  ChangelogScan() = default;
  Status Init(std::vector<std::string> key_columns);

  TableMetadata metadata_;
  std::shared_ptr<FileIO> io_;
  ChangelogOptions options_;
  std::optional<int64_t> to_snapshot_id_;
  Schema schema_;
  floe::Schema output_schema_;
  std::vector<std::string> key_columns_;
  std::vector<int> key_indexes_;  // into schema_.fields
  std::unique_ptr<TableScan> reader_;
  std::optional<ChangelogCommit> pending_;
  ThreadPool* pool_ = nullptr;
};

}  // namespace floe::iceberg
