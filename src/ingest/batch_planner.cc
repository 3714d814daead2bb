#include "ingest/batch_planner.h"

#include <algorithm>
#include <utility>

namespace floe::ingest {

std::vector<std::vector<SourceUnit>> PlanBatches(const std::vector<SourceUnit>& files,
                                                 const BatchLimits& limits) {
  std::vector<std::vector<SourceUnit>> batches;
  std::vector<SourceUnit> current;
  int64_t current_bytes = 0;
  for (const SourceUnit& file : files) {
    const int64_t size = std::max<int64_t>(file.size, 0);
    const bool files_full = limits.max_files > 0 && static_cast<int64_t>(current.size()) >= limits.max_files;
    // Compared as "room left" so huge sizes cannot overflow the sum.
    const bool bytes_full = limits.max_bytes > 0 && size > limits.max_bytes - current_bytes;
    if (!current.empty() && (files_full || bytes_full)) {
      batches.push_back(std::move(current));
      current.clear();
      current_bytes = 0;
    }
    current.push_back(file);
    if (limits.max_bytes <= 0) continue;
    current_bytes += size;  // <= max_bytes, or this file alone: no overflow
    // A batch that reached the byte limit (or one file at or above it) is full.
    if (current_bytes >= limits.max_bytes) {
      batches.push_back(std::move(current));
      current.clear();
      current_bytes = 0;
    }
  }
  if (!current.empty()) batches.push_back(std::move(current));
  return batches;
}

std::vector<std::vector<SourceUnit>> SplitAtBudgetCut(const std::vector<SourceUnit>& batch, size_t cut,
                                                      const std::set<std::string>& set_aside) {
  std::vector<std::vector<SourceUnit>> batches(1);
  for (size_t i = 0; i < batch.size() && i < cut; ++i) {
    if (set_aside.count(batch[i].uri) == 0) batches[0].push_back(batch[i]);
  }
  // As many files as fitted before the cut; none (all set aside): no measure, the rest goes whole.
  const size_t part_size = batches[0].empty() ? batch.size() : batches[0].size();
  if (batches[0].empty()) batches.clear();
  std::vector<SourceUnit> part;
  for (size_t i = cut; i < batch.size(); ++i) {
    if (set_aside.count(batch[i].uri) > 0) continue;
    part.push_back(batch[i]);
    if (part.size() == part_size) batches.push_back(std::exchange(part, {}));
  }
  if (!part.empty()) batches.push_back(std::move(part));
  return batches;
}

}  // namespace floe::ingest
