// Manifest rewrite: merges small data manifests through the RewriteManifests
// action so scan planning reads few manifest files.
#include "maintenance/maintenance.h"

namespace floe::maintenance {

Result<ManifestRewriteReport> RewriteTableManifests(iceberg::Table& table,
                                                    const ManifestRewriteOptions& options) {
  if (options.target_manifest_size <= 0) {
    return Status::InvalidArgument("rewrite manifests: target manifest size must be positive");
  }
  ManifestRewriteReport report;
  if (table.metadata().format_version >= 3) {
    report.conflict = "skipped: format version 3 tables (row lineage) are not rewritten";
    return report;
  }
  iceberg::RewriteManifests action = table.NewRewriteManifests();
  action.TargetManifestSize(options.target_manifest_size)
      .Set(kMaintenanceSummaryKey, "rewrite-manifests")
      .CarryFromParent(kCarriedSummaryPrefix)
      .CarryFromParent(kCarriedSourceSummaryPrefix)
      .CarryFromParent(kCarriedAggregateSummaryPrefix);
  iceberg::RewrittenManifests done;
  if (options.dry_run) {
    FLOE_ASSIGN_OR_RETURN(done, action.Plan());
  } else {
    // Refreshed inside the gate so the commit's first attempt is on the latest metadata.
    Status phase = RunCommitPhase(options.commit_gate, [&]() -> Status {
      FLOE_RETURN_IF_ERROR(table.Refresh());
      if (options.commit_summary) {
        for (const auto& [key, value] : options.commit_summary()) action.Set(key, value);
      }
      FLOE_ASSIGN_OR_RETURN(done, action.Commit());
      return Status::OK();
    });
    if (!phase.ok()) {
      // A lost race that retries could not win: give up for this round.
      if (phase.kind() != ErrorKind::kCommitFailed) return phase;
      report.conflict = phase.message();
      return report;
    }
  }
  report.manifests_replaced = done.manifests_replaced;
  report.manifests_written = done.manifests_written;
  if (done.snapshot) report.snapshot_id = done.snapshot->snapshot_id;
  return report;
}

}  // namespace floe::maintenance
