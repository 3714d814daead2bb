// DeleteFiles: removes whole data files by path as one "delete" snapshot.
//
// Contract: every path must name a live file of the table the commit lands
// on, else a non-retryable CommitFailed (a concurrent commit removed it, or
// it never was there). Delete files whose referenced_data_file is a removed
// data file are removed too, since they would apply to nothing.
#pragma once

#include <string>

#include "iceberg/transaction/snapshot_producer.h"

namespace floe::iceberg {

class DeleteFiles final : public SnapshotProducer {
 public:
  explicit DeleteFiles(Table& table) : SnapshotProducer(table) {}

  DeleteFiles& DeleteFile(const std::string& path) {
    RemovePath(path);
    return *this;
  }
  DeleteFiles& Set(const std::string& key, const std::string& value) {
    SetSummaryProperty(key, value);
    return *this;
  }
  // The parent's summary entries under `prefix` carry over (CarrySummaryEntries).
  DeleteFiles& CarryFromParent(const std::string& prefix) {
    CarrySummaryPrefix(prefix);
    return *this;
  }

 protected:
  std::string operation() const override { return kOperationDelete; }
  Status ValidateAgainst(const TableMetadata& base) override;
};

}  // namespace floe::iceberg
