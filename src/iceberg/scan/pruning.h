// File pruning for scan planning: which manifests and data files may hold
// rows matching a conjunction of bound predicates.
//
// Contract: every test here is inclusive — it answers "false" only when no
// row can match, and "true" whenever it cannot tell (missing bounds or
// summaries, bounds of another type, incomparable values). Predicates reach
// partitions through inclusive projection: identity keeps the predicate;
// bucket keeps only =; truncate and year/month/day/hour (monotonic) turn
// < and <= into <= of the transformed value, > and >= into >=, = into =;
// is null / is not null carry over for every known non-void transform.
#pragma once

#include <vector>

#include "common/status.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/scan/predicate.h"
#include "iceberg/spec/partition_spec.h"
#include "iceberg/spec/schema.h"

namespace floe::iceberg {

// A predicate on partition tuple field `field_index`.
struct PartitionPredicate {
  size_t field_index = 0;
  Type result_type;
  PredicateOp op = PredicateOp::kEq;
  Literal value;
};

// The inclusive projections of `filter` onto `spec` (sources resolved in `schema`).
std::vector<PartitionPredicate> ProjectFilterToPartition(const std::vector<BoundPredicate>& filter,
                                                         const PartitionSpec& spec, const Schema& schema);

// Whether a file with this partition tuple may match.
bool PartitionMayMatch(const std::vector<PartitionPredicate>& predicates,
                       const std::vector<Literal>& partition);
// Whether a manifest with these partition summaries may hold matching files.
bool ManifestMayMatch(const std::vector<PartitionPredicate>& predicates, const ManifestFile& manifest);
// Whether a data file with these column metrics may hold matching rows.
bool MetricsMayMatch(const std::vector<BoundPredicate>& filter, const DataFile& file);

}  // namespace floe::iceberg
