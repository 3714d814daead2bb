// UpdatePartitionSpec: evolves the default partition spec.
//
// Contract: the new spec starts from the current default spec; added fields
// name a source column and a transform (default names as Java's evolution
// API: "col", "col_bucket_16", "col_trunc_4", "col_day", ...); removed fields
// are dropped (v2+) or become void transforms (v1, whose readers match fields
// by position). A field with the same source and transform as a field of any
// earlier spec reuses that field's id, otherwise ids continue from
// last-partition-id. The new spec gets the next spec id and becomes the
// default; the commit requires the default spec id and last-partition-id it
// was built on to be unchanged, else it retries on the reloaded table.
#pragma once

#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/table_metadata.h"

namespace floe::iceberg {

class Table;

class UpdatePartitionSpec {
 public:
  explicit UpdatePartitionSpec(Table& table) : table_(table) {}

  UpdatePartitionSpec& AddField(const std::string& source_column, const Transform& transform,
                                const std::string& name = "");
  UpdatePartitionSpec& AddIdentity(const std::string& source_column) {
    return AddField(source_column, Transform::Identity());
  }
  UpdatePartitionSpec& RemoveField(const std::string& partition_field_name);

  // The spec these changes produce on `base` (spec id not yet assigned).
  Result<PartitionSpec> Apply(const TableMetadata& base) const;
  // Commits; returns the new default spec.
  Result<PartitionSpec> Commit();

 private:
  struct Addition {
    std::string source_column;
    Transform transform;
    std::string name;
  };
  Table& table_;
  std::vector<Addition> additions_;
  std::vector<std::string> removals_;
};

}  // namespace floe::iceberg
