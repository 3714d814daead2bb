#include "iceberg/spec/snapshot_ancestry.h"

#include <unordered_map>

#include "iceberg/spec/table_metadata.h"

namespace floe::iceberg {

namespace {

// Id -> snapshot, so a walk costs O(history), not O(history^2).
std::unordered_map<int64_t, const Snapshot*> IndexById(const std::vector<Snapshot>& snapshots) {
  std::unordered_map<int64_t, const Snapshot*> by_id;
  by_id.reserve(snapshots.size());
  for (const auto& s : snapshots) by_id.emplace(s.snapshot_id, &s);
  return by_id;
}

}  // namespace

std::vector<const Snapshot*> Ancestors(const TableMetadata& metadata, const Snapshot* from) {
  std::vector<const Snapshot*> out;
  if (from == nullptr) return out;
  const auto by_id = IndexById(metadata.snapshots);
  // At most one visit per snapshot: a cycle (never accepted by Validate) ends the walk.
  for (const Snapshot* s = from; s != nullptr && out.size() <= metadata.snapshots.size();) {
    out.push_back(s);
    if (!s->parent_snapshot_id) break;
    auto parent = by_id.find(*s->parent_snapshot_id);
    s = parent == by_id.end() ? nullptr : parent->second;
  }
  return out;
}

std::vector<const Snapshot*> CurrentAncestors(const TableMetadata& metadata) {
  return Ancestors(metadata, metadata.CurrentSnapshot());
}

bool IsAncestorOf(const TableMetadata& metadata, int64_t snapshot_id, int64_t ancestor_id) {
  for (const Snapshot* s : Ancestors(metadata, metadata.SnapshotById(snapshot_id))) {
    if (s->snapshot_id == ancestor_id) return true;
  }
  return false;
}

Status CheckSnapshotLineage(const std::vector<Snapshot>& snapshots) {
  const auto by_id = IndexById(snapshots);
  // 1: on the chain being walked, 2: known to end without a cycle.
  std::unordered_map<int64_t, int> state;
  state.reserve(snapshots.size());
  std::vector<int64_t> chain;
  for (const auto& start : snapshots) {
    chain.clear();
    const Snapshot* s = &start;
    while (s != nullptr) {
      int& mark = state[s->snapshot_id];
      if (mark == 2) break;
      if (mark == 1) {
        if (s->parent_snapshot_id == s->snapshot_id) {
          return Status::Corruption("snapshot " + std::to_string(s->snapshot_id) +
                                    " names itself as its parent-snapshot-id");
        }
        std::string cycle;
        bool in_cycle = false;
        for (int64_t id : chain) {
          in_cycle = in_cycle || id == s->snapshot_id;
          if (in_cycle) cycle += std::to_string(id) + " -> ";
        }
        return Status::Corruption("snapshot parents form a cycle: " + cycle + std::to_string(s->snapshot_id));
      }
      mark = 1;
      chain.push_back(s->snapshot_id);
      if (!s->parent_snapshot_id) break;
      auto parent = by_id.find(*s->parent_snapshot_id);
      s = parent == by_id.end() ? nullptr : parent->second;
    }
    for (int64_t id : chain) state[id] = 2;
  }
  return Status::OK();
}

}  // namespace floe::iceberg
