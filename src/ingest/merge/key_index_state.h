// Internal to floe_ingest_merge: PrimaryKeyIndex's state, shared by
// key_index.cc (lookups, saves, merges) and key_index_load.cc (loading,
// catching up, rebuilding), and KeyIndexDelta's.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "ingest/merge/key_index.h"
#include "ingest/merge/key_index_manifest.h"
#include "ingest/merge/key_index_merge.h"
#include "ingest/merge/key_index_run.h"

namespace floe::ingest {

struct KeyIndexDelta::Impl {
  std::vector<key_index_internal::RunEntry> entries;
  std::vector<std::string> files;
  std::unordered_map<std::string, uint32_t> numbers;
  uint32_t last_file = 0;
  bool has_last = false;
  uint32_t Intern(std::string_view path);
};

namespace key_index_internal {

// One background merge: inputs[k] were runs[first + k] when it started.
struct MergeJob {
  std::vector<std::shared_ptr<const RunReader>> inputs;
  bool base = false;
  std::string path;
  std::atomic<bool> stop{false};
  std::atomic<bool> done{false};
  std::optional<Result<MergeResult>> result;  // set before done
  std::string damaged_input;                  // set before done
  std::thread thread;
};

// Files in a state directory older than this that nothing names are leftovers of a
// process or merge that died; younger ones may be about to be named.
inline constexpr int64_t kUnnamedFileGraceMs = int64_t{3600} * 1000;

}  // namespace key_index_internal

struct PrimaryKeyIndex::Impl {
  std::shared_ptr<FileIO> io;
  std::string dir;
  std::string spec_text;  // "" until Load knows it (then written into every manifest)
  std::vector<std::shared_ptr<const key_index_internal::RunReader>> runs;  // oldest first
  std::optional<int64_t> snapshot;
  std::optional<int64_t> previous;  // the snapshot before, whose manifest is kept
  int64_t tombstone_cutoff_ms = 0;
  std::shared_ptr<const key_index_internal::RunReader> prepared;  // Prepare's run until Publish
  std::shared_ptr<key_index_internal::MergeJob> merge;
  bool background = true;  // merges start on their own (SetBackgroundMerges)
  // Runs a lookup or a merge found damaged (owner thread only).
  mutable std::set<std::string> damaged;

  ~Impl();
  key_index_internal::IndexManifest ManifestFor(
      int64_t snapshot_id, const std::vector<std::shared_ptr<const key_index_internal::RunReader>>& of) const;
  Status WriteManifest(const key_index_internal::IndexManifest& manifest) const;
  // Deletes manifests other than the current and previous snapshot's, the
  // runs only they or `retired` named, and unnamed files past the grace time.
  void CollectGarbage(const std::set<std::string>& retired, std::vector<std::string>* warnings) const;
  // Starts the merge that is due, if any and none is running; unless
  // `forced`, only with background merges.
  void MaybeStartMerge(bool forced = false);
  void StopMerge();
};

}  // namespace floe::ingest
