// Phase 1 of a batch (table_ingestor_phases.h): every unit's change columns
// scanned, its row-image schema reconciled with the table's, and the newest
// change per key kept.
#include <algorithm>
#include <utility>

#include "ingest/quarantine_rows.h"
#include "ingest/read_ahead.h"
#include "ingest/schema/schema_vote.h"
#include "ingest/table_ingestor_phases.h"

namespace floe::ingest {

namespace {

// A unit's bad rows as rows of <table>__bad_rows: file, row (0-based in the
// unit), reason.
RecordBatch BadRowsOf(const SourceUnit& unit, const std::vector<BadRow>& bad_rows) {
  RecordBatch rows;
  rows.schema = {MakeField("file", String(), false), MakeField("row", Int64(), false),
                 MakeField("reason", String(), false), MakeField("rescued_data", String(), true)};
  rows.columns = {MakeEmptyColumn(String()), MakeEmptyColumn(Int64()), MakeEmptyColumn(String()),
                  MakeEmptyColumn(String())};
  for (const BadRow& bad : bad_rows) {
    rows.columns[0].AppendBytes(unit.uri);
    rows.columns[1].AppendValue<int64_t>(bad.row);
    rows.columns[2].AppendBytes(bad.reason);
    if (bad.rescued_data) {
      rows.columns[3].AppendBytes(*bad.rescued_data);
    } else {
      rows.columns[3].AppendNull();
    }
  }
  rows.num_rows = static_cast<int64_t>(bad_rows.size());
  return rows;
}

// What a unit read: a file's size; a stream range's record bytes (its
// size is unknown until it is fetched).
int64_t UnitBytes(const SourceUnit& unit, const std::vector<int64_t>& chunk_bytes) {
  if (unit.kind != UnitKind::kStreamRange) return std::max<int64_t>(unit.size, 0);
  int64_t bytes = 0;
  for (int64_t chunk : chunk_bytes) bytes += chunk;
  return bytes;
}

}  // namespace

Status TableIngestor::Impl::TakeRowStageResults(const SourceUnit& unit, FileScan& scan,
                                                ScannedBatch& scanned) {
  BatchResult& result = scanned.result;
  BatchCounts& counts = result.counts;
  if (!scan.bad_rows.empty()) {
    counts.bad_rows += static_cast<int64_t>(scan.bad_rows.size());
    if (options.dry_run) {
      for (const BadRow& bad : scan.bad_rows)
        result.problems.push_back({unit.uri, bad.row, "bad row: " + bad.reason, false});
    } else {
      FLOE_RETURN_IF_ERROR(scanned.side.Add(kBadRowsSuffix, BadRowsOf(unit, scan.bad_rows)));
    }
  }
  const std::vector<ExpectationConfig>& expectations = transform->expectations();
  counts.filtered += scan.filtered;
  counts.dropped += scan.dropped;
  if (counts.expectations.empty() && !scan.expectations.empty()) {
    for (const ExpectationConfig& expectation : expectations) {
      counts.expectations.push_back({expectation.name, expectation.action, 0, 0});
    }
  }
  for (size_t e = 0; e < scan.expectations.size() && e < counts.expectations.size(); ++e) {
    counts.expectations[e].checked += scan.expectations[e].checked;
    counts.expectations[e].failed += scan.expectations[e].failed;
  }
  // What a failed row failed, and the strongest action among those.
  auto describe = [&](const FailedRow& row, ExpectationAction* strongest) {
    std::string names;
    *strongest = ExpectationAction::kWarn;
    for (uint32_t e : row.expectations) {
      names += (names.empty() ? "\"" : ", \"") + expectations[e].name + "\"";
      *strongest = std::max(*strongest, expectations[e].action);
    }
    return names;
  };
  for (const FailedRow& row : scan.failed_rows) {
    ExpectationAction strongest = ExpectationAction::kWarn;
    const std::string names = describe(row, &strongest);
    if (!options.dry_run) {
      if (strongest != ExpectationAction::kFail) continue;
      for (uint32_t e : row.expectations) {
        if (expectations[e].action != ExpectationAction::kFail) continue;
        return Status::InvalidArgument("table " + options.table.ToString() + ": expectation \"" +
                                       expectations[e].name + "\" (action \"fail\") failed at row " +
                                       std::to_string(row.row) + " of " + unit.uri +
                                       ": the batch stops and nothing of it commits");
      }
    }
    result.problems.push_back({unit.uri, row.row,
                               "failed " + names + " (" + ExpectationActionName(strongest) +
                                   (strongest == ExpectationAction::kFail ? ": the batch would stop)" : ")"),
                               strongest == ExpectationAction::kFail});
  }
  if (scan.quarantine) {
    counts.quarantined_rows += static_cast<int64_t>(scan.quarantine->rows.size());
    if (!options.dry_run) {
      FLOE_ASSIGN_OR_RETURN(RecordBatch rows,
                            QuarantineRowsOf(unit.uri, std::move(*scan.quarantine), expectations));
      FLOE_RETURN_IF_ERROR(scanned.side.Add(kQuarantineSuffix, std::move(rows)));
    }
    scan.quarantine.reset();
  }
  return Status::OK();
}

void TableIngestor::Impl::VoteNewTableSchemaInto(const std::vector<SourceUnit>& batch,
                                                 const std::vector<size_t>& to_scan,
                                                 const ReconcileOptions& reconcile, ScannedBatch& scanned) {
  if (table || to_scan.size() < 2) return;
  // Units whose schemas the new table's types are voted from ([source]
  // schema_sample_files, default 64): enough to outvote a few odd files, few
  // enough that the extra schema reads of a first batch stay cheap.
  const size_t sample_units = static_cast<size_t>(std::max<int64_t>(1, options.settings.schema.sample_files));
  const size_t step = std::max<size_t>(1, (to_scan.size() + sample_units - 1) / sample_units);
  std::vector<floe::Schema> samples;
  for (size_t k = 0; k < to_scan.size(); k += step) {
    auto reader = units->Open(batch[to_scan[k]], unit_table_columns);
    if (!reader.ok()) continue;  // the scan meets the same failure and quarantines the unit
    auto bound = convention->Bind((*reader)->schema());
    if (!bound.ok()) continue;
    auto staged = stage.Bind((*bound)->image_schema(), batch[to_scan[k]].uri);
    if (!staged.ok()) continue;  // the scan fails the batch with the same error
    samples.push_back(*staged ? (*staged)->output_schema() : (*bound)->image_schema());
  }
  if (samples.size() < 2) return;
  const floe::Schema voted = VoteNewTableSchema(samples, format_version());
  auto mapping = Reconcile(scanned.working, voted, "the schema most files agree on", reconcile);
  if (!mapping.ok() || mapping->evolution.empty()) return;
  scanned.evolutions.push_back(mapping->evolution);
  auto evolved = EvolveSchema(iceberg::Schema{}, 0, scanned.evolutions, format_version());
  if (!evolved.ok()) {
    scanned.evolutions.pop_back();
    return;
  }
  scanned.working = std::move(evolved).value();
}

Result<ScannedBatch> TableIngestor::Impl::ScanAndMerge(const std::vector<SourceUnit>& batch, int64_t now_ms,
                                                       const ProgressFn& progress,
                                                       const std::set<size_t>& skipped,
                                                       std::set<size_t>* progress_reported) {
  ScannedBatch scanned;
  BatchResult& result = scanned.result;
  // Schema notes ("column x: table type int is widened to long", a rescued
  // column) once per batch with the units that caused them, in first-seen order.
  std::vector<std::pair<std::string, std::vector<std::string>>> notes;
  const ReconcileOptions reconcile = MakeReconcileOptions();
  const iceberg::Schema base = table ? *table->metadata().CurrentSchema() : iceberg::Schema{};
  const int32_t base_last_id = table ? table->metadata().last_column_id : 0;
  const int version = format_version();
  scanned.working = base;
  unit_table_columns = UnitTableColumns(base);
  stage = RowStage{};
  stage.transform = transform->empty() ? nullptr : transform.get();
  stage.table_columns = unit_table_columns;
  stage.now_us = now_ms * 1000;
  stage.list_every_failure = options.dry_run;
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
  VoteNewTableSchemaInto(batch, to_scan, reconcile, scanned);
  // A column the new table will have (by the vote) reads as null in a unit that lacks it.
  if (!table) stage.table_columns = UnitTableColumns(scanned.working);
  ReadAhead<ScannedSource> scans(
      Pool(), to_scan.size(), ReadAheadUnits(), ReadAheadBytes(),
      [&](size_t k) {
        return ScanSource(*units, batch[to_scan[k]], unit_table_columns, to_scan[k], *convention,
                          MaxBadRowsPerUnit(), stage);
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
    // The row stage does not fit the unit: the table's configuration is at fault.
    if (!source.stage_failure.ok()) return source.stage_failure;
    if (source.dead_letters.rows && source.dead_letters.rows->num_rows > 0) {
      result.counts.dead_letters += source.dead_letters.rows->num_rows;
      FLOE_RETURN_IF_ERROR(scanned.side.Add(kDeadLetterSuffix, std::move(*source.dead_letters.rows)));
    }
    result.counts.dead_letters_skipped += source.dead_letters.skipped;
    if (source.no_rows) {
      result.counts.files += 1;
      result.counts.bytes_read += UnitBytes(unit, source.chunk_bytes);
      if (progress && progress_reported->insert(i).second) progress(unit.uri, 0, unit.size);
      continue;
    }
    auto mapping = Reconcile(scanned.working, source.output_schema(), unit.uri, reconcile);
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
        KeysMemoryAfterMerging(scanned.changes, *scan) > ChangeMapBudget()) {
      // Over budget: nothing written yet; the caller re-plans (see
      // BatchResult::budget_cut_at), and the parts report their own notes.
      result.budget_cut_at = i;
      return scanned;
    }
    result.counts.files += 1;
    result.counts.bytes_read += UnitBytes(unit, source.chunk_bytes);
    result.counts.rows_read += scan->rows;
    result.counts.ignored += scan->ignored;
    result.counts.stale += scan->superseded;
    FLOE_RETURN_IF_ERROR(TakeRowStageResults(unit, *scan, scanned));
    if (merging()) result.counts.stale += scanned.changes.Merge(*scan);
    for (const std::string& warning : mapping->warnings) {
      auto it =
          std::find_if(notes.begin(), notes.end(), [&](const auto& note) { return note.first == warning; });
      if (it == notes.end()) it = notes.insert(notes.end(), {warning, {}});
      it->second.push_back(unit.uri);
    }
    PassedUnit passed{
        i, std::move(scan->chunk_rows), std::move(source.chunk_bytes), {}, std::move(scan->excluded_rows)};
    scanned.passed.push_back(std::move(passed));
    if (progress && progress_reported->insert(i).second) progress(unit.uri, scan->rows, unit.size);
  }
  if (!transient.ok()) return transient;
  for (const auto& [note, uris] : notes) {
    result.warnings.push_back(note + (uris.size() == 1
                                          ? " (in " + uris.front() + ")"
                                          : " (in " + std::to_string(uris.size()) +
                                                " files of the batch, the first " + uris.front() + ")"));
  }
  return scanned;
}

}  // namespace floe::ingest
