// RewriteFiles: replaces a set of data/delete files with new ones holding the
// same rows (compaction) as one "replace" snapshot.
//
// Contract: every replaced file must still be live in the table the commit
// lands on, else a non-retryable CommitFailed; a delete file added by a
// concurrent commit for a replaced data file also fails (its deletes would
// not apply to the replacements). Delete files whose referenced_data_file is
// a replaced data file are removed with it. Sequence numbers: the
// replacements are ADDED entries and take the new snapshot's data sequence
// number (inherited). This is safe because position deletes are tied to the
// replaced files' paths (which disappear) and the conflict check above
// refuses the one case — new deletes for the replaced files — where rows
// could come back; equality deletes committed before this snapshot no longer
// apply to the replacements, so callers compacting tables with equality
// deletes must apply them while rewriting.
#pragma once

#include <set>
#include <string>

#include "iceberg/transaction/snapshot_producer.h"

namespace floe::iceberg {

class RewriteFiles final : public SnapshotProducer {
 public:
  explicit RewriteFiles(Table& table) : SnapshotProducer(table) {}

  RewriteFiles& DeleteFile(const DataFile& old_file);
  RewriteFiles& AddFile(const DataFile& new_file);
  RewriteFiles& Set(const std::string& key, const std::string& value) {
    SetSummaryProperty(key, value);
    return *this;
  }
  // The parent's summary entries under `prefix` carry over (CarrySummaryEntries).
  RewriteFiles& CarryFromParent(const std::string& prefix) {
    CarrySummaryPrefix(prefix);
    return *this;
  }

 protected:
  std::string operation() const override { return kOperationReplace; }
  Status ValidateAgainst(const TableMetadata& base) override;

 private:
  std::set<std::string> replaced_data_;
};

}  // namespace floe::iceberg
