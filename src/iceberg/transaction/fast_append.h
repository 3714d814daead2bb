// FastAppend: commits new data files as one "append" snapshot.
//
// Contract: the added files go into new manifests (one per partition spec);
// every manifest of the parent snapshot is carried over unchanged. Nothing is
// validated against concurrent commits: appends never conflict, except that
// SetSchema (an evolved schema made current in the same snapshot, see
// SnapshotProducer::SetNewSchema) fails if the table schema changed meanwhile.
#pragma once

#include <string>

#include "iceberg/transaction/snapshot_producer.h"

namespace floe::iceberg {

class FastAppend final : public SnapshotProducer {
 public:
  explicit FastAppend(Table& table) : SnapshotProducer(table) {}

  // A data file (content kData) with its partition tuple for file.spec_id.
  FastAppend& AppendFile(const DataFile& file);
  // `evolved` was built from the schema current when this action was created (ids assigned from that state).
  FastAppend& SetSchema(Schema evolved) {
    SetNewSchema(std::move(evolved));
    return *this;
  }
  // An extra summary property, e.g. floe's pipeline and batch ids.
  FastAppend& Set(const std::string& key, const std::string& value) {
    SetSummaryProperty(key, value);
    return *this;
  }
  // The parent's summary entries under `prefix` carry over (CarrySummaryEntries).
  FastAppend& CarryFromParent(const std::string& prefix) {
    CarrySummaryPrefix(prefix);
    return *this;
  }
  // Commits even with no file to add: an append snapshot whose only change
  // is its summary (floe records a batch id that way when the batch added
  // nothing to the table itself). Without it an empty append is refused.
  FastAppend& AllowEmpty() {
    allow_empty_ = true;
    return *this;
  }

 protected:
  std::string operation() const override { return kOperationAppend; }
  Status ValidateAgainst(const TableMetadata& base) override;

 private:
  Status invalid_;
  bool allow_empty_ = false;
};

}  // namespace floe::iceberg
