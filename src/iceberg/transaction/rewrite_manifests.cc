#include "iceberg/transaction/rewrite_manifests.h"

#include <charconv>
#include <vector>

#include "iceberg/manifest/manifest_io.h"
#include "iceberg/spec/random_ids.h"
#include "iceberg/spec/table_metadata_builder.h"
#include "iceberg/transaction/commit_retry.h"
#include "iceberg/transaction/snapshot_producer.h"
#include "iceberg/transaction/table.h"
#include "iceberg/transaction/table_reading.h"

namespace floe::iceberg {
namespace {

int64_t TargetSizeFromProperties(const TableMetadata& m) {
  const std::string text = m.Property(kManifestTargetSizeProperty, "");
  int64_t value = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || ptr != text.data() + text.size() || value <= 0) {
    return kManifestTargetSizeDefault;
  }
  return value;
}

struct ManifestPlan {
  std::vector<ManifestFile> kept;
  std::vector<std::vector<ManifestFile>> merges;  // each of two or more manifests of one spec
};

Result<ManifestPlan> PlanMerges(FileIO& io, const TableMetadata& base, int64_t target_size) {
  ManifestPlan plan;
  const Snapshot* current = base.CurrentSnapshot();
  if (current == nullptr) return plan;
  if (current->manifest_list.empty()) {
    return Status::NotSupported("snapshot " + std::to_string(current->snapshot_id) +
                                " lists manifests inline (v1); rewrite needs a manifest list");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<ManifestFile> manifests, ReadManifestList(io, current->manifest_list));
  // Open group per spec id, in manifest-list order.
  std::map<int32_t, std::vector<ManifestFile>> open;
  std::map<int32_t, int64_t> open_size;
  auto close_group = [&](int32_t spec_id) {
    auto& group = open[spec_id];
    if (group.size() >= 2) {
      plan.merges.push_back(std::move(group));
    } else {
      plan.kept.insert(plan.kept.end(), group.begin(), group.end());
    }
    group.clear();
    open_size[spec_id] = 0;
  };
  for (const ManifestFile& m : manifests) {
    if (m.content != ManifestContent::kData || m.manifest_length >= target_size) {
      plan.kept.push_back(m);
      continue;
    }
    open[m.partition_spec_id].push_back(m);
    open_size[m.partition_spec_id] += m.manifest_length;
    if (open_size[m.partition_spec_id] >= target_size) close_group(m.partition_spec_id);
  }
  for (auto& [spec_id, group] : open) close_group(spec_id);
  return plan;
}

}  // namespace

Result<RewrittenManifests> RewriteManifests::Plan() const {
  const TableMetadata& base = table_.metadata();
  FLOE_ASSIGN_OR_RETURN(ManifestPlan plan,
                        PlanMerges(table_.io(), base, target_size_.value_or(TargetSizeFromProperties(base))));
  RewrittenManifests result;
  for (const auto& group : plan.merges) {
    result.manifests_replaced += static_cast<int64_t>(group.size());
    ++result.manifests_written;
    for (const auto& m : group) result.entries_rewritten += m.added_files_count + m.existing_files_count;
  }
  return result;
}

Result<RewrittenManifests> RewriteManifests::Commit() {
  if (target_size_ && *target_size_ <= 0)
    return Status::InvalidArgument("manifest target size must be positive");
  if (table_.metadata().format_version >= 3) {
    return Status::NotSupported(
        "rewriting manifests of a format version 3 table (row lineage) is not supported");
  }
  const int64_t snapshot_id = NewSnapshotId();
  const std::string commit_uuid = NewUuidV4();
  int attempt_number = 0;
  RewrittenManifests result;
  auto delete_quietly = [&](const std::vector<std::string>& paths) {
    for (const auto& p : paths) (void)table_.io().Delete(p);
  };

  auto attempt = [&](const LoadedTable& loaded) -> Result<LoadedTable> {
    const TableMetadata& base = loaded.metadata;
    ++attempt_number;
    result = RewrittenManifests();
    FLOE_ASSIGN_OR_RETURN(
        ManifestPlan plan,
        PlanMerges(table_.io(), base, target_size_.value_or(TargetSizeFromProperties(base))));
    if (plan.merges.empty()) return loaded;
    const Snapshot* parent = base.CurrentSnapshot();
    const Schema* schema = base.CurrentSchema();
    if (schema == nullptr) return Status::Corruption("table has no current schema");

    std::vector<std::string> attempt_files;
    auto fail = [&](const Status& status) -> Status {
      if (status.kind() != ErrorKind::kCommitStateUnknown) delete_quietly(attempt_files);
      return status;
    };
    std::vector<ManifestFile> manifests;
    for (size_t g = 0; g < plan.merges.size(); ++g) {
      const auto& group = plan.merges[g];
      const int32_t spec_id = group.front().partition_spec_id;
      const PartitionSpec* spec = base.SpecById(spec_id);
      if (spec == nullptr) {
        return fail(Status::Corruption("manifest " + group.front().manifest_path + ": partition spec " +
                                       std::to_string(spec_id) + " is not in the table"));
      }
      auto partition_type = PartitionTypeForSpec(base, spec_id);
      if (!partition_type.ok()) return fail(partition_type.status());
      ManifestWriterOptions options;
      options.format_version = base.format_version;
      options.content = ManifestContent::kData;
      options.snapshot_id = snapshot_id;
      const std::string path = base.location + "/metadata/" + commit_uuid + "-r" +
                               std::to_string(attempt_number) + "-m" + std::to_string(g) + ".avro";
      auto writer = ManifestWriter::Open(table_.io(), path, *schema, *spec, options);
      if (!writer.ok()) return fail(writer.status());
      Status status;
      for (const ManifestFile& input : group) {
        auto entries = ReadManifest(table_.io(), input, *partition_type);
        if (!entries.ok()) {
          status = entries.status();
          break;
        }
        for (const ManifestEntry& e : *entries) {
          if (e.status == ManifestEntryStatus::kDeleted) continue;
          ManifestEntry existing = e;
          existing.status = ManifestEntryStatus::kExisting;
          status = (*writer)->Existing(existing);
          if (!status.ok()) break;
          ++result.entries_rewritten;
        }
        if (!status.ok()) break;
      }
      Result<ManifestFile> merged = status.ok() ? (*writer)->Finish() : Result<ManifestFile>(status);
      if (!merged.ok()) {
        (*writer)->Abort();
        return fail(merged.status().WithContext("writing merged manifest " + path));
      }
      attempt_files.push_back(path);
      manifests.push_back(std::move(*merged));
      result.manifests_replaced += static_cast<int64_t>(group.size());
      ++result.manifests_written;
    }
    manifests.insert(manifests.end(), plan.kept.begin(), plan.kept.end());

    Snapshot snapshot;
    snapshot.snapshot_id = snapshot_id;
    snapshot.parent_snapshot_id = parent->snapshot_id;
    snapshot.sequence_number = base.format_version >= 2 ? base.last_sequence_number + 1 : 0;
    snapshot.timestamp_ms = std::max(CurrentTimeMillis(), parent->timestamp_ms);
    snapshot.schema_id = base.current_schema_id;
    snapshot.manifest_list = base.location + "/metadata/snap-" + std::to_string(snapshot_id) + "-" +
                             std::to_string(attempt_number) + "-" + commit_uuid + ".avro";
    snapshot.summary = extra_summary_;
    CarrySummaryEntries(parent->summary, carried_prefixes_, &snapshot.summary);
    // The live files are unchanged: totals carry over from the parent.
    for (const auto& [key, value] : parent->summary) {
      if (key.rfind("total-", 0) == 0) snapshot.summary[key] = value;
    }
    snapshot.summary["operation"] = kOperationReplace;
    snapshot.summary["manifests-created"] = std::to_string(result.manifests_written);
    snapshot.summary["manifests-replaced"] = std::to_string(result.manifests_replaced);
    snapshot.summary["manifests-kept"] = std::to_string(plan.kept.size());
    snapshot.summary["entries-processed"] = std::to_string(result.entries_rewritten);

    ManifestListWriterOptions list_options;
    list_options.format_version = base.format_version;
    list_options.snapshot_id = snapshot_id;
    list_options.parent_snapshot_id = snapshot.parent_snapshot_id;
    list_options.sequence_number = snapshot.sequence_number;
    auto written = WriteManifestList(table_.io(), snapshot.manifest_list, manifests, list_options);
    if (!written.ok()) return fail(written.status().WithContext("writing " + snapshot.manifest_list));
    attempt_files.push_back(snapshot.manifest_list);

    SnapshotRef main_ref = SnapshotRef::Branch(snapshot_id);
    if (auto it = base.refs.find(kMainBranch); it != base.refs.end()) {
      main_ref = it->second;
      main_ref.snapshot_id = snapshot_id;
    }
    std::vector<TableRequirement> requirements = {
        requirement::AssertTableUuid{base.table_uuid},
        requirement::AssertRefSnapshotId{kMainBranch, base.current_snapshot_id},
    };
    std::vector<TableUpdate> updates = {update::AddSnapshot{snapshot},
                                        update::SetSnapshotRef{kMainBranch, main_ref}};
    auto committed = table_.ops().Commit(requirements, updates);
    if (!committed.ok()) return fail(committed.status());
    result.snapshot = snapshot;
    return committed;
  };
  FLOE_ASSIGN_OR_RETURN(LoadedTable committed,
                        CommitWithRetry(table_.ops(), table_.current(), table_.retry_policy(), attempt));
  table_.SetCurrent(std::move(committed));
  return result;
}

}  // namespace floe::iceberg
