// RowDelta: commits data files and position delete files / deletion vectors
// together (a change batch's inserts and deletes) as one snapshot.
//
// Contract: the operation is "append" when only data files are added,
// "delete" when only delete files are added or removed, "overwrite" when data
// files are added together with added or removed delete files. On every
// attempt it checks the commits made since the table state it started from:
// a data file referenced by an added delete file (referenced_data_file) or
// named with ValidateDataFileExists must not have been removed, and no other
// delete file may have been added for those data files (one deletion vector
// per data file; concurrent deletes would be lost). A conflict is a
// non-retryable CommitFailed ("validation failed: ...").
//
// RemoveDeletes drops a delete file that must be live in the base of every
// attempt (e.g. a deletion vector replaced by a merged one that AddDeletes
// adds in this commit), else validation fails. SetSchema makes an evolved
// schema current in the same snapshot (see SnapshotProducer::SetNewSchema).
#pragma once

#include <set>
#include <string>

#include "iceberg/transaction/snapshot_producer.h"

namespace floe::iceberg {

class RowDelta final : public SnapshotProducer {
 public:
  explicit RowDelta(Table& table) : SnapshotProducer(table) {}

  RowDelta& AddRows(const DataFile& data_file);
  RowDelta& AddDeletes(const DataFile& delete_file);
  // Removes the live delete file `delete_file_path` (position deletes, deletion vector or equality deletes).
  // A path holding several live deletion vectors (one Puffin file) is refused: use the DataFile form.
  RowDelta& RemoveDeletes(const std::string& delete_file_path);
  // Removes exactly this delete file; a deletion vector is matched by path and content_offset.
  RowDelta& RemoveDeletes(const DataFile& delete_file);
  // `evolved` was built from the schema current when this action was created (ids assigned from that state).
  RowDelta& SetSchema(Schema evolved) {
    SetNewSchema(std::move(evolved));
    return *this;
  }
  // Requires `path` to still be live (e.g. a data file an equality delete was derived from).
  RowDelta& ValidateDataFileExists(const std::string& path);
  RowDelta& Set(const std::string& key, const std::string& value) {
    SetSummaryProperty(key, value);
    return *this;
  }
  // The parent's summary entries under `prefix` carry over (CarrySummaryEntries).
  RowDelta& CarryFromParent(const std::string& prefix) {
    CarrySummaryPrefix(prefix);
    return *this;
  }

 protected:
  std::string operation() const override;
  Status ValidateAgainst(const TableMetadata& base) override;

 private:
  Status invalid_;
  bool has_data_ = false;
  bool has_deletes_ = false;
  bool removes_deletes_ = false;
  std::set<std::string> referenced_;
};

}  // namespace floe::iceberg
