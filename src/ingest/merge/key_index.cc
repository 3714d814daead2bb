// PrimaryKeyIndex: lookups, saves and background merges (see key_index.h);
// loading is in key_index_load.cc.
#include "ingest/merge/key_index.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "ingest/merge/key_index_state.h"

namespace floe::ingest {

using key_index_internal::BlockCursor;
using key_index_internal::CanonicalKey;
using key_index_internal::IndexManifest;
using key_index_internal::KeyBloom;
using key_index_internal::KeyLess;
using key_index_internal::ManifestName;
using key_index_internal::MergeJob;
using key_index_internal::NameInDir;
using key_index_internal::RunEntry;
using key_index_internal::RunReader;

// ---- KeyIndexDelta ----

uint32_t KeyIndexDelta::Impl::Intern(std::string_view path) {
  if (has_last && files[last_file] == path) return last_file;
  auto [it, added] = numbers.try_emplace(std::string(path), static_cast<uint32_t>(files.size()));
  if (added) files.emplace_back(path);
  last_file = it->second;
  has_last = true;
  return last_file;
}

size_t KeyIndexDelta::BytesPerChange() {
  return sizeof(RunEntry);
}

void KeyIndexDelta::Reserve(size_t changes) {
  if (!impl_) impl_ = std::make_shared<Impl>();
  impl_->entries.reserve(changes);
}

void KeyIndexDelta::PutLive(const KeyId& key, std::string_view data_file, int64_t position,
                            const OrderValue& order) {
  if (!impl_) impl_ = std::make_shared<Impl>();
  RunEntry entry;
  entry.key = CanonicalKey(key);
  entry.order = order;
  entry.value = position;
  entry.file = impl_->Intern(data_file);
  impl_->entries.push_back(entry);
}

void KeyIndexDelta::PutTombstone(const KeyId& key, const OrderValue& order, int64_t deleted_at_ms) {
  if (!impl_) impl_ = std::make_shared<Impl>();
  RunEntry entry;
  entry.key = CanonicalKey(key);
  entry.order = order;
  entry.value = key_index_internal::TombstoneSeconds(deleted_at_ms);
  entry.tombstone = true;
  impl_->entries.push_back(entry);
}

size_t KeyIndexDelta::size() const {
  return impl_ ? impl_->entries.size() : 0;
}

// ---- Impl ----

PrimaryKeyIndex::Impl::~Impl() {
  StopMerge();
}

void PrimaryKeyIndex::Impl::StopMerge() {
  if (!merge) return;
  merge->stop.store(true);
  if (merge->thread.joinable()) merge->thread.join();
  merge.reset();
}

IndexManifest PrimaryKeyIndex::Impl::ManifestFor(
    int64_t snapshot_id, const std::vector<std::shared_ptr<const RunReader>>& of) const {
  IndexManifest manifest;
  manifest.snapshot_id = snapshot_id;
  manifest.spec_text = spec_text;
  for (const auto& run : of) {
    manifest.runs.push_back({std::string(NameInDir(dir, run->path()).value_or(run->path())),
                             run->info().entries, run->info().bytes});
  }
  return manifest;
}

Status PrimaryKeyIndex::Impl::WriteManifest(const IndexManifest& manifest) const {
  const std::string path = FilePath(dir, manifest.snapshot_id);
  const std::vector<uint8_t> bytes = key_index_internal::EncodeManifest(manifest);
  Status written = io->WriteAll(path, std::span<const uint8_t>(bytes));
  return written.ok() ? written : written.WithContext("saving key index manifest " + path);
}

void PrimaryKeyIndex::Impl::CollectGarbage(const std::set<std::string>& retired,
                                           std::vector<std::string>* warnings) const {
  auto warn = [&](const std::string& line) {
    if (warnings) warnings->push_back(line);
  };
  auto listing = io->List(dir);
  if (!listing.ok()) {
    warn("key index files not pruned: " + listing.status().ToString());
    return;
  }
  std::set<std::string> named;  // runs a kept manifest or this index names
  for (const auto& run : runs) named.insert(std::string(NameInDir(dir, run->path()).value_or("")));
  if (prepared) named.insert(std::string(NameInDir(dir, prepared->path()).value_or("")));
  if (merge) named.insert(std::string(NameInDir(dir, merge->path).value_or("")));
  std::set<std::string> dropped = retired;
  std::vector<std::string> delete_manifests;
  for (const FileInfo& info : *listing) {
    auto name = NameInDir(dir, info.path);
    if (!name) continue;
    auto id = key_index_internal::SnapshotOfManifestName(*name);
    if (!id || id == snapshot) continue;
    const bool keep = id == previous;
    // What the manifest names: kept alive by a kept one, deletable with a dropped one.
    auto bytes = io->ReadAll(info.path);
    if (bytes.ok()) {
      auto manifest = key_index_internal::DecodeManifest(*bytes);
      if (manifest.ok()) {
        for (const auto& run : manifest->runs) (keep ? named : dropped).insert(run.name);
      }
    }
    if (!keep) delete_manifests.push_back(info.path);
  }
  for (const std::string& path : delete_manifests) {
    Status deleted = io->Delete(path);
    if (!deleted.ok()) warn("could not delete old key index " + path + ": " + deleted.ToString());
  }
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  for (const FileInfo& info : *listing) {
    auto name = NameInDir(dir, info.path);
    if (!name) continue;
    const bool stale = info.mtime_ms < now_ms - key_index_internal::kUnnamedFileGraceMs;
    const bool run = key_index_internal::IsRunName(*name);
    if (run && named.count(std::string(*name))) continue;
    if ((run && (dropped.count(std::string(*name)) || stale)) ||
        (key_index_internal::IsIndexTempName(*name) && stale)) {
      Status deleted = io->Delete(info.path);
      if (!deleted.ok()) warn("could not delete old key index file " + info.path + ": " + deleted.ToString());
    }
  }
}

void PrimaryKeyIndex::Impl::MaybeStartMerge(bool forced) {
  if (merge || (!background && !forced)) return;
  std::vector<uint64_t> entries;
  for (const auto& run : runs) entries.push_back(run->info().entries);
  auto pick = key_index_internal::PickMerge(entries);
  if (!pick) return;
  auto job = std::make_shared<MergeJob>();
  job->inputs.assign(runs.begin() + static_cast<ptrdiff_t>(pick->first),
                     runs.begin() + static_cast<ptrdiff_t>(pick->second) + 1);
  job->base = pick->first == 0;
  job->path = key_index_internal::IndexFilePath(dir, key_index_internal::NewRunName());
  key_index_internal::MergeOptions options;
  options.base = job->base;
  options.stop = &job->stop;
  options.damaged_input = &job->damaged_input;
  // A tombstone dropped from the base reads as absent already (deleted before the cutoff).
  options.drop_tombstones_before_s = tombstone_cutoff_ms <= 0 ? 0 : (tombstone_cutoff_ms + 999) / 1000;
  std::vector<key_index_internal::MergeInput> inputs;
  for (const auto& run : job->inputs) inputs.push_back({run, false});
  job->thread = std::thread([job, inputs, options, io = io]() {
    // A thread boundary: nothing thrown below may end the process.
    try {
      job->result = key_index_internal::MergeRuns(*io, job->path, inputs, options);
    } catch (const std::exception& e) {
      job->result = Status::Internal(std::string("key index merge threw: ") + e.what());
    }
    job->done.store(true);
  });
  merge = std::move(job);
}

// ---- PrimaryKeyIndex ----

PrimaryKeyIndex::PrimaryKeyIndex(std::shared_ptr<FileIO> state_io, std::string dir)
    : impl_(std::make_unique<Impl>()) {
  impl_->io = std::move(state_io);
  impl_->dir = std::move(dir);
}
PrimaryKeyIndex::PrimaryKeyIndex(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
PrimaryKeyIndex::~PrimaryKeyIndex() = default;
PrimaryKeyIndex::PrimaryKeyIndex(PrimaryKeyIndex&&) noexcept = default;
PrimaryKeyIndex& PrimaryKeyIndex::operator=(PrimaryKeyIndex&&) noexcept = default;

std::string PrimaryKeyIndex::FilePath(const std::string& dir, int64_t snapshot_id) {
  return key_index_internal::IndexFilePath(dir, ManifestName(snapshot_id));
}

void PrimaryKeyIndex::SetTombstoneCutoff(int64_t cutoff_ms) {
  impl_->tombstone_cutoff_ms = cutoff_ms;
}

Status PrimaryKeyIndex::FindMany(const std::vector<KeyId>& keys,
                                 std::vector<std::optional<Entry>>* out) const {
  const Impl& impl = *impl_;
  out->assign(keys.size(), std::nullopt);
  if (impl.runs.empty() || keys.empty()) return Status::OK();
  std::vector<KeyId> canonical(keys.size());
  std::vector<uint64_t> hashes(keys.size());
  for (size_t i = 0; i < keys.size(); ++i) {
    canonical[i] = CanonicalKey(keys[i]);
    hashes[i] = KeyBloom::HashOf(canonical[i]);
  }
  std::vector<uint32_t> pending(keys.size());
  std::iota(pending.begin(), pending.end(), 0u);
  std::sort(pending.begin(), pending.end(),
            [&](uint32_t a, uint32_t b) { return KeyLess(canonical[a], canonical[b]); });
  std::vector<uint32_t> next;
  std::optional<RunEntry> found;
  for (size_t r = impl.runs.size(); r-- > 0 && !pending.empty();) {
    const RunReader& run = *impl.runs[r];
    BlockCursor cursor;
    next.clear();
    for (uint32_t i : pending) {
      if (!run.MayContain(canonical[i], hashes[i])) {
        next.push_back(i);
        continue;
      }
      Status read = run.Find(canonical[i], cursor, &found);
      if (!read.ok()) {
        if (read.kind() == ErrorKind::kCorruption) impl.damaged.insert(run.path());
        return read;
      }
      if (!found) {
        next.push_back(i);
        continue;
      }
      // Found: older runs are not looked at, whatever this entry is.
      if (found->tombstone) {
        if (found->value * 1000 < impl.tombstone_cutoff_ms) continue;  // expired: absent
        Entry entry;
        entry.tombstone = true;
        entry.order = found->order;
        entry.deleted_at_ms = found->value * 1000;
        (*out)[i] = entry;
      } else {
        Entry entry;
        entry.order = found->order;
        entry.position = found->value;
        entry.data_file = *run.FilePath(found->file);
        (*out)[i] = entry;
      }
    }
    pending.swap(next);
  }
  return Status::OK();
}

Result<std::optional<PrimaryKeyIndex::Entry>> PrimaryKeyIndex::Find(const KeyId& key) const {
  std::vector<std::optional<Entry>> found;
  FLOE_RETURN_IF_ERROR(FindMany({key}, &found));
  return found[0];
}

Result<PrimaryKeyIndex::PendingSave> PrimaryKeyIndex::Prepare(KeyIndexDelta delta, int64_t snapshot_id) {
  Impl& impl = *impl_;
  PendingSave saved;
  saved.snapshot_id = snapshot_id;
  saved.manifest_path = FilePath(impl.dir, snapshot_id);
  impl.prepared.reset();
  std::vector<std::shared_ptr<const RunReader>> runs = impl.runs;
  if (delta.impl_ && !delta.impl_->entries.empty()) {
    std::vector<RunEntry>& entries = delta.impl_->entries;
    // The last change of a key wins: sort stably, keep the last of each key.
    std::stable_sort(entries.begin(), entries.end(),
                     [](const RunEntry& a, const RunEntry& b) { return KeyLess(a.key, b.key); });
    size_t kept = 0;
    for (size_t i = 0; i < entries.size(); ++i) {
      if (i + 1 < entries.size() && entries[i + 1].key == entries[i].key) continue;
      entries[kept++] = entries[i];
    }
    entries.resize(kept);
    key_index_internal::RunWriterOptions options;
    options.hashed =
        std::any_of(entries.begin(), entries.end(), [](const RunEntry& e) { return e.key.hi != 0; });
    options.bloom = !impl.runs.empty();  // the first run is the base: nothing older to skip
    options.expected_entries = entries.size();
    saved.run_path = key_index_internal::IndexFilePath(impl.dir, key_index_internal::NewRunName());
    auto write = [&]() -> Status {
      FLOE_ASSIGN_OR_RETURN(auto writer,
                            key_index_internal::RunWriter::Create(*impl.io, saved.run_path, options));
      for (const RunEntry& entry : entries) FLOE_RETURN_IF_ERROR(writer->Add(entry));
      FLOE_ASSIGN_OR_RETURN(auto info, writer->Finish(delta.impl_->files));
      (void)info;
      FLOE_ASSIGN_OR_RETURN(impl.prepared, RunReader::Open(*impl.io, saved.run_path));
      return Status::OK();
    };
    Status written = write();
    if (!written.ok()) {
      (void)impl.io->Delete(saved.run_path);
      impl.prepared.reset();
      return written.WithContext("saving key index run " + saved.run_path);
    }
    runs.push_back(impl.prepared);
  }
  Status manifest = impl.WriteManifest(impl.ManifestFor(snapshot_id, runs));
  if (!manifest.ok()) {
    if (!saved.run_path.empty()) (void)impl.io->Delete(saved.run_path);
    impl.prepared.reset();
    return manifest;
  }
  return saved;
}

void PrimaryKeyIndex::Publish(const PendingSave& saved, std::vector<std::string>* warnings) {
  Impl& impl = *impl_;
  if (!saved.run_path.empty() && impl.prepared) impl.runs.push_back(std::move(impl.prepared));
  impl.prepared.reset();
  if (impl.snapshot != saved.snapshot_id) {
    impl.previous = impl.snapshot;
    impl.snapshot = saved.snapshot_id;
  }
  impl.CollectGarbage({}, warnings);
  impl.MaybeStartMerge();
}

void PrimaryKeyIndex::Discard(const PendingSave& saved) {
  Impl& impl = *impl_;
  impl.prepared.reset();
  if (!saved.run_path.empty()) (void)impl.io->Delete(saved.run_path);
  if (saved.snapshot_id != impl.snapshot) (void)impl.io->Delete(saved.manifest_path);
}

Status PrimaryKeyIndex::Save(KeyIndexDelta delta, int64_t snapshot_id, std::vector<std::string>* warnings) {
  FLOE_ASSIGN_OR_RETURN(PendingSave saved, Prepare(std::move(delta), snapshot_id));
  Publish(saved, warnings);
  return Status::OK();
}

bool PrimaryKeyIndex::AdoptFinishedMerge(std::vector<std::string>* warnings) {
  Impl& impl = *impl_;
  auto warn = [&](const std::string& line) {
    if (warnings) warnings->push_back(line);
  };
  if (!impl.merge) {
    impl.MaybeStartMerge();
    return false;
  }
  if (!impl.merge->done.load()) return false;
  std::shared_ptr<MergeJob> job = std::move(impl.merge);
  if (job->thread.joinable()) job->thread.join();
  Result<key_index_internal::MergeResult>& result = *job->result;
  if (!result.ok()) {
    if (!job->damaged_input.empty()) impl.damaged.insert(job->damaged_input);
    if (result.status().kind() != ErrorKind::kCancelled) {
      warn("key index merge into " + job->path +
           " failed (the runs stay as they are): " + result.status().ToString());
    }
    return false;
  }
  // The merged runs must still be contiguous in the index (a reload may have changed it).
  auto first = std::find(impl.runs.begin(), impl.runs.end(), job->inputs.front());
  const bool contiguous = first != impl.runs.end() &&
                          static_cast<size_t>(impl.runs.end() - first) >= job->inputs.size() &&
                          std::equal(job->inputs.begin(), job->inputs.end(), first);
  auto merged = contiguous ? RunReader::Open(*impl.io, job->path)
                           : Result<std::shared_ptr<const RunReader>>(Status::Cancelled("index changed"));
  if (!merged.ok()) {
    if (contiguous)
      warn("key index merge into " + job->path + " is unreadable: " + merged.status().ToString());
    (void)impl.io->Delete(job->path);
    return false;
  }
  std::vector<std::shared_ptr<const RunReader>> runs(impl.runs.begin(), first);
  runs.push_back(*merged);
  runs.insert(runs.end(), first + static_cast<ptrdiff_t>(job->inputs.size()), impl.runs.end());
  if (impl.snapshot) {
    Status written = impl.WriteManifest(impl.ManifestFor(*impl.snapshot, runs));
    if (!written.ok()) {
      warn("key index merge not adopted: " + written.ToString());
      (void)impl.io->Delete(job->path);
      return false;
    }
  }
  impl.runs = std::move(runs);
  // The previous snapshot's manifest names the merged-away runs: it goes with them.
  impl.previous.reset();
  std::set<std::string> retired;
  for (const auto& run : job->inputs)
    retired.insert(std::string(NameInDir(impl.dir, run->path()).value_or("")));
  impl.CollectGarbage(retired, warnings);
  impl.MaybeStartMerge();
  return true;
}

void PrimaryKeyIndex::FinishMerges(bool all, std::vector<std::string>* warnings) {
  Impl& impl = *impl_;
  impl.MaybeStartMerge(/*forced=*/true);
  while (impl.merge) {
    if (impl.merge->thread.joinable()) impl.merge->thread.join();
    // A merge that failed or could not be adopted is not started again here.
    if (!AdoptFinishedMerge(warnings) || !all) break;
    impl.MaybeStartMerge(/*forced=*/true);
  }
}

void PrimaryKeyIndex::SetBackgroundMerges(bool background) {
  impl_->background = background;
}

bool PrimaryKeyIndex::damaged() const {
  return !impl_->damaged.empty();
}

void PrimaryKeyIndex::DiscardDamaged(std::vector<std::string>* warnings) {
  Impl& impl = *impl_;
  impl.StopMerge();
  auto remove = [&](const std::string& path) {
    Status deleted = impl.io->Delete(path);
    if (!deleted.ok() && deleted.kind() != ErrorKind::kNotFound && warnings) {
      warnings->push_back("could not delete damaged key index file " + path + ": " + deleted.ToString());
    }
  };
  for (const std::string& path : impl.damaged) remove(path);
  if (impl.snapshot) remove(FilePath(impl.dir, *impl.snapshot));
  impl.damaged.clear();
  impl.runs.clear();
}

std::optional<int64_t> PrimaryKeyIndex::snapshot() const {
  return impl_->snapshot;
}

size_t PrimaryKeyIndex::run_count() const {
  return impl_->runs.size();
}

uint64_t PrimaryKeyIndex::entry_count() const {
  uint64_t entries = 0;
  for (const auto& run : impl_->runs) entries += run->info().entries;
  return entries;
}

int64_t PrimaryKeyIndex::DiskBytes() const {
  int64_t bytes = 0;
  for (const auto& run : impl_->runs) bytes += run->info().bytes;
  return bytes;
}

int64_t PrimaryKeyIndex::MemoryBytes() const {
  int64_t bytes = sizeof(Impl);
  for (const auto& run : impl_->runs) bytes += run->MemoryBytes();
  return bytes;
}

}  // namespace floe::ingest
