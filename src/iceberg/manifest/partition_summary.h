// Partition field summaries of a manifest (manifest_file.partitions, r508).
//
// Contract: one summary per partition field over every partition tuple
// added: contains_null is true when any value is null, contains_nan when any
// float/double value is NaN (always written, false otherwise), and the bounds
// are the single-value serializations of the smallest and largest non-null,
// non-NaN values (absent when there are none), so lower <= upper always.
#pragma once

#include <optional>
#include <vector>

#include "common/status.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/spec/literal.h"
#include "iceberg/spec/types.h"

namespace floe::iceberg {

// Orders two non-null literals of the same kind the way Iceberg compares
// values of that type: numbers numerically, strings/binary/fixed/uuid as
// unsigned bytes, false < true. Returns <0, 0 or >0.
int CompareLiterals(const Literal& a, const Literal& b);

class PartitionSummaryBuilder {
 public:
  // `partition_type` is the spec's partition struct.
  explicit PartitionSummaryBuilder(Type partition_type);

  // Folds in one partition tuple (one value per spec field).
  Status Add(const std::vector<Literal>& partition);
  Result<std::vector<PartitionFieldSummary>> Finish() const;

 private:
  struct FieldState {
    bool contains_null = false;
    bool contains_nan = false;
    std::optional<Literal> lower;
    std::optional<Literal> upper;
  };
  Type partition_type_;
  std::vector<FieldState> fields_;
};

}  // namespace floe::iceberg
