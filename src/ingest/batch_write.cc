// Phase 5 of a batch (table_ingestor_phases.h): pass 2 — the planned chunks
// read again (ahead, on the pool), their kept rows imaged and conformed to
// the table schema, lineage filled in, and written in plan order, so every
// written row's (data file, position) is known for the key index.
#include "ingest/lineage_columns.h"
#include "ingest/read_ahead.h"
#include "ingest/table_ingestor_phases.h"

namespace floe::ingest {

Result<KeyIndexDelta> TableIngestor::Impl::WriteRows(const std::vector<SourceUnit>& batch, ReadPlan& plan,
                                                     const iceberg::Schema& table_schema, int64_t now_ms,
                                                     const RowSink& write,
                                                     const DataFilePathFn& data_file_path,
                                                     BatchCounts& counts,
                                                     std::optional<UnitFailure>* failure) {
  SourceChunkReader reader(*units, unit_table_columns, table_schema, MakeReconcileOptions(), *convention,
                           stage, plan.units);
  ReadAhead<DecodedChunk> reads(
      Pool(), plan.reads.size(), ReadAheadUnits(), ReadAheadBytes(),
      [&](size_t k) { return reader.Read(plan.reads[k]); }, [&](size_t k) { return plan.reads[k].cost; });
  // Every selected row becomes one index entry: reserved once, since a
  // growing vector briefly holds its old and new buffers (~48 B per entry).
  KeyIndexDelta lives;
  const bool indexed = merging() && data_file_path;
  if (indexed) {
    size_t selected_rows = 0;
    for (const PassedUnit* unit : plan.read_units) selected_rows += unit->selected.size();
    lives.Reserve(selected_rows);
  }
  std::vector<iceberg::RowLocation> locations;
  for (size_t k = 0; k < plan.reads.size(); ++k) {
    DecodedChunk decoded = reads.Next();
    const ChunkRead& read = plan.reads[k];
    PassedUnit& unit = *plan.read_units[read.unit];
    const SourceUnit& source = batch[unit.index];
    if (!decoded.status.ok()) {
      if (!decoded.unit_fault) return decoded.status;
      // Retryable failures fail the batch (redone later); only the unit's own faults quarantine it.
      if (!decoded.status.retryable()) *failure = UnitFailure{unit.index, decoded.status.message()};
      return decoded.status.WithContext(source.uri);
    }
    if (decoded.conformed) {
      const LineageValues lineage{source.uri, source.mtime_ms * 1000, now_ms * 1000};
      std::vector<int64_t> source_rows(decoded.take.size());
      for (size_t j = 0; j < decoded.take.size(); ++j) source_rows[j] = read.chunk_start + decoded.take[j];
      FLOE_RETURN_IF_ERROR(
          FillLineageColumns(options.settings.lineage, lineage, source_rows, &*decoded.conformed));
      locations.clear();
      FLOE_RETURN_IF_ERROR(
          write(*decoded.conformed, &locations).WithContext("writing rows of " + source.uri));
      if (!merging()) counts.inserted += static_cast<int64_t>(locations.size());
      if (indexed) {
        for (size_t j = 0; j < locations.size(); ++j) {
          const SelectedRow& selected = unit.selected[plan.first_selected[k] + j];
          lives.PutLive(selected.key, data_file_path(locations[j].file), locations[j].position,
                        selected.order);
        }
      }
    }
    if (k + 1 == plan.reads.size() || plan.reads[k + 1].unit != read.unit) {
      // The unit's rows are in `lives` now; free its selection and reader.
      std::vector<SelectedRow>().swap(unit.selected);
      reader.Release(read.unit);
    }
  }
  return lives;
}

}  // namespace floe::ingest
