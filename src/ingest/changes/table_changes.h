// TableChanges: the change convention "table_changes" — rows of a floe
// table's change feed (iceberg/scan/changelog_scan.h) as the table_changes
// discovery's opener yields them: the source table's columns, then
// _change_type, _commit_snapshot_id, _commit_timestamp, _change_ordinal and
// _commit_sequence_number (the source commit's sequence number).
//
// Contract (see change_convention.h):
// - Operations: insert and update_postimage upsert, delete deletes,
//   update_preimage is ignored (its post-image carries the row); merged by
//   key, the newest by (_commit_sequence_number, _change_ordinal) wins — the
//   source's commit order, then the order within a commit. The config
//   parser fills these [merge] values; the keys are [merge] keys or the
//   source table's (MergeConfig::keys_from_source_table).
// - The row image is the source row plus _commit_sequence_number and
//   _change_ordinal (the ordering, which the key index reads back from the
//   target table); _change_type, _commit_snapshot_id and _commit_timestamp
//   are not part of it.
// Immutable; bound conventions are thread-safe.
#pragma once

#include "ingest/changes/change_convention.h"
#include "ingest/changes/columns_changes.h"

namespace floe::ingest {

class TableChanges final : public ChangeConvention {
 public:
  explicit TableChanges(MergeConfig merge) : merge_(merge), columns_("table_changes", std::move(merge)) {}
  const char* name() const override { return "table_changes"; }
  bool merges() const override { return true; }
  Result<std::unique_ptr<BoundChanges>> Bind(const Schema& unit_schema) const override;
  OrderingSpec table_ordering() const override { return OrderingSpec::Of(merge_); }

 private:
  MergeConfig merge_;
  ColumnsChanges columns_;
};

}  // namespace floe::ingest
