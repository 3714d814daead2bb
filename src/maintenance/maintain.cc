// MaintainTable: the four operations in the order that leaves the least work
// behind — compaction first (it creates garbage), manifest rewrite (fewer
// manifests to read below), expiry (drops old snapshots and their files),
// orphan removal last (sees the final set of referenced files).
#include <sstream>

#include "maintenance/maintenance.h"

namespace floe::maintenance {

std::string MaintenanceReport::ToString() const {
  std::ostringstream out;
  int64_t input_bytes = 0;
  for (const auto& g : compaction.groups) input_bytes += g.input_bytes;
  out << "compaction: " << compaction.data_files_rewritten << " data files (" << input_bytes << " bytes) in "
      << compaction.groups.size() << " partitions -> " << compaction.data_files_added << " files, "
      << compaction.delete_files_removed << " delete files removed, " << compaction.rows_written << " rows";
  if (compaction.delete_files_merged > 0) {
    out << ", " << compaction.delete_files_merged << " position delete files merged into "
        << compaction.delete_files_written;
  }
  if (compaction.snapshot_id) out << ", snapshot " << *compaction.snapshot_id;
  if (!compaction.conflict.empty()) out << " (gave up: " << compaction.conflict << ")";
  out << "\nmanifests: " << manifests.manifests_replaced << " merged into " << manifests.manifests_written;
  if (manifests.snapshot_id) out << ", snapshot " << *manifests.snapshot_id;
  if (!manifests.conflict.empty()) out << " (" << manifests.conflict << ")";
  out << "\nexpire: " << expire.expired_snapshot_ids.size() << " snapshots, " << expire.files.size()
      << " unreachable files, " << expire.files_deleted << " deleted";
  out << "\norphans: " << orphans.orphans.size() << " of " << orphans.files_listed << " listed files, "
      << orphans.files_deleted << " deleted, " << orphans.too_recent << " unreferenced but too recent";
  return out.str();
}

Result<MaintenanceReport> MaintainTable(iceberg::Table& table, const MaintenanceOptions& options) {
  MaintenanceReport report;
  auto stop_before = [&options](const char* operation) -> Status {
    if (!options.stop_requested || !options.stop_requested()) return Status::OK();
    return Status(ErrorKind::kCancelled, std::string("stopped before ") + operation);
  };
  if (options.compact) {
    FLOE_RETURN_IF_ERROR(stop_before("compaction"));
    CompactionOptions compaction = options.compaction;
    compaction.dry_run = compaction.dry_run || options.dry_run;
    if (options.commit_gate) compaction.commit_gate = options.commit_gate;
    if (options.stop_requested) compaction.stop_requested = options.stop_requested;
    if (options.commit_summary) compaction.commit_summary = options.commit_summary;
    FLOE_ASSIGN_OR_RETURN(report.compaction, CompactTable(table, compaction));
  }
  if (options.rewrite_manifests) {
    FLOE_RETURN_IF_ERROR(stop_before("the manifest rewrite"));
    ManifestRewriteOptions manifests = options.manifests;
    manifests.dry_run = manifests.dry_run || options.dry_run;
    if (options.commit_gate) manifests.commit_gate = options.commit_gate;
    if (options.commit_summary) manifests.commit_summary = options.commit_summary;
    FLOE_ASSIGN_OR_RETURN(report.manifests, RewriteTableManifests(table, manifests));
  }
  if (options.expire_snapshots) {
    FLOE_RETURN_IF_ERROR(stop_before("snapshot expiry"));
    ExpireOptions expire = options.expire;
    expire.dry_run = expire.dry_run || options.dry_run;
    if (options.commit_gate) expire.commit_gate = options.commit_gate;
    FLOE_ASSIGN_OR_RETURN(report.expire, ExpireTableSnapshots(table, expire));
  }
  if (options.remove_orphans) {
    FLOE_RETURN_IF_ERROR(stop_before("orphan removal"));
    OrphanOptions orphans = options.orphans;
    orphans.dry_run = orphans.dry_run || options.dry_run;
    FLOE_ASSIGN_OR_RETURN(report.orphans, RemoveOrphanFiles(table, orphans));
  }
  return report;
}

Result<MaintenanceReport> MaintainTable(catalog::Catalog& catalog, const catalog::TableIdentifier& table,
                                        const MaintenanceOptions& options) {
  FLOE_ASSIGN_OR_RETURN(auto ops, catalog.LoadTable(table));
  FLOE_ASSIGN_OR_RETURN(iceberg::Table loaded, iceberg::Table::Load(std::move(ops)));
  auto report = MaintainTable(loaded, options);
  if (!report.ok()) return report.status().WithContext("maintaining table " + table.ToString());
  return report;
}

}  // namespace floe::maintenance
