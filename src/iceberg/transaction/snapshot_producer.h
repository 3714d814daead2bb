// The shared machinery of actions that commit a new snapshot by changing the
// set of live data and delete files (fast append, row delta, rewrite, delete).
//
// Contract: one commit produces one snapshot with a random positive id (kept
// across retries), sequence number = last-sequence-number + 1 of the base it
// is committed against, a manifest list rewritten on every attempt and
// manifests for added files written once. Removing a file rewrites the
// manifests that hold it: its entry becomes DELETED (stamped with the new
// snapshot id, sequence numbers kept), the other live entries become
// EXISTING. Manifests left with no live entries are not carried over. On a
// retryable CommitFailed the attempt's own files (manifest list, rewritten
// manifests) are deleted and the loop reloads; after a definite final failure
// every file the action wrote is deleted; after CommitStateUnknown nothing is.
// Validation conflicts (a removed file is no longer live, a concurrent commit
// deleted a data file this change refers to, or added deletes for a file this
// change replaces) are non-retryable CommitFailed errors ("validation failed").
//
// Schema change in the same commit (SetNewSchema): the evolved schema was
// built on the schema current when the action started. Each attempt requires
// that schema id and last-column-id to be unchanged and, before AddSnapshot,
// adds the schema (the builder reuses the id of an identical schema) and makes
// it current; the snapshot's schema-id and the added manifests' "schema" are
// the evolved schema's. A concurrent schema change is a non-retryable
// validation failure: the written files carry field ids of the old plan. An
// evolved schema equal to the starting one (ignoring schema-id) changes nothing.
//
// Format v3 allows one deletion vector per data file: adding one for a data
// file whose live vector is not removed in the same commit, or two for the
// same data file, is InvalidArgument.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/spec/table_metadata.h"
#include "iceberg/transaction/table_operations.h"

namespace floe::iceberg {

class Table;
class SnapshotProducer;

// One table's part of a multi-table commit.
struct TableCommitRequest {
  TableOperations* ops = nullptr;
  std::vector<TableRequirement> requirements;
  std::vector<TableUpdate> updates;
};
// Commits every request in ONE catalog transaction and returns each table's
// new state, in order: all or nothing. CommitFailed (retryable) when a
// requirement failed or a pointer moved meanwhile (nothing changed);
// CommitStateUnknown when the outcome cannot be known.
using CommitTablesFunction =
    std::function<Result<std::vector<LoadedTable>>(const std::vector<TableCommitRequest>&)>;
// Called in every attempt once producer `index` is prepared, before the
// next one is: a later producer may record what an earlier one's snapshot
// is (its sequence number).
using OnStaged = std::function<Status(size_t index, const Snapshot& snapshot)>;

// Commits the snapshots of `producers` (each on its own Table, each used
// once) in one catalog transaction through `commit_tables`, with the retry
// loop of one commit (CommitWithRetry's policy, the first table's): a
// retryable CommitFailed discards every attempt's files, reloads every
// table and tries again. On success every Table shows its committed state;
// on a definite failure every file the producers wrote is deleted; after
// CommitStateUnknown nothing is.
Result<std::vector<Snapshot>> CommitTogether(const std::vector<SnapshotProducer*>& producers,
                                             const CommitTablesFunction& commit_tables,
                                             const OnStaged& on_staged = nullptr);

// Summary keys written by snapshot producers (Java's SnapshotSummary names).
namespace summary {
inline constexpr const char* kAddedDataFiles = "added-data-files";
inline constexpr const char* kAddedRecords = "added-records";
inline constexpr const char* kAddedFilesSize = "added-files-size";
inline constexpr const char* kAddedDeleteFiles = "added-delete-files";
inline constexpr const char* kAddedPositionDeleteFiles = "added-position-delete-files";
inline constexpr const char* kAddedEqualityDeleteFiles = "added-equality-delete-files";
inline constexpr const char* kAddedDeletionVectors = "added-dvs";
inline constexpr const char* kAddedPositionDeletes = "added-position-deletes";
inline constexpr const char* kAddedEqualityDeletes = "added-equality-deletes";
inline constexpr const char* kDeletedDataFiles = "deleted-data-files";
inline constexpr const char* kDeletedRecords = "deleted-records";
inline constexpr const char* kRemovedFilesSize = "removed-files-size";
inline constexpr const char* kRemovedDeleteFiles = "removed-delete-files";
inline constexpr const char* kRemovedPositionDeleteFiles = "removed-position-delete-files";
inline constexpr const char* kRemovedEqualityDeleteFiles = "removed-equality-delete-files";
inline constexpr const char* kRemovedDeletionVectors = "removed-dvs";
inline constexpr const char* kRemovedPositionDeletes = "removed-position-deletes";
inline constexpr const char* kRemovedEqualityDeletes = "removed-equality-deletes";
inline constexpr const char* kTotalRecords = "total-records";
inline constexpr const char* kTotalDataFiles = "total-data-files";
inline constexpr const char* kTotalDeleteFiles = "total-delete-files";
inline constexpr const char* kTotalPositionDeletes = "total-position-deletes";
inline constexpr const char* kTotalEqualityDeletes = "total-equality-deletes";
inline constexpr const char* kTotalFilesSize = "total-files-size";
inline constexpr const char* kChangedPartitionCount = "changed-partition-count";
}  // namespace summary

// Copies into `summary` every entry of `parent` whose key starts with one of
// `prefixes` and that `summary` does not set itself: markers a writer keeps
// in the newest snapshot (floe's stream positions) survive commits that do
// not know them, and expiry of the snapshots that first carried them.
void CarrySummaryEntries(const std::map<std::string, std::string>& parent,
                         const std::vector<std::string>& prefixes,
                         std::map<std::string, std::string>* summary);

class SnapshotProducer {
 public:
  explicit SnapshotProducer(Table& table);
  virtual ~SnapshotProducer() = default;
  SnapshotProducer(const SnapshotProducer&) = delete;
  SnapshotProducer& operator=(const SnapshotProducer&) = delete;

  // Commits with retries; returns the committed snapshot and updates the Table.
  Result<Snapshot> Commit();

  // The id the new snapshot will have.
  int64_t snapshot_id() const { return snapshot_id_; }
  // Gives the snapshot this timestamp instead of the commit's clock time,
  // so what was written for it beforehand (a change feed's
  // _commit_timestamp) agrees; an attempt whose parent snapshot is newer
  // fails validation (non-retryable).
  void SetTimestampMs(int64_t timestamp_ms) { fixed_timestamp_ms_ = timestamp_ms; }
  // An attempt against a table whose current snapshot is no longer the one
  // this action started from fails validation (non-retryable) instead of
  // being rebased: for changes computed from that snapshot (a change feed).
  void RequireUnchangedParent() { require_unchanged_parent_ = true; }

 protected:
  virtual std::string operation() const = 0;
  // Called against every base before producing the snapshot.
  virtual Status ValidateAgainst(const TableMetadata& /*base*/) { return Status::OK(); }

  void SetSummaryProperty(const std::string& key, const std::string& value) { extra_summary_[key] = value; }
  // Summary entries of the parent (of each attempt) with this key prefix are
  // copied unless set here (CarrySummaryEntries).
  void CarrySummaryPrefix(const std::string& prefix) { carried_prefixes_.push_back(prefix); }
  void AddFile(const DataFile& file) { added_files_.push_back(file); }
  void RemovePath(const std::string& path) { removed_paths_.insert(path); }
  // Removes the live delete file(s) at `path` (never a data file). A Puffin file
  // holding deletion vectors of several data files is refused (InvalidArgument):
  // removing them all would resurrect rows; name the vector with RemoveDeletionVector.
  void RemoveDeleteFilePath(const std::string& path) {
    removed_paths_.insert(path);
    removed_delete_paths_.insert(path);
  }
  // Removes the one deletion vector stored at `path` from byte `content_offset`.
  void RemoveDeletionVector(const std::string& path, int64_t content_offset) {
    removed_vectors_.insert({path, content_offset});
  }
  // Makes `evolved` the table's current schema in the same commit (see the contract above).
  void SetNewSchema(Schema evolved);
  // Whether SetNewSchema asked for a schema that differs from the starting one.
  bool changes_schema() const { return new_schema_.has_value(); }
  // Also removes delete files whose referenced_data_file is a removed data file.
  void set_remove_dangling_deletes(bool value) { remove_dangling_deletes_ = value; }
  // Conflict checks against commits made after the table state this action started from.
  void set_fail_on_removed_data(std::set<std::string> paths) { must_stay_live_ = std::move(paths); }
  void set_fail_on_new_deletes_for(std::set<std::string> paths) { no_new_deletes_for_ = std::move(paths); }

  Table& table_;
  std::optional<int64_t> starting_snapshot_id_;
  int32_t starting_schema_id_;
  int32_t starting_last_column_id_;
  std::vector<DataFile> added_files_;
  std::set<std::string> removed_paths_;

 private:
  friend Result<std::vector<Snapshot>> CommitTogether(const std::vector<SnapshotProducer*>&,
                                                      const CommitTablesFunction&, const OnStaged&);

  // One attempt's change against one base, not yet committed: what the
  // catalog must check and apply, and the files the attempt wrote (which no
  // committed metadata references unless it commits).
  struct PreparedAttempt {
    std::vector<TableRequirement> requirements;
    std::vector<TableUpdate> updates;
    Snapshot snapshot;
    std::vector<std::string> files;
  };
  // On error the attempt's own files are already deleted (unless unknown).
  Result<PreparedAttempt> PrepareAttempt(const LoadedTable& base);
  // The attempt did not commit: its files go, unless the outcome is unknown.
  void AbandonAttempt(const PreparedAttempt& attempt, const Status& why);
  // The commit failed for good: the added manifests go, unless unknown.
  void AbandonCommit(const Status& why);
  void FinishCommit(PreparedAttempt attempt, LoadedTable committed);
  Result<LoadedTable> CommitAttempt(const LoadedTable& base);
  Status ValidateConcurrentCommits(const TableMetadata& base);
  Status ValidateOneVectorPerDataFile(const TableMetadata& base,
                                      const std::vector<ManifestFile>& parent_manifests);
  // The schema the new snapshot is written with: the evolved one (its id as the
  // metadata builder will assign it on `base`) or base's current schema.
  Result<Schema> SnapshotSchema(const TableMetadata& base) const;
  Status WriteAddedManifests(const TableMetadata& base, const Schema& schema);
  std::string NewManifestPath(const TableMetadata& base);
  void DeleteQuietly(const std::vector<std::string>& paths);

  int64_t snapshot_id_;
  int attempt_ = 0;
  bool remove_dangling_deletes_ = false;
  std::set<std::string> removed_delete_paths_;
  std::set<std::pair<std::string, int64_t>> removed_vectors_;  // (Puffin path, content_offset)
  std::optional<Schema> new_schema_;  // set only when it differs from the starting schema
  Status invalid_schema_;
  std::set<std::string> must_stay_live_;
  std::set<std::string> no_new_deletes_for_;
  std::map<std::string, std::string> extra_summary_;
  std::vector<std::string> carried_prefixes_;
  std::string commit_uuid_;
  int manifest_counter_ = 0;
  // Manifests for added files, written on the first attempt and reused.
  std::vector<ManifestFile> added_manifests_;
  bool added_manifests_written_ = false;
  int32_t added_manifests_schema_id_ = 0;
  std::optional<Snapshot> committed_;
  std::optional<int64_t> fixed_timestamp_ms_;
  bool require_unchanged_parent_ = false;
};

}  // namespace floe::iceberg
