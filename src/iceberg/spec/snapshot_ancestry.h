// A snapshot's ancestry: the chain of parent-snapshot-id links.
//
// Contract: Ancestors walks from a snapshot back through its parents, newest
// first. A parent id that names no snapshot is legal (that snapshot was
// expired, as Java's and floe's expiry leave it) and ends the walk. The walk
// visits every snapshot at most once, so even metadata that never went
// through TableMetadata::Validate (which refuses cycles, see
// CheckSnapshotLineage) cannot make it loop. Every walk up a snapshot
// history in floe goes through this file. Pure functions: thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/snapshot.h"

namespace floe::iceberg {

struct TableMetadata;

// `from` (included) and its ancestors, newest first; empty when `from` is null.
std::vector<const Snapshot*> Ancestors(const TableMetadata& metadata, const Snapshot* from);
// The current snapshot and its ancestors (empty when the table has no snapshot).
std::vector<const Snapshot*> CurrentAncestors(const TableMetadata& metadata);
// Whether `ancestor_id` is `snapshot_id` or one of its ancestors.
bool IsAncestorOf(const TableMetadata& metadata, int64_t snapshot_id, int64_t ancestor_id);

// Corruption when some snapshot's parent chain comes back to a snapshot it
// already passed: a snapshot naming itself as its parent, or a longer cycle.
// The message names the snapshots of the cycle.
Status CheckSnapshotLineage(const std::vector<Snapshot>& snapshots);

}  // namespace floe::iceberg
