// Phase 1 of a batch (table_ingestor_phases.h): every unit's change columns
// scanned, its row-image schema reconciled with the table's, and the newest
// change per key kept.
#include <algorithm>
#include <utility>

#include "ingest/read_ahead.h"
#include "ingest/table_ingestor_phases.h"

namespace floe::ingest {

Result<ScannedBatch> TableIngestor::Impl::ScanAndMerge(const std::vector<SourceUnit>& batch,
                                                       const ProgressFn& progress,
                                                       const std::set<size_t>& skipped,
                                                       std::set<size_t>* progress_reported) {
  ScannedBatch scanned;
  BatchResult& result = scanned.result;
  const ReconcileOptions reconcile = MakeReconcileOptions();
  const iceberg::Schema base = table ? *table->metadata().CurrentSchema() : iceberg::Schema{};
  const int32_t base_last_id = table ? table->metadata().last_column_id : 0;
  const int version = format_version();
  scanned.working = base;
  // A retryable failure (an object store that kept failing) is not the
  // unit's fault: the batch fails and is redone later instead of the unit
  // being quarantined.
  Status transient;
  // Units are opened and scanned ahead on the pool and consumed here in
  // batch order, so quarantines, schema evolution and the merge happen in
  // the order a serial loop would produce.
  std::vector<size_t> to_scan;
  for (size_t i = 0; i < batch.size(); ++i) {
    if (!skipped.count(i)) to_scan.push_back(i);
  }
  ReadAhead<ScannedSource> scans(
      Pool(), to_scan.size(), ReadAheadUnits(), ReadAheadBytes(),
      [&](size_t k) {
        return ScanSource(*units, batch[to_scan[k]], to_scan[k], *convention, merge().order_kind);
      },
      [&](size_t k) { return std::max<int64_t>(batch[to_scan[k]].size, 0); });
  while (!scans.done() && transient.ok()) {
    ScannedSource source = scans.Next();
    const size_t i = source.index;
    const SourceUnit& unit = batch[i];
    auto quarantine = [&](const Status& why) {
      if (why.retryable()) {
        transient = why.WithContext(unit.uri);
        return;
      }
      Quarantine(unit, why.message(), result);
    };
    if (!source.failure.ok()) {  // opening or binding the convention
      quarantine(source.failure);
      continue;
    }
    auto mapping = Reconcile(scanned.working, source.changes->image_schema(), unit.uri, reconcile);
    if (!mapping.ok()) {
      if (reconcile.policy == IncompatiblePolicy::kFail) return mapping.status();
      quarantine(mapping.status());
      continue;
    }
    Result<FileScan>& scan = *source.scan;
    if (!scan.ok()) {
      quarantine(scan.status());
      continue;
    }
    if (!mapping->evolution.empty()) {
      scanned.evolutions.push_back(mapping->evolution);
      auto evolved = EvolveSchema(base, base_last_id, scanned.evolutions, version);
      if (!evolved.ok()) {
        scanned.evolutions.pop_back();
        quarantine(evolved.status());
        continue;
      }
      scanned.working = std::move(evolved).value();
    }
    if (merging() && !scanned.passed.empty() &&
        scanned.changes.MemoryBytesAfterMerging(*scan) > ChangeMapBudget()) {
      // Over budget: nothing written yet; the caller re-plans (see BatchResult::budget_cut_at).
      result.budget_cut_at = i;
      return scanned;
    }
    result.counts.files += 1;
    result.counts.bytes_read += std::max<int64_t>(unit.size, 0);
    result.counts.rows_read += scan->rows;
    result.counts.ignored += scan->ignored;
    result.counts.stale += scan->superseded;
    if (merging()) result.counts.stale += scanned.changes.Merge(*scan);
    for (const std::string& warning : mapping->warnings) result.warnings.push_back(warning);
    PassedUnit passed{i, std::move(scan->chunk_rows), std::move(source.chunk_bytes), {}};
    scanned.passed.push_back(std::move(passed));
    if (progress && progress_reported->insert(i).second) progress(unit.uri, scan->rows, unit.size);
  }
  if (!transient.ok()) return transient;
  return scanned;
}

}  // namespace floe::ingest
