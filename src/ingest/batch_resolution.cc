// Phases 3 and 4 of a batch (table_ingestor_phases.h): the winning changes
// resolved against the key index, and the reads pass 2 makes.
#include <algorithm>
#include <optional>

#include "ingest/table_ingestor_phases.h"

namespace floe::ingest {

Result<Resolution> ResolveChanges(BatchChanges& changes, const PrimaryKeyIndex& index,
                                  std::vector<PassedUnit>& passed, BatchCounts& counts) {
  Resolution resolution;
  std::map<size_t, PassedUnit*> by_index;
  for (PassedUnit& unit : passed) by_index[unit.index] = &unit;
  // The index is asked a slice of changes at a time: bounded memory for a
  // full load's millions, one sorted pass over the runs per slice.
  constexpr size_t kSlice = size_t{1} << 18;
  std::vector<Change> slice;
  std::vector<KeyId> keys;
  std::vector<std::optional<PrimaryKeyIndex::Entry>> current;
  auto resolve_slice = [&]() -> Status {
    keys.clear();
    for (const Change& change : slice) keys.push_back(change.key);
    FLOE_RETURN_IF_ERROR(index.FindMany(keys, &current));
    for (size_t i = 0; i < slice.size(); ++i) {
      const Change& change = slice[i];
      const std::optional<PrimaryKeyIndex::Entry>& found = current[i];
      if (found && found->order >= change.order) {
        ++counts.stale;
        continue;
      }
      const bool live = found && !found->tombstone;
      if (live) resolution.deletes[std::string(found->data_file)].push_back(found->position);
      if (change.is_delete) {
        resolution.tombstones.emplace_back(change.key, change.order);
        ++(live ? counts.deleted : counts.ignored);
      } else {
        by_index.at(static_cast<size_t>(change.file))
            ->selected.push_back({change.row, change.key, change.order});
        ++(live ? counts.updated : counts.inserted);
      }
    }
    slice.clear();
    return Status::OK();
  };
  slice.reserve(std::min(kSlice, changes.winners().size()));
  Status status;
  changes.winners().ForEach([&](const Change& change) {
    if (!status.ok()) return;
    slice.push_back(change);
    if (slice.size() == kSlice) status = resolve_slice();
  });
  if (status.ok()) status = resolve_slice();
  changes.Clear();
  FLOE_RETURN_IF_ERROR(status);
  for (PassedUnit& unit : passed) {
    std::sort(unit.selected.begin(), unit.selected.end(),
              [](const SelectedRow& a, const SelectedRow& b) { return a.row < b.row; });
  }
  return resolution;
}

ReadPlan PlanReads(const std::vector<SourceUnit>& units, std::vector<PassedUnit>& passed, bool merging) {
  ReadPlan plan;
  for (PassedUnit& unit : passed) {
    if (merging && unit.selected.empty()) continue;
    const size_t number = plan.units.size();
    plan.units.push_back(UnitToRead{units[unit.index], unit.chunk_rows.size()});
    plan.read_units.push_back(&unit);
    const size_t first_read = plan.reads.size();
    int64_t chunk_start = 0;
    size_t next_selected = 0;
    size_t next_excluded = 0;
    for (size_t chunk = 0; chunk < unit.chunk_rows.size(); ++chunk) {
      ChunkRead read;
      read.unit = number;
      read.chunk = static_cast<int>(chunk);
      read.rows = unit.chunk_rows[chunk];
      read.chunk_start = chunk_start;
      read.cost = chunk < unit.chunk_bytes.size() ? unit.chunk_bytes[chunk] : 0;
      chunk_start += read.rows;
      const size_t selected_begin = next_selected;
      if (merging) {
        std::vector<int64_t> take;
        while (next_selected < unit.selected.size() && unit.selected[next_selected].row < chunk_start) {
          take.push_back(unit.selected[next_selected].row - read.chunk_start);
          ++next_selected;
        }
        if (take.empty()) continue;
        if (static_cast<int64_t>(take.size()) == read.rows) {
          read.take.emplace();  // ascending and distinct: every row of the chunk
          read.take_every_row = true;
        } else {
          read.take = std::move(take);
        }
      } else {
        while (next_excluded < unit.excluded.size() && unit.excluded[next_excluded] < chunk_start) {
          read.exclude.push_back(unit.excluded[next_excluded] - read.chunk_start);
          ++next_excluded;
        }
      }
      plan.reads.push_back(std::move(read));
      plan.first_selected.push_back(selected_begin);
    }
    if (plan.reads.size() == first_read) {  // no chunks: the unit is still opened and checked
      ChunkRead open_only;
      open_only.unit = number;
      plan.reads.push_back(std::move(open_only));
      plan.first_selected.push_back(0);
    }
  }
  return plan;
}

}  // namespace floe::ingest
