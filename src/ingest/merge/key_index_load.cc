// PrimaryKeyIndex::Load: the current snapshot's manifest, a catch-up over
// snapshots that only rewrote files, or a rebuild from the table (see
// key_index.h for the rules).
#include <algorithm>
#include <map>
#include <set>

#include "iceberg/spec/snapshot_ancestry.h"
#include "ingest/merge/key_index.h"
#include "ingest/merge/key_index_rebuild.h"
#include "ingest/merge/key_index_state.h"

namespace floe::ingest {

using key_index_internal::IndexManifest;
using key_index_internal::MergeInput;
using key_index_internal::RunReader;

namespace {

using Runs = std::vector<std::shared_ptr<const RunReader>>;

// "keys=a,b;order=c;kind=hex" (one ordering column), "...;order=ts,lsn;kind=timestamp,number",
// as index files record the columns they were written for.
std::string SpecText(const KeyIndexSpec& spec) {
  std::string text = "keys=";
  for (size_t i = 0; i < spec.key_columns.size(); ++i) {
    if (i > 0) text += ",";
    text += spec.key_columns[i];
  }
  return text + ";order=" + spec.ordering.ColumnsText() + ";kind=" + spec.ordering.KindsText();
}

void Warn(std::vector<std::string>* warnings, std::string text) {
  if (warnings) warnings->push_back(std::move(text));
}

// The manifest of snapshot `id` and its runs, checked against the spec.
// Runs `reuse` has open are shared.
Result<Runs> OpenManifest(FileIO& io, const std::string& dir, int64_t id, const std::string& spec_text,
                          bool expect_exact, const Runs* reuse) {
  const std::string path = PrimaryKeyIndex::FilePath(dir, id);
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, io.ReadAll(path));
  FLOE_ASSIGN_OR_RETURN(IndexManifest manifest, key_index_internal::DecodeManifest(bytes));
  if (manifest.snapshot_id != id) {
    return Status::Corruption("holds snapshot " + std::to_string(manifest.snapshot_id) + ", its name says " +
                              std::to_string(id));
  }
  if (!manifest.spec_text.empty() && manifest.spec_text != spec_text) {
    return Status::InvalidArgument("written for " + manifest.spec_text + ", the table now uses " + spec_text);
  }
  Runs runs;
  for (const key_index_internal::ManifestRun& named : manifest.runs) {
    const std::string run_path = key_index_internal::IndexFilePath(dir, named.name);
    std::shared_ptr<const RunReader> run;
    if (reuse != nullptr) {
      for (const auto& open : *reuse) {
        if (open->path() == run_path) run = open;
      }
    }
    if (!run) {
      auto opened = RunReader::Open(io, run_path);
      if (!opened.ok()) return opened.status();
      run = std::move(opened).value();
    }
    if (run->info().entries != named.entries || run->info().bytes != named.bytes) {
      return Status::Corruption("run " + named.name + " holds " + std::to_string(run->info().entries) +
                                " entries in " + std::to_string(run->info().bytes) +
                                " bytes, the manifest says " + std::to_string(named.entries) + " in " +
                                std::to_string(named.bytes));
    }
    if (run->hashed() && expect_exact) {
      return Status::InvalidArgument("holds hashed keys, the key is now a single integer column");
    }
    runs.push_back(std::move(run));
  }
  return runs;
}

// One run from `spills` (sorted pieces of rows read from the table), merged
// with `older` (an older index, for its tombstones) when given; the pieces
// are deleted. `base`: the run is the index's oldest.
Result<std::shared_ptr<const RunReader>> CombineSpills(FileIO& io, const std::string& dir, Runs spills,
                                                       const Runs& older, bool base, int64_t* duplicates) {
  if (spills.empty() && older.empty()) return std::shared_ptr<const RunReader>();
  if (spills.size() == 1 && older.empty()) return spills.front();
  std::vector<MergeInput> inputs;
  for (const auto& run : spills) inputs.push_back({run, true});
  for (const auto& run : older) inputs.push_back({run, false});
  key_index_internal::MergeOptions options;
  options.policy = key_index_internal::MergePolicy::kRebuild;
  options.base = base;
  const std::string path = key_index_internal::IndexFilePath(dir, key_index_internal::NewRunName());
  auto merged = key_index_internal::MergeRuns(io, path, inputs, options);
  for (const auto& run : spills) (void)io.Delete(run->path());
  if (!merged.ok()) return merged.status();
  *duplicates += merged->duplicate_keys;
  return RunReader::Open(io, path);
}

// The snapshots since the newest ancestor with a manifest, when every one of
// them only rewrote files (Iceberg "replace": compaction, manifest rewrites
// change no rows).
struct RewriteChain {
  int64_t base = 0;            // the ancestor whose manifest the catch-up starts from
  std::set<int64_t> rewrites;  // the snapshots after it
};

std::optional<RewriteChain> FindRewriteChain(const std::vector<const iceberg::Snapshot*>& lineage,
                                             const std::map<int64_t, FileInfo>& manifests) {
  RewriteChain chain;
  for (size_t i = 0; i < lineage.size(); ++i) {
    const int64_t id = lineage[i]->snapshot_id;
    if (i > 0 && manifests.count(id)) {
      chain.base = id;
      return chain;
    }
    if (lineage[i]->operation() != "replace") return std::nullopt;
    chain.rewrites.insert(id);
  }
  return std::nullopt;
}

// The rows the rewrites put into data files still live, at their new
// places, as one run (nullptr when they moved none). `base`: the run is the
// index's oldest.
Result<std::shared_ptr<const RunReader>> RelocatedRows(FileIO& io, const std::string& dir,
                                                       const iceberg::TableMetadata& table, FileIO& table_io,
                                                       const KeyIndexSpec& spec,
                                                       const std::set<int64_t>& rewrites, size_t sort_entries,
                                                       bool base) {
  FLOE_ASSIGN_OR_RETURN(std::set<std::string> added,
                        key_index_internal::DataFilesAddedBy(table, table_io, rewrites));
  if (added.empty()) return std::shared_ptr<const RunReader>();
  key_index_internal::SortedRunSpiller spiller(io, dir, sort_entries, /*bloom=*/!base);
  FLOE_RETURN_IF_ERROR(key_index_internal::ScanLiveRows(
      table, table_io, spec, &added,
      [&](const KeyId& key, const OrderValue& order, const std::string& file, int64_t position) {
        return spiller.Add(key, order, file, position);
      }));
  FLOE_ASSIGN_OR_RETURN(Runs spills, spiller.Finish());
  int64_t duplicates = 0;
  return CombineSpills(io, dir, std::move(spills), {}, base, &duplicates);
}

std::map<int64_t, FileInfo> ManifestsIn(const std::vector<FileInfo>& listing, const std::string& dir) {
  std::map<int64_t, FileInfo> manifests;
  for (const FileInfo& info : listing) {
    auto name = key_index_internal::NameInDir(dir, info.path);
    if (!name) continue;
    if (auto id = key_index_internal::SnapshotOfManifestName(*name)) manifests[*id] = info;
  }
  return manifests;
}

std::vector<const iceberg::Snapshot*> Lineage(const iceberg::TableMetadata& table) {
  std::vector<const iceberg::Snapshot*> lineage;
  for (const iceberg::Snapshot* s : iceberg::CurrentAncestors(table)) lineage.push_back(s);
  return lineage;
}

}  // namespace

Result<PrimaryKeyIndex> PrimaryKeyIndex::Load(std::shared_ptr<FileIO> state_io, const std::string& dir,
                                              const iceberg::TableMetadata& table, FileIO& table_io,
                                              const KeyIndexSpec& spec, std::vector<std::string>* warnings,
                                              PrimaryKeyIndex* reuse, int64_t sort_bytes) {
  // Entries sorted in memory at a time.
  const size_t sort_entries = static_cast<size_t>(std::max<int64_t>(sort_bytes, 1) /
                                                  static_cast<int64_t>(sizeof(key_index_internal::RunEntry)));
  FLOE_ASSIGN_OR_RETURN(bool expect_exact, key_index_internal::KeysAreExactIntegers(table, spec));
  FileIO& io = *state_io;
  auto impl = std::make_unique<Impl>();
  impl->io = state_io;
  impl->dir = dir;
  impl->spec_text = SpecText(spec);
  const Runs* reusable = reuse != nullptr ? &reuse->impl_->runs : nullptr;

  FLOE_ASSIGN_OR_RETURN(auto listing, io.List(dir));
  const std::map<int64_t, FileInfo> manifests = ManifestsIn(listing, dir);
  // Snapshots from the current one back through its parents (none: the
  // table is empty; its tombstones are saved for snapshot 0).
  const std::vector<const iceberg::Snapshot*> lineage = Lineage(table);
  const int64_t current = lineage.empty() ? 0 : lineage[0]->snapshot_id;
  auto open = [&](int64_t id) -> Result<Runs> {
    auto runs = OpenManifest(io, dir, id, impl->spec_text, expect_exact, reusable);
    if (!runs.ok()) {
      Warn(warnings, "ignoring key index " + FilePath(dir, id) + " (" + runs.status().ToString() + ")");
    }
    return runs;
  };
  auto finish = [&](Runs runs, std::optional<int64_t> previous) -> Result<PrimaryKeyIndex> {
    // Manifests hold what the runs are; the spec of an index built here is the current one.
    impl->runs = std::move(runs);
    impl->snapshot = current;
    impl->previous = previous;
    if (reuse != nullptr && reuse->impl_->merge) impl->merge = std::move(reuse->impl_->merge);
    impl->CollectGarbage({}, warnings);
    return PrimaryKeyIndex(std::move(impl));
  };
  // The newest ancestor with a manifest: kept beside the current one.
  std::optional<int64_t> newest_ancestor;
  for (size_t i = 1; i < lineage.size() && !newest_ancestor; ++i) {
    if (manifests.count(lineage[i]->snapshot_id)) newest_ancestor = lineage[i]->snapshot_id;
  }

  // 1. Saved for the current snapshot: used as it is.
  if (manifests.count(current)) {
    auto runs = open(current);
    if (runs.ok()) return finish(std::move(runs).value(), newest_ancestor);
  }

  // 2. Only rewrites since an ancestor's manifest (compaction, manifest
  // rewrites: Iceberg "replace" snapshots change no rows): the rows those
  // snapshots added, at their new places, become one run over that index.
  if (auto chain = FindRewriteChain(lineage, manifests)) {
    auto base = open(chain->base);
    if (base.ok()) {
      FLOE_ASSIGN_OR_RETURN(auto moved, RelocatedRows(io, dir, table, table_io, spec, chain->rewrites,
                                                      sort_entries, base->empty()));
      Runs runs = std::move(base).value();
      if (moved) runs.push_back(std::move(moved));
      FLOE_RETURN_IF_ERROR(impl->WriteManifest(impl->ManifestFor(current, runs)));
      return finish(std::move(runs), chain->base);
    }
  }

  // 3. Rebuilt from the table; tombstones from the newest ancestor's index,
  // else from the newest other one.
  std::vector<int64_t> candidates;
  for (size_t i = 1; i < lineage.size(); ++i) {
    if (manifests.count(lineage[i]->snapshot_id)) candidates.push_back(lineage[i]->snapshot_id);
  }
  std::vector<std::pair<int64_t, int64_t>> others;  // (mtime, id), newest first
  for (const auto& [id, info] : manifests) {
    const bool in_lineage =
        std::any_of(lineage.begin(), lineage.end(),
                    [id = id](const iceberg::Snapshot* s) { return s->snapshot_id == id; });
    if (!in_lineage && id != current) others.push_back({info.mtime_ms, id});
  }
  std::sort(others.rbegin(), others.rend());
  for (const auto& other : others) candidates.push_back(other.second);
  Runs older;
  std::optional<int64_t> tombstones_from;
  for (int64_t id : candidates) {
    auto runs = open(id);
    if (runs.ok()) {
      older = std::move(runs).value();
      tombstones_from = id;
      break;
    }
  }
  key_index_internal::SortedRunSpiller spiller(io, dir, sort_entries, /*bloom=*/false);
  FLOE_RETURN_IF_ERROR(key_index_internal::ScanLiveRows(
      table, table_io, spec, nullptr,
      [&](const KeyId& key, const OrderValue& order, const std::string& file, int64_t position) {
        return spiller.Add(key, order, file, position);
      }));
  FLOE_ASSIGN_OR_RETURN(Runs spills, spiller.Finish());
  int64_t duplicates = spiller.duplicate_keys();
  FLOE_ASSIGN_OR_RETURN(auto rebuilt,
                        CombineSpills(io, dir, std::move(spills), older, /*base=*/true, &duplicates));
  if (duplicates > 0) {
    Warn(warnings,
         std::to_string(duplicates) +
             " keys have more than one live row in the table; the index keeps the row with the greatest "
             "ordering value");
  }
  Runs runs;
  if (rebuilt) runs.push_back(std::move(rebuilt));
  FLOE_RETURN_IF_ERROR(impl->WriteManifest(impl->ManifestFor(current, runs)));
  if (table.CurrentSnapshot() != nullptr) {
    Warn(warnings, "key index of snapshot " + std::to_string(current) + " rebuilt from the table (" +
                       std::to_string(runs.empty() ? 0 : runs[0]->info().entries) + " entries)");
  }
  // The tombstones' source stays beside it only when it is an ancestor (it may serve again).
  const bool ancestor =
      tombstones_from && std::any_of(lineage.begin(), lineage.end(), [&](const iceberg::Snapshot* s) {
        return s->snapshot_id == *tombstones_from;
      });
  return finish(std::move(runs), ancestor ? tombstones_from : std::nullopt);
}

struct PrimaryKeyIndex::CatchUp::State {
  std::shared_ptr<FileIO> io;
  std::string dir;
  int64_t snapshot = 0;
  int64_t base = 0;
  std::shared_ptr<const RunReader> moved;  // nullptr: the rewrites moved no rows
  bool published = false;
  ~State() {
    if (!published && moved) (void)io->Delete(moved->path());
  }
};

PrimaryKeyIndex::CatchUp::CatchUp(std::unique_ptr<State> state) : state_(std::move(state)) {}
PrimaryKeyIndex::CatchUp::CatchUp(CatchUp&&) noexcept = default;
PrimaryKeyIndex::CatchUp& PrimaryKeyIndex::CatchUp::operator=(CatchUp&&) noexcept = default;
PrimaryKeyIndex::CatchUp::~CatchUp() = default;
int64_t PrimaryKeyIndex::CatchUp::snapshot_id() const {
  return state_->snapshot;
}

Result<std::optional<PrimaryKeyIndex::CatchUp>> PrimaryKeyIndex::PrepareCatchUp(
    std::shared_ptr<FileIO> state_io, const std::string& dir, const iceberg::TableMetadata& table,
    FileIO& table_io, const KeyIndexSpec& spec, int64_t sort_bytes) {
  FLOE_ASSIGN_OR_RETURN(bool expect_exact, key_index_internal::KeysAreExactIntegers(table, spec));
  FLOE_ASSIGN_OR_RETURN(auto listing, state_io->List(dir));
  const std::map<int64_t, FileInfo> manifests = ManifestsIn(listing, dir);
  const std::vector<const iceberg::Snapshot*> lineage = Lineage(table);
  if (lineage.empty() || manifests.count(lineage[0]->snapshot_id)) return std::optional<CatchUp>();
  auto chain = FindRewriteChain(lineage, manifests);
  if (!chain) return std::optional<CatchUp>();
  auto base = OpenManifest(*state_io, dir, chain->base, SpecText(spec), expect_exact, nullptr);
  if (!base.ok()) return std::optional<CatchUp>();  // the ingest path decides (and warns)
  auto state = std::make_unique<CatchUp::State>();
  state->io = state_io;
  state->dir = dir;
  state->snapshot = lineage[0]->snapshot_id;
  state->base = chain->base;
  const size_t sort_entries = static_cast<size_t>(std::max<int64_t>(sort_bytes, 1) /
                                                  static_cast<int64_t>(sizeof(key_index_internal::RunEntry)));
  // The base's runs were opened to check them; their fences and filters
  // (a second copy beside the ingest path's open index) go before the sort.
  const bool base_empty = base->empty();
  Runs().swap(*base);
  FLOE_ASSIGN_OR_RETURN(state->moved, RelocatedRows(*state_io, dir, table, table_io, spec, chain->rewrites,
                                                    sort_entries, base_empty));
  return std::optional<CatchUp>(CatchUp(std::move(state)));
}

Result<bool> PrimaryKeyIndex::PublishCatchUp(CatchUp catch_up, const iceberg::TableMetadata& table) {
  CatchUp::State& state = *catch_up.state_;
  FileIO& io = *state.io;
  if (table.current_snapshot_id != state.snapshot)
    return false;  // the table moved on: the ingest path catches up
  FLOE_ASSIGN_OR_RETURN(bool exists, io.Exists(FilePath(state.dir, state.snapshot)));
  if (exists) return false;
  // The base manifest as it is now: a merge may have rewritten it (same entries, other runs).
  auto bytes = io.ReadAll(FilePath(state.dir, state.base));
  if (!bytes.ok()) return false;
  auto manifest = key_index_internal::DecodeManifest(*bytes);
  if (!manifest.ok()) return false;
  manifest->snapshot_id = state.snapshot;
  if (state.moved) {
    manifest->runs.push_back(
        {std::string(key_index_internal::NameInDir(state.dir, state.moved->path()).value_or("")),
         state.moved->info().entries, state.moved->info().bytes});
  }
  const std::vector<uint8_t> encoded = key_index_internal::EncodeManifest(*manifest);
  FLOE_RETURN_IF_ERROR(io.WriteAll(FilePath(state.dir, state.snapshot), std::span<const uint8_t>(encoded)));
  state.published = true;
  return true;
}

}  // namespace floe::ingest
