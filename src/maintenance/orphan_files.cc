// Orphan-file removal: every file under the table location that no metadata
// names and that is older than the safety age is deleted.
//
// Referenced: the current metadata file and every file of its metadata log,
// version-hint.text, every snapshot's manifest list, every manifest those
// lists name and every data/delete file their entries name (DELETED entries
// included: a retained older snapshot may still read the file), statistics and
// partition-statistics files. Paths are compared after normalising "file:"
// URIs and repeated slashes, so a file named two ways is still referenced.
#include <set>
#include <string>

#include "iceberg/manifest/manifest_io.h"
#include "iceberg/spec/table_metadata_builder.h"
#include "iceberg/transaction/table_reading.h"
#include "maintenance/maintenance.h"

namespace floe::maintenance {
namespace {

// "file:///a//b" -> "/a/b"; "s3://b/x//y" -> "s3://b/x/y".
std::string NormalizePath(const std::string& path) {
  std::string scheme;
  std::string rest = path;
  if (rest.rfind("file://", 0) == 0) {
    rest = rest.substr(7);
  } else if (rest.rfind("file:", 0) == 0) {
    rest = rest.substr(5);
  } else if (const size_t colon = rest.find("://"); colon != std::string::npos) {
    scheme = rest.substr(0, colon + 3);
    rest = rest.substr(colon + 3);
  }
  std::string out = scheme;
  for (char c : rest) {
    if (c == '/' && !out.empty() && out.back() == '/' && out.size() > scheme.size()) continue;
    out.push_back(c);
  }
  return out;
}

std::string BaseName(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

Result<std::set<std::string>> ReferencedFiles(FileIO& io, const iceberg::LoadedTable& loaded) {
  const iceberg::TableMetadata& m = loaded.metadata;
  std::set<std::string> referenced;
  auto add = [&](const std::string& path) { referenced.insert(NormalizePath(path)); };
  add(loaded.metadata_location);
  for (const auto& entry : m.metadata_log) add(entry.metadata_file);
  for (const auto& stats : m.statistics) add(stats.statistics_path);
  for (const auto& stats : m.partition_statistics) add(stats.statistics_path);
  std::set<std::string> manifests_read;
  for (const auto& snapshot : m.snapshots) {
    if (snapshot.manifest_list.empty()) {
      return Status::NotSupported("snapshot " + std::to_string(snapshot.snapshot_id) +
                                  " lists manifests inline (v1); orphan removal needs manifest lists");
    }
    add(snapshot.manifest_list);
    FLOE_ASSIGN_OR_RETURN(auto manifests, iceberg::ReadManifestList(io, snapshot.manifest_list));
    for (const auto& manifest : manifests) {
      add(manifest.manifest_path);
      if (!manifests_read.insert(manifest.manifest_path).second) continue;
      FLOE_ASSIGN_OR_RETURN(iceberg::Type partition_type,
                            iceberg::PartitionTypeForSpec(m, manifest.partition_spec_id));
      FLOE_ASSIGN_OR_RETURN(auto entries, iceberg::ReadManifest(io, manifest, partition_type));
      for (const auto& e : entries) add(e.data_file.file_path);
    }
  }
  return referenced;
}

}  // namespace

Result<OrphanReport> RemoveOrphanFiles(iceberg::Table& table, const OrphanOptions& options) {
  if (options.older_than_ms < 0)
    return Status::InvalidArgument("remove orphans: older-than must not be negative");
  if (options.older_than_ms < kMinOrphanAgeMs && !options.force) {
    return Status::InvalidArgument(
        "remove orphans: older-than below 1 hour could delete files of a commit in progress; pass force to "
        "do it "
        "anyway");
  }
  // The freshest state: files of commits made since the table was loaded are referenced.
  FLOE_RETURN_IF_ERROR(table.Refresh());
  const iceberg::LoadedTable loaded = table.current();
  const int64_t cutoff = options.now_ms.value_or(iceberg::CurrentTimeMillis()) - options.older_than_ms;
  FLOE_ASSIGN_OR_RETURN(std::set<std::string> referenced, ReferencedFiles(table.io(), loaded));

  OrphanReport report;
  report.files_referenced = static_cast<int64_t>(referenced.size());
  std::string location = loaded.metadata.location;
  while (!location.empty() && location.back() == '/') location.pop_back();
  if (location.empty()) return Status::Corruption("table " + table.ops().name() + " has no location");
  auto listed = table.io().List(location);
  if (!listed.ok()) {
    if (listed.status().kind() == ErrorKind::kNotFound) return report;
    return listed.status().WithContext("listing " + location);
  }
  for (const FileInfo& file : *listed) {
    ++report.files_listed;
    const std::string path = NormalizePath(file.path);
    if (referenced.count(path)) continue;
    if (BaseName(path) == "version-hint.text") continue;  // the filesystem catalog's pointer
    if (file.mtime_ms >= cutoff) {
      ++report.too_recent;
      continue;
    }
    report.orphans.push_back(file.path);
  }
  if (options.dry_run) return report;
  for (const std::string& path : report.orphans) {
    Status status = table.io().Delete(path);
    if (!status.ok() && status.kind() != ErrorKind::kNotFound)
      return status.WithContext("deleting orphan " + path);
    ++report.files_deleted;
  }
  return report;
}

}  // namespace floe::maintenance
