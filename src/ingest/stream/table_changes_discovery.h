// TableChangesDiscovery: the discovery axis of the source model for a floe
// table's change feed ([source] discovery = "table_changes") — which commits
// of which source tables are there to carry into the target (silver ->
// gold, the Streams + Tasks pattern), as position ranges like a stream's.
//
// Contract (see Discovery):
// - Each source table in [source] tables ("namespace.table", in the
//   pipeline's [catalog]) is a stream of one partition ("main": the table's
//   current snapshot and its ancestors). The position is the commit's
//   sequence number — ordered, unlike snapshot ids — so the ledger's stream
//   ends, the commit summary's floe.stream-ranges / floe.stream-ends and the
//   recovery from the table work as for Kafka. A unit is the commits with
//   sequence numbers [first, last] on that chain (at most [source]
//   commits_per_unit of them); its source table name (and so the target's
//   default name) is the table's name without its namespace.
// - A table floe has not read starts at its first snapshot. The next range
//   starts after the last position the ledger holds (SetStreamEnds). Ranges
//   run to the current snapshot at Discover time (so floe run --once stops
//   there); maintenance commits are part of them and contribute no rows.
// - Problems of one table stop only that table (table_errors, naming the
//   table and the snapshot): a history that no longer holds the position
//   read up to (its snapshots expired before floe read their changes, or a
//   rollback), a current sequence number below it (the table was replaced),
//   a format version 1 table (no sequence numbers). A table that does not
//   exist is a warning each poll.
// Not thread-safe (the pipeline's loop calls it). FeedTables is thread-safe.
#pragma once

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "catalog/table/catalog.h"
#include "iceberg/spec/table_metadata.h"
#include "ingest/discovery/discovery.h"

namespace floe::ingest {

// The ledger scheme and the one partition of a change-feed range.
inline constexpr const char* kTableChangesScheme = "table-changes";
inline constexpr const char* kTableChangesPartition = "main";

// The source tables of a change-feed source, loaded through one catalog.
class FeedTables {
 public:
  struct Loaded {
    iceberg::TableMetadata metadata;
    std::shared_ptr<FileIO> io;  // keeps the table (and its catalog) alive
  };
  static Result<std::shared_ptr<FeedTables>> Open(const catalog::CatalogOptions& options);
  // `name` is "namespace.table"; NotFound when it does not exist.
  Result<Loaded> Load(const std::string& name);

 private:
  explicit FeedTables(std::shared_ptr<catalog::Catalog> catalog) : catalog_(std::move(catalog)) {}
  std::mutex mutex_;
  std::shared_ptr<catalog::Catalog> catalog_;
};

// The commits of `metadata`'s current history after sequence number `after`
// (nullopt: from the first snapshot), oldest first; empty when nothing is
// new. InvalidArgument naming `table` and the snapshots when the history no
// longer reaches `after` (see the contract).
Result<std::vector<const iceberg::Snapshot*>> FeedCommitsAfter(const iceberg::TableMetadata& metadata,
                                                               const std::string& table,
                                                               std::optional<int64_t> after);

class TableChangesDiscovery final : public Discovery {
 public:
  TableChangesDiscovery(std::vector<std::string> tables, int64_t commits_per_unit,
                        std::shared_ptr<FeedTables> source)
      : tables_(std::move(tables)),
        commits_per_unit_(static_cast<size_t>(std::max<int64_t>(commits_per_unit, 1))),
        source_(std::move(source)) {}
  Result<DiscoveryResult> Discover(const std::map<std::string, TableWatermark>& watermarks,
                                   int64_t now_ms) override;
  void SetStreamEnds(const std::map<std::pair<std::string, std::string>, std::string>& ends) override {
    ends_ = ends;
  }
  bool finds_streams() const override { return true; }
  std::vector<std::string> KeyColumnsOf(const std::string& table) const override;

 private:
  const std::vector<std::string> tables_;
  const size_t commits_per_unit_;
  std::shared_ptr<FeedTables> source_;
  std::map<std::pair<std::string, std::string>, std::string> ends_;
  std::map<std::string, std::vector<std::string>> keys_;  // by source table name (unit.table)
};

// The unit's source table name: "namespace.table" -> "table".
std::string FeedTableName(const std::string& qualified);

}  // namespace floe::ingest
