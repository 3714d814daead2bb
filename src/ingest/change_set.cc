#include "ingest/change_set.h"

#include <algorithm>
#include <span>
#include <string>

#include "columnar/column_rows.h"
#include "formats/rescued_data.h"
#include "ingest/merge/key_index.h"
#include "ingest/merge/order_value.h"

namespace floe::ingest {

namespace {

// The chunk's scan columns; nothing is read when the convention needs none.
Result<RecordBatch> ReadScanColumns(formats::ChunkedReader& reader, const BoundChanges& changes, int chunk) {
  if (!changes.scan_columns().empty()) return reader.ReadChunk(chunk, changes.scan_columns());
  RecordBatch rows_only;
  rows_only.num_rows = reader.chunk_rows(chunk);
  return rows_only;
}

// The index of the reader's `_rescued_data` field, or -1.
int RescuedDataIndex(const formats::ChunkedReader& reader) {
  const Schema& schema = reader.schema();
  for (size_t i = 0; i < schema.size(); ++i) {
    if (formats::IsRescuedDataField(schema[i]) && schema[i].type.id == TypeId::kString) {
      return static_cast<int>(i);
    }
  }
  return -1;
}

// Gives the bad rows of `chunk` (`bad`, unit rows from `first_row`) their
// rows' `_rescued_data`, read only now that the chunk is known to have bad
// rows. A row its reader could not parse at all ({"_raw": ..., "_error":
// ...}) has no key or operation; its reason then says why it broke.
Status AttachRescuedData(formats::ChunkedReader& reader, int chunk, int rescued_index, int64_t first_row,
                         std::span<BadRow> bad) {
  FLOE_ASSIGN_OR_RETURN(RecordBatch rescued, reader.ReadChunk(chunk, {rescued_index}));
  if (rescued.columns.size() != 1) return Status::OK();
  const Column& column = rescued.columns[0];
  for (BadRow& row : bad) {
    const int64_t local = row.row - first_row;
    if (local < 0 || local >= column.length || column.IsNull(local)) continue;
    row.rescued_data = std::string(column.StringAt(local));
    if (auto broken = formats::BrokenRecordError(*row.rescued_data)) {
      row.reason = "broken record: " + *broken + " (" + row.reason + ")";
    }
  }
  return Status::OK();
}

// One chunk as pass 1 needs it: the convention's scan columns and, when the
// row stage checks rows, the row images with the columns it reads.
struct ScanChunk {
  RecordBatch scanned;
  std::optional<RecordBatch> image;
};

Result<ScanChunk> ReadScanChunk(formats::ChunkedReader& reader, const BoundChanges& changes, int chunk,
                                const RowCheckScan& checks) {
  ScanChunk out;
  if (checks.transform == nullptr || !checks.transform->checks_rows()) {
    FLOE_ASSIGN_OR_RETURN(out.scanned, ReadScanColumns(reader, changes, chunk));
    return out;
  }
  const std::vector<int>& scan_columns = changes.scan_columns();
  const Schema& unit_schema = reader.schema();
  if (!checks.rows_are_image) {
    // The image is built from whole rows (Debezium's after struct).
    FLOE_ASSIGN_OR_RETURN(RecordBatch full, reader.ReadChunk(chunk, {}));
    out.scanned.num_rows = full.num_rows;
    for (int index : scan_columns) {
      out.scanned.schema.push_back(full.schema[static_cast<size_t>(index)]);
      out.scanned.columns.push_back(full.columns[static_cast<size_t>(index)]);
    }
    FLOE_ASSIGN_OR_RETURN(out.image, changes.Image(std::move(full)));
    return out;
  }
  // Rows that are their image: one read of the change columns and the checked ones.
  const std::vector<int>& check_columns = checks.transform->check_columns();
  std::vector<int> read = scan_columns;
  read.insert(read.end(), check_columns.begin(), check_columns.end());
  std::sort(read.begin(), read.end());
  read.erase(std::unique(read.begin(), read.end()), read.end());
  RecordBatch chunk_columns;
  if (read.empty()) {
    chunk_columns.num_rows = reader.chunk_rows(chunk);
  } else {
    FLOE_ASSIGN_OR_RETURN(chunk_columns, reader.ReadChunk(chunk, read));
  }
  auto position = [&](int index) {
    return static_cast<size_t>(std::lower_bound(read.begin(), read.end(), index) - read.begin());
  };
  out.scanned.num_rows = chunk_columns.num_rows;
  for (int index : scan_columns) {
    out.scanned.schema.push_back(unit_schema[static_cast<size_t>(index)]);
    Column& column = chunk_columns.columns[position(index)];
    // A column both sides read is copied; the others move.
    const bool checked = std::binary_search(check_columns.begin(), check_columns.end(), index);
    out.scanned.columns.push_back(checked ? column : std::move(column));
  }
  RecordBatch image;
  image.schema = unit_schema;
  image.num_rows = chunk_columns.num_rows;
  image.columns.reserve(unit_schema.size());
  for (const Field& field : unit_schema) image.columns.emplace_back(field.type);
  for (int index : check_columns) {
    image.columns[static_cast<size_t>(index)] = std::move(chunk_columns.columns[position(index)]);
  }
  out.image = std::move(image);
  return out;
}

// The row images of `rows` (chunk rows, ascending) of chunk `chunk`.
Result<RecordBatch> ReadImages(formats::ChunkedReader& reader, const BoundChanges& changes, int chunk,
                               const std::vector<int64_t>& rows) {
  FLOE_ASSIGN_OR_RETURN(RecordBatch full, reader.ReadChunk(chunk, {}));
  FLOE_ASSIGN_OR_RETURN(RecordBatch taken, TakeBatchRows(full, rows));
  return changes.Image(std::move(taken));
}

}  // namespace

Result<FileScan> ScanUnitChanges(formats::ChunkedReader& reader, const BoundChanges& changes, bool merging,
                                 int32_t unit_index, size_t max_bad_rows, const RowCheckScan& checks) {
  if (unit_index < 0 || unit_index >= kMaxChangeFiles) {
    return Status::InvalidArgument("unit number " + std::to_string(unit_index) +
                                   " of a batch is out of range");
  }
  FileScan scan;
  // A bad row past the allowance makes the whole unit fail with the reason.
  auto add_bad_row = [&](BadRow bad) -> Status {
    if (scan.bad_rows.size() >= max_bad_rows) {
      const std::string first = "row " + std::to_string(bad.row) + ": " + bad.reason;
      if (max_bad_rows == 0) return Status::InvalidArgument(first);
      return Status::InvalidArgument(
          "more than " + std::to_string(max_bad_rows) + " bad rows; the first: row " +
          std::to_string(scan.bad_rows.front().row) + ": " + scan.bad_rows.front().reason);
    }
    scan.bad_rows.push_back(std::move(bad));
    return Status::OK();
  };
  if (merging) {
    FLOE_RETURN_IF_ERROR(CheckOrderingSpec(changes.ordering()));
    // Sized once for every row being a new key (no rehash cascade); the row
    // counts come from untrusted metadata, so the reservation is capped and
    // growth handles the rest.
    constexpr int64_t kMaxReservedRows = int64_t{1} << 20;
    int64_t rows_expected = 0;
    for (int chunk = 0; chunk < reader.num_chunks(); ++chunk) {
      rows_expected += std::clamp<int64_t>(reader.chunk_rows(chunk), 0, kMaxReservedRows);
      rows_expected = std::min(rows_expected, kMaxReservedRows);
    }
    scan.winners.Reserve(static_cast<size_t>(rows_expected));
  }
  std::optional<KeyEncoder> encoder;
  const int rescued_index = RescuedDataIndex(reader);
  const bool checking = checks.transform != nullptr && checks.transform->checks_rows();
  std::vector<RecordBatch> quarantined_images;
  if (checking) scan.expectations.assign(checks.transform->expectation_count(), ExpectationTally{});
  for (int chunk = 0; chunk < reader.num_chunks(); ++chunk) {
    const size_t bad_before = scan.bad_rows.size();
    FLOE_ASSIGN_OR_RETURN(ScanChunk read, ReadScanChunk(reader, changes, chunk, checks));
    const int64_t chunk_rows = read.scanned.num_rows;
    FLOE_ASSIGN_OR_RETURN(ChunkChanges chunk_changes, changes.Extract(std::move(read.scanned), scan.rows));
    for (BadRow& bad : chunk_changes.bad_rows) FLOE_RETURN_IF_ERROR(add_bad_row(std::move(bad)));
    // The row stage: outcomes of the chunk's change rows.
    std::vector<RowOutcome> outcomes;
    if (checking) {
      std::vector<int64_t> candidates;
      candidates.reserve(static_cast<size_t>(chunk_rows));
      for (int64_t row = 0; row < chunk_rows; ++row) {
        const OperationAction action = chunk_changes.actions[static_cast<size_t>(row)];
        if (action == OperationAction::kInsert || action == OperationAction::kUpdate)
          candidates.push_back(row);
      }
      expr::EvalContext context = checks.context;
      context.first_source_row = scan.rows;
      FLOE_ASSIGN_OR_RETURN(RowChecks checked, checks.transform->Check(std::move(*read.image), &candidates,
                                                                       context, checks.list_every_failure));
      for (size_t e = 0; e < checked.tallies.size(); ++e) {
        scan.expectations[e].checked += checked.tallies[e].checked;
        scan.expectations[e].failed += checked.tallies[e].failed;
      }
      scan.filtered += checked.filtered;
      scan.dropped += checked.dropped;
      std::vector<int64_t> quarantined;
      for (FailedRow& failed : checked.failed_rows) {
        const int64_t chunk_row = failed.row;
        failed.row += scan.rows;
        if (checked.outcomes[static_cast<size_t>(chunk_row)] == RowOutcome::kQuarantined) {
          quarantined.push_back(chunk_row);
          if (!scan.quarantine) scan.quarantine.emplace();
          scan.quarantine->rows.push_back(failed);
          if (!checks.list_every_failure) continue;
        }
        scan.failed_rows.push_back(std::move(failed));
      }
      if (!quarantined.empty()) {
        FLOE_ASSIGN_OR_RETURN(RecordBatch images, ReadImages(reader, changes, chunk, quarantined));
        quarantined_images.push_back(std::move(images));
      }
      outcomes = std::move(checked.outcomes);
    }
    auto outcome_of = [&](int64_t row) {
      return outcomes.empty() ? RowOutcome::kKeep : outcomes[static_cast<size_t>(row)];
    };
    if (!merging) {
      scan.ignored +=
          std::count(chunk_changes.actions.begin(), chunk_changes.actions.end(), OperationAction::kIgnore);
      if (!outcomes.empty()) {
        for (int64_t row = 0; row < chunk_rows; ++row) {
          if (outcomes[static_cast<size_t>(row)] != RowOutcome::kKeep)
            scan.excluded_rows.push_back(scan.rows + row);
        }
      }
    } else {
      if (!encoder) {
        std::vector<DataType> key_types;
        for (const Column& key : chunk_changes.keys) key_types.push_back(key.type);
        FLOE_ASSIGN_OR_RETURN(encoder, KeyEncoder::Make(key_types, chunk_changes.key_names));
      }
      std::vector<const Column*> key_columns;
      for (const Column& key : chunk_changes.keys) key_columns.push_back(&key);
      std::vector<const Column*> order_columns;
      for (size_t i = 0; i < chunk_changes.orders.size(); ++i) {
        order_columns.push_back(chunk_changes.order_present[i] ? &chunk_changes.orders[i] : nullptr);
      }
      PrefetchedUpserts upserts(scan.winners);
      for (int64_t row = 0; row < chunk_rows; ++row) {
        const OperationAction action = chunk_changes.actions[static_cast<size_t>(row)];
        if (action == OperationAction::kIgnore) {
          ++scan.ignored;
          continue;
        }
        if (action == OperationAction::kUnknown) continue;  // a bad row, listed above
        const RowOutcome outcome = outcome_of(row);
        // A change failing a drop, quarantine or fail expectation is no change.
        if (outcome == RowOutcome::kDropped || outcome == RowOutcome::kQuarantined ||
            outcome == RowOutcome::kFailed) {
          continue;
        }
        const int64_t unit_row = scan.rows + row;
        auto key = encoder->KeyAt(key_columns, row);
        if (!key.ok()) {
          FLOE_RETURN_IF_ERROR(add_bad_row({unit_row, key.status().message()}));
          continue;
        }
        auto order = OrderingValueAt(changes.ordering(), order_columns, row);
        if (!order.ok()) {
          FLOE_RETURN_IF_ERROR(add_bad_row({unit_row, order.status().message()}));
          continue;
        }
        // A filtered change deletes its key: the table holds the rows the filter keeps.
        const bool is_delete = action == OperationAction::kDelete || outcome == RowOutcome::kFiltered;
        upserts.Add(Change{*key, *order, unit_index, unit_row, is_delete});
      }
      scan.superseded += upserts.Finish();
    }
    if (rescued_index >= 0 && scan.bad_rows.size() > bad_before) {
      FLOE_RETURN_IF_ERROR(AttachRescuedData(reader, chunk, rescued_index, scan.rows,
                                             std::span<BadRow>(scan.bad_rows).subspan(bad_before)));
    }
    scan.chunk_rows.push_back(chunk_rows);
    scan.rows += chunk_rows;
  }
  if (!quarantined_images.empty()) {
    FLOE_ASSIGN_OR_RETURN(scan.quarantine->images, ConcatBatches(quarantined_images));
  }
  // Key and ordering problems were found after the operation ones of their chunk.
  std::stable_sort(scan.bad_rows.begin(), scan.bad_rows.end(),
                   [](const BadRow& a, const BadRow& b) { return a.row < b.row; });
  return scan;
}

int64_t BatchChanges::Merge(FileScan& scan) {
  if (winners_.empty()) {
    // The first unit's map becomes the batch's: no copy.
    std::swap(winners_, scan.winners);
    scan.winners.Clear();
    return 0;
  }
  winners_.Reserve(winners_.size() + scan.winners.size());
  // The unit's changes come in its slot order, a random order in this map.
  PrefetchedUpserts upserts(winners_);
  scan.winners.ForEach([&](const Change& change) { upserts.Add(change); });
  const int64_t superseded = upserts.Finish();
  scan.winners.Clear();
  return superseded;
}

size_t BatchChanges::MemoryBytesAfterMerging(const FileScan& scan) const {
  return winners_.MemoryBytesWith(scan.winners.size(), scan.winners.hashed());
}

}  // namespace floe::ingest
