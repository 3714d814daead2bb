// TableChangesUnitOpener: opens a change-feed unit (table_changes_discovery.h:
// the commits with sequence numbers [first, last] of one source table) as
// its change rows — computed from the source's snapshots by
// iceberg::ChangelogScan, as `floe table changes` computes them — plus
// _commit_sequence_number, each row's commit's sequence number (the
// position, and with _change_ordinal the order the merge applies them in).
//
// Contract (see UnitOpener):
// - The changes are computed from the snapshots, never read from a
//   <table>__changes table: that works on every floe table, with or without
//   [target] change_feed, and is the same computation either way.
// - The rows are those of ChangelogScan over (parent of `first`, `last`]:
//   the source's columns as of `last`, then the four change columns, then
//   _commit_sequence_number; one chunk per batch the scan returns, held in
//   memory while the unit is open. A unit whose commits change no rows (all
//   maintenance) opens with no schema and no chunks.
// - Every error is retryable (the batch fails and is redone, the unit is
//   never quarantined, which would lose its changes): a source table the
//   catalog cannot load, a history that no longer holds the unit's commits
//   (named with the table and the sequence numbers), an unreadable file.
// Thread-safe (FeedTables is).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ingest/format/unit_opener.h"
#include "ingest/stream/table_changes_discovery.h"

namespace floe::ingest {

class TableChangesUnitOpener final : public UnitOpener {
 public:
  // `key_columns`: per source table name, the key its updates are paired
  // by (its target's [merge] keys); a table not listed or listed empty
  // pairs by its own key.
  TableChangesUnitOpener(std::shared_ptr<FeedTables> source,
                         std::map<std::string, std::vector<std::string>> key_columns)
      : source_(std::move(source)), key_columns_(std::move(key_columns)) {}
  Result<std::unique_ptr<formats::ChunkedReader>> Open(const SourceUnit& unit,
                                                       const Schema& table_columns) override;

 private:
  Result<std::unique_ptr<formats::ChunkedReader>> Read(const SourceUnit& unit);
  std::shared_ptr<FeedTables> source_;
  const std::map<std::string, std::vector<std::string>> key_columns_;
};

}  // namespace floe::ingest
