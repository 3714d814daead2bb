#include "iceberg/transaction/expire_snapshots.h"

#include <charconv>

#include "iceberg/manifest/manifest_io.h"
#include "iceberg/spec/snapshot_ancestry.h"
#include "iceberg/spec/table_metadata_builder.h"
#include "iceberg/transaction/commit_retry.h"
#include "iceberg/transaction/table.h"

namespace floe::iceberg {

namespace {

int64_t LongProperty(const TableMetadata& m, const char* key, int64_t fallback) {
  std::string text = m.Property(key, "");
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value < 0) return fallback;
  return value;
}

}  // namespace

std::vector<std::string> ExpiredFiles::AllPaths() const {
  std::vector<std::string> all;
  for (const auto* list : {&manifest_lists, &manifests, &data_files, &delete_files}) {
    all.insert(all.end(), list->begin(), list->end());
  }
  return all;
}

Result<std::set<int64_t>> ExpireSnapshots::SelectExpired(const TableMetadata& base) const {
  std::optional<int64_t> cutoff = older_than_ms_;
  if (!cutoff && explicit_ids_.empty()) {
    cutoff = CurrentTimeMillis() - LongProperty(base, kMaxSnapshotAgeMsProperty, kMaxSnapshotAgeMsDefault);
  }
  const int64_t table_min_keep = LongProperty(base, kMinSnapshotsToKeepProperty, 1);

  std::set<int64_t> retained;
  if (base.current_snapshot_id) retained.insert(*base.current_snapshot_id);
  for (const auto& [name, ref] : base.refs) {
    if (explicit_ids_.count(ref.snapshot_id)) {
      return Status::InvalidArgument("cannot expire snapshot " + std::to_string(ref.snapshot_id) + ": ref '" +
                                     name + "' points at it");
    }
    retained.insert(ref.snapshot_id);
    if (ref.kind != SnapshotRef::Kind::kBranch) continue;
    const int64_t min_keep =
        retain_last_ ? *retain_last_ : ref.min_snapshots_to_keep.value_or(table_min_keep);
    // Ancestors are kept while within the count or younger than the cutoff.
    int64_t count = 0;
    for (const Snapshot* s : Ancestors(base, base.SnapshotById(ref.snapshot_id))) {
      const bool young = cutoff && s->timestamp_ms >= *cutoff;
      if (count >= min_keep && !young) break;
      retained.insert(s->snapshot_id);
      ++count;
    }
  }
  std::set<int64_t> expired;
  for (const auto& s : base.snapshots) {
    // Explicit ids win over age-based retention; ref heads were refused above.
    if (s.snapshot_id == base.current_snapshot_id) continue;
    const bool explicitly = explicit_ids_.count(s.snapshot_id) > 0;
    const bool too_old = cutoff && s.timestamp_ms < *cutoff && !retained.count(s.snapshot_id);
    if (explicitly || too_old) expired.insert(s.snapshot_id);
  }
  return expired;
}

Result<ExpiredFiles> ExpireSnapshots::UnreachableFiles(FileIO& io, const TableMetadata& base,
                                                       const std::set<int64_t>& expired) {
  ExpiredFiles out;
  out.expired_snapshot_ids.assign(expired.begin(), expired.end());
  // What retained snapshots need: their manifest lists, manifests and live files.
  std::set<std::string> kept_lists;
  std::set<std::string> kept_manifests;
  std::set<std::string> kept_files;
  for (const auto& s : base.snapshots) {
    if (expired.count(s.snapshot_id) || s.manifest_list.empty()) continue;
    kept_lists.insert(s.manifest_list);
    FLOE_ASSIGN_OR_RETURN(auto manifests, ReadManifestList(io, s.manifest_list));
    for (const auto& m : manifests) {
      if (!kept_manifests.insert(m.manifest_path).second) continue;
      FLOE_ASSIGN_OR_RETURN(Type partition_type, PartitionTypeForSpec(base, m.partition_spec_id));
      FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(io, m, partition_type));
      for (const auto& e : entries) {
        if (e.status != ManifestEntryStatus::kDeleted) kept_files.insert(e.data_file.file_path);
      }
    }
  }
  std::set<std::string> seen_manifests;
  std::set<std::string> seen_files;
  for (const auto& s : base.snapshots) {
    if (!expired.count(s.snapshot_id) || s.manifest_list.empty()) continue;
    if (!kept_lists.count(s.manifest_list)) out.manifest_lists.push_back(s.manifest_list);
    FLOE_ASSIGN_OR_RETURN(auto manifests, ReadManifestList(io, s.manifest_list));
    for (const auto& m : manifests) {
      if (kept_manifests.count(m.manifest_path) || !seen_manifests.insert(m.manifest_path).second) continue;
      out.manifests.push_back(m.manifest_path);
      FLOE_ASSIGN_OR_RETURN(Type partition_type, PartitionTypeForSpec(base, m.partition_spec_id));
      FLOE_ASSIGN_OR_RETURN(auto entries, ReadManifest(io, m, partition_type));
      for (const auto& e : entries) {
        const DataFile& f = e.data_file;
        if (kept_files.count(f.file_path) || !seen_files.insert(f.file_path).second) continue;
        (f.content == DataFileContent::kData ? out.data_files : out.delete_files).push_back(f.file_path);
      }
    }
  }
  return out;
}

Result<ExpiredFiles> ExpireSnapshots::Commit() {
  ExpiredFiles result;
  auto attempt = [&](const LoadedTable& base) -> Result<LoadedTable> {
    FLOE_ASSIGN_OR_RETURN(std::set<int64_t> expired, SelectExpired(base.metadata));
    FLOE_ASSIGN_OR_RETURN(result, UnreachableFiles(table_.io(), base.metadata, expired));
    if (expired.empty()) return base;
    std::vector<TableRequirement> requirements = {requirement::AssertTableUuid{base.metadata.table_uuid}};
    for (const auto& [name, ref] : base.metadata.refs) {
      requirements.push_back(requirement::AssertRefSnapshotId{name, ref.snapshot_id});
    }
    std::vector<TableUpdate> updates = {update::RemoveSnapshots{{expired.begin(), expired.end()}}};
    return table_.ops().Commit(requirements, updates);
  };
  FLOE_ASSIGN_OR_RETURN(LoadedTable committed,
                        CommitWithRetry(table_.ops(), table_.current(), table_.retry_policy(), attempt));
  table_.SetCurrent(std::move(committed));
  return result;
}

Status DeleteExpiredFiles(FileIO& io, const ExpiredFiles& expired) {
  Status first;
  for (const auto& path : expired.AllPaths()) {
    Status status = io.Delete(path);
    if (!status.ok() && status.kind() != ErrorKind::kNotFound && first.ok()) first = status.WithContext(path);
  }
  return first;
}

}  // namespace floe::iceberg
