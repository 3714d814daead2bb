#include "ingest/source_reads.h"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <utility>

#include "columnar/column_rows.h"

namespace floe::ingest {

Result<std::shared_ptr<const BoundTransform>> RowStage::Bind(const Schema& image_schema,
                                                             const std::string& unit) const {
  if (transform == nullptr || transform->empty()) return std::shared_ptr<const BoundTransform>();
  auto bound = transform->Bind(image_schema, table_columns);
  if (!bound.ok()) return bound.status().WithContext("binding it to " + unit);
  return bound;
}

expr::EvalContext RowStage::Context(const std::string& unit) const {
  expr::EvalContext context;
  context.ingestion_time_us = now_us;
  context.current_timestamp_us = now_us;
  context.source_file = unit;
  return context;
}

ScannedSource ScanSource(UnitOpener& opener, const SourceUnit& unit, const Schema& table_columns,
                         size_t index, const ChangeConvention& convention, size_t max_bad_rows,
                         const RowStage& stage) {
  ScannedSource scanned;
  scanned.index = index;
  auto reader = opener.Open(unit, table_columns);
  if (!reader.ok()) {
    scanned.failure = reader.status();
    return scanned;
  }
  auto dead = opener.DeadLettersOf(unit, table_columns);
  if (!dead.ok()) {
    scanned.failure = dead.status();
    return scanned;
  }
  scanned.dead_letters = std::move(dead).value();
  if ((*reader)->schema().empty() && (*reader)->num_chunks() == 0) {
    scanned.no_rows = true;
    return scanned;
  }
  auto changes = convention.Bind((*reader)->schema());
  if (!changes.ok()) {
    scanned.failure = changes.status();
    return scanned;
  }
  scanned.changes = std::move(changes).value();
  auto bound_stage = stage.Bind(scanned.changes->image_schema(), unit.uri);
  if (!bound_stage.ok()) {
    scanned.stage_failure = bound_stage.status();
    return scanned;
  }
  scanned.stage = std::move(bound_stage).value();
  for (int chunk = 0; chunk < (*reader)->num_chunks(); ++chunk) {
    scanned.chunk_bytes.push_back(std::max<int64_t>((*reader)->chunk_bytes(chunk), 0));
  }
  RowCheckScan checks;
  checks.transform = scanned.stage.get();
  checks.rows_are_image = convention.rows_are_image();
  checks.context = stage.Context(unit.uri);
  checks.list_every_failure = stage.list_every_failure;
  scanned.scan.emplace(ScanUnitChanges(**reader, *scanned.changes, convention.merges(),
                                       static_cast<int32_t>(index), max_bad_rows, checks));
  return scanned;
}

SourceChunkReader::SourceChunkReader(UnitOpener& opener, const Schema& table_columns,
                                     const iceberg::Schema& table_schema, ReconcileOptions reconcile,
                                     const ChangeConvention& convention, const RowStage& stage,
                                     std::vector<UnitToRead> units)
    : opener_(opener),
      table_columns_(table_columns),
      table_schema_(table_schema),
      reconcile_(std::move(reconcile)),
      convention_(convention),
      stage_(stage),
      units_(std::move(units)) {
  open_.reserve(units_.size());
  for (size_t i = 0; i < units_.size(); ++i) open_.push_back(std::make_unique<OpenUnit>());
}

void SourceChunkReader::Open(const UnitToRead& unit, OpenUnit* open) {
  open->attempted = true;
  auto reader = opener_.Open(unit.unit, table_columns_);
  if (!reader.ok()) {
    open->status = reader.status();
    return;
  }
  auto changes = convention_.Bind((*reader)->schema());
  if (!changes.ok()) {
    open->status = changes.status();
    return;
  }
  auto bound_stage = stage_.Bind((*changes)->image_schema(), unit.unit.uri);
  if (!bound_stage.ok()) {
    open->status = bound_stage.status();
    open->unit_fault = false;
    return;
  }
  const Schema& output = *bound_stage ? (*bound_stage)->output_schema() : (*changes)->image_schema();
  auto mapping = Reconcile(table_schema_, output, unit.unit.uri, reconcile_);
  if (!mapping.ok()) {
    open->status = mapping.status();
    return;
  }
  if (!mapping->evolution.empty()) {
    open->status =
        Status::Internal(unit.unit.uri + ": the evolved table schema still lacks columns of this unit");
    open->unit_fault = false;
    return;
  }
  if (static_cast<size_t>((*reader)->num_chunks()) != unit.chunks) {
    open->status = Status::Corruption("chunks (row groups) changed between reads");
    return;
  }
  open->reader = std::move(reader).value();
  open->changes = std::move(changes).value();
  open->stage = std::move(bound_stage).value();
  open->mapping = std::move(mapping).value();
}

namespace {

// Append conventions: the rows whose operation is neither an ignore value
// nor unknown (a bad row, set aside in pass 1), less those the row stage
// left out (`exclude`, ascending).
Result<std::vector<int64_t>> RowsToAppend(const RecordBatch& chunk, const BoundChanges& changes,
                                          int64_t chunk_start, const std::vector<int64_t>& exclude) {
  std::vector<int64_t> take;
  size_t next_excluded = 0;
  auto excluded = [&](int64_t row) {
    while (next_excluded < exclude.size() && exclude[next_excluded] < row) ++next_excluded;
    return next_excluded < exclude.size() && exclude[next_excluded] == row;
  };
  if (changes.scan_columns().empty()) {
    take.reserve(static_cast<size_t>(chunk.num_rows));
    for (int64_t row = 0; row < chunk.num_rows; ++row) {
      if (!excluded(row)) take.push_back(row);
    }
    return take;
  }
  RecordBatch scanned;
  scanned.num_rows = chunk.num_rows;
  for (int index : changes.scan_columns()) {
    scanned.schema.push_back(chunk.schema[static_cast<size_t>(index)]);
    scanned.columns.push_back(chunk.columns[static_cast<size_t>(index)]);
  }
  FLOE_ASSIGN_OR_RETURN(ChunkChanges extracted, changes.Extract(std::move(scanned), chunk_start));
  for (int64_t row = 0; row < chunk.num_rows; ++row) {
    const OperationAction action = extracted.actions[static_cast<size_t>(row)];
    if (action != OperationAction::kIgnore && action != OperationAction::kUnknown && !excluded(row)) {
      take.push_back(row);
    }
  }
  return take;
}

}  // namespace

DecodedChunk SourceChunkReader::Read(const ChunkRead& read) {
  DecodedChunk decoded;
  const UnitToRead& unit = units_[read.unit];
  OpenUnit& open = *open_[read.unit];
  Result<RecordBatch> batch = Status::Internal("chunk not read");
  {
    std::lock_guard<std::mutex> lock(open.mutex);
    if (!open.attempted) Open(unit, &open);
    if (!open.status.ok()) {
      decoded.status = open.status;
      decoded.unit_fault = open.unit_fault;
      return decoded;
    }
    if (read.chunk < 0) return decoded;
    batch = open.reader->ReadChunk(read.chunk, {});
  }
  // Taking, imaging and conforming rows need no lock: the binding and the
  // mapping are fixed once opened.
  if (!batch.ok()) {
    decoded.status = batch.status();
    return decoded;
  }
  decoded.rows = batch->num_rows;
  if (batch->num_rows != read.rows) {
    decoded.status = Status::Corruption("chunk " + std::to_string(read.chunk) + " changed between reads");
    return decoded;
  }
  if (read.take_every_row) {
    decoded.take.resize(static_cast<size_t>(batch->num_rows));
    std::iota(decoded.take.begin(), decoded.take.end(), int64_t{0});
  } else if (read.take) {
    decoded.take = *read.take;
  } else {
    auto take = RowsToAppend(*batch, *open.changes, read.chunk_start, read.exclude);
    if (!take.ok()) {
      decoded.status = take.status();
      return decoded;
    }
    decoded.take = std::move(take).value();
  }
  if (decoded.take.empty()) return decoded;
  RecordBatch taken;
  if (static_cast<int64_t>(decoded.take.size()) == batch->num_rows) {
    taken = std::move(batch).value();
  } else {
    auto rows = TakeBatchRows(*batch, decoded.take);
    if (!rows.ok()) {
      decoded.status = rows.status();
      return decoded;
    }
    taken = std::move(rows).value();
  }
  auto image = open.changes->Image(std::move(taken));
  if (!image.ok()) {
    decoded.status = image.status();
    return decoded;
  }
  if (open.stage && !open.stage->identity()) {
    expr::EvalContext context = stage_.Context(unit.unit.uri);
    Column source_rows(Int64());
    source_rows.values.resize(decoded.take.size() * sizeof(int64_t));
    for (size_t j = 0; j < decoded.take.size(); ++j) {
      const int64_t row = read.chunk_start + decoded.take[j];
      std::memcpy(source_rows.values.data() + j * sizeof(int64_t), &row, sizeof(row));
    }
    source_rows.length = static_cast<int64_t>(decoded.take.size());
    context.source_row_column = &source_rows;
    image = open.stage->Apply(std::move(image).value(), context);
    if (!image.ok()) {
      decoded.status = image.status();
      return decoded;
    }
  }
  auto conformed = ConformBatch(std::move(image).value(), *open.mapping, table_schema_);
  if (!conformed.ok()) {
    decoded.status = conformed.status();
    return decoded;
  }
  decoded.conformed = std::move(conformed).value();
  return decoded;
}

void SourceChunkReader::Release(size_t unit) {
  OpenUnit& open = *open_[unit];
  std::lock_guard<std::mutex> lock(open.mutex);
  open.reader.reset();
  open.changes.reset();
  open.stage.reset();
  open.mapping.reset();
}

}  // namespace floe::ingest
