// Internal to floe_ingest_merge: merging key index runs into one, and which
// runs of an index to merge next.
//
// Merge policy (PickMerge), for runs oldest first, run 0 the oldest ("the
// base"): when the newer runs together hold at least a quarter of the
// base's entries, everything is merged into a new base; otherwise, among
// the newer runs, kFanIn neighbours of one size tier (floor(log4(entries)))
// are merged into one run of the next tier. So the newer runs stay under a
// quarter of the base (bounding the disk and filter memory they cost), there
// are at most ~3 runs per tier above the base (each lookup checks their
// Bloom filters), and an entry is rewritten about once per tier plus once
// per base merge: the cost per change is a small multiple of the change, not
// of the table. Merges take contiguous runs, so newest-wins order holds when
// the merged run replaces them.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "ingest/merge/key_index_run.h"
#include "io/file_io.h"

namespace floe::ingest::key_index_internal {

inline constexpr size_t kFanIn = 4;

// Runs [first, last] (inclusive) to merge next, or nothing; `entries` per run, oldest first.
std::optional<std::pair<size_t, size_t>> PickMerge(const std::vector<uint64_t>& entries);

enum class MergePolicy {
  // Compacting an index: for a key in several runs the newest run's entry wins.
  kNewestWins,
  // A rebuild: inputs marked `rebuilt` hold the live rows read from the
  // table (for a key in several, the greatest ordering value wins and the
  // key counts as a duplicate); the other inputs are an older index, whose
  // newest entry for a key survives only when it is a tombstone and no
  // rebuilt input has the key (the table's rows are the truth).
  kRebuild,
};

struct MergeInput {
  std::shared_ptr<const RunReader> run;
  bool rebuilt = false;
};

struct MergeOptions {
  MergePolicy policy = MergePolicy::kNewestWins;
  // The output becomes the oldest run: tombstones deleted before
  // drop_tombstones_before_s are left out and no Bloom filter is written
  // (nothing older is ever looked up after it).
  bool base = false;
  int64_t drop_tombstones_before_s = 0;
  const std::atomic<bool>* stop = nullptr;  // Cancelled once true (checked every few thousand entries)
  // Set to the input's path when the merge failed because an input is damaged (Corruption).
  std::string* damaged_input = nullptr;
};

struct MergeResult {
  RunInfo info;
  int64_t duplicate_keys = 0;  // kRebuild: keys with more than one live row
};

// Merges `inputs` (oldest first) into a new run at `path`, renumbering data
// files into one table. On error nothing is left at `path`.
Result<MergeResult> MergeRuns(FileIO& io, const std::string& path, const std::vector<MergeInput>& inputs,
                              const MergeOptions& options);

}  // namespace floe::ingest::key_index_internal
