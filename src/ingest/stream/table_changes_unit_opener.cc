#include "ingest/stream/table_changes_unit_opener.h"

#include <charconv>

#include "iceberg/scan/changelog_scan.h"
#include "iceberg/spec/snapshot_ancestry.h"

namespace floe::ingest {

namespace {

// The change rows of a unit, one chunk per batch of the scan.
class ChangeRowsReader final : public formats::ChunkedReader {
 public:
  ChangeRowsReader(Schema schema, std::vector<RecordBatch> chunks)
      : schema_(std::move(schema)), chunks_(std::move(chunks)) {}
  const Schema& schema() const override { return schema_; }
  int num_chunks() const override { return static_cast<int>(chunks_.size()); }
  int64_t chunk_rows(int chunk) const override { return chunks_[static_cast<size_t>(chunk)].num_rows; }
  int64_t chunk_bytes(int) const override { return 0; }
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override {
    if (chunk < 0 || static_cast<size_t>(chunk) >= chunks_.size()) {
      return Status::InvalidArgument("no chunk " + std::to_string(chunk));
    }
    return formats::SelectChunkColumns(chunks_[static_cast<size_t>(chunk)], columns);
  }

 private:
  Schema schema_;
  std::vector<RecordBatch> chunks_;
};

Result<int64_t> SequenceOf(const std::string& text, const std::string& uri) {
  int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return Status::InvalidArgument(uri + ": position \"" + text + "\" is not a sequence number");
  }
  return value;
}

}  // namespace

Result<std::unique_ptr<formats::ChunkedReader>> TableChangesUnitOpener::Open(const SourceUnit& unit,
                                                                             const Schema& table_columns) {
  (void)table_columns;
  auto reader = Read(unit);
  if (reader.ok()) return reader;
  // Never the unit's fault to be set aside: its changes would be lost.
  return Status(reader.status().kind(), unit.uri + ": " + reader.status().message(), /*retryable=*/true);
}

Result<std::unique_ptr<formats::ChunkedReader>> TableChangesUnitOpener::Read(const SourceUnit& unit) {
  const std::string& qualified = unit.range.stream;
  FLOE_ASSIGN_OR_RETURN(const int64_t first, SequenceOf(unit.range.first, unit.uri));
  FLOE_ASSIGN_OR_RETURN(const int64_t last, SequenceOf(unit.range.last, unit.uri));
  FLOE_ASSIGN_OR_RETURN(FeedTables::Loaded loaded, source_->Load(qualified));
  const iceberg::Snapshot* to = nullptr;
  const iceberg::Snapshot* oldest = nullptr;
  for (const iceberg::Snapshot* snapshot : iceberg::CurrentAncestors(loaded.metadata)) {
    if (snapshot->sequence_number == last) to = snapshot;
    if (snapshot->sequence_number == first) {
      oldest = snapshot;
      break;
    }
  }
  if (to == nullptr || oldest == nullptr) {
    return Status::InvalidArgument("source table " + qualified +
                                   ": the history of its current snapshot no longer holds the commits with "
                                   "sequence numbers " +
                                   unit.range.first + " to " + unit.range.last +
                                   " (expired or rolled back before floe read their changes)");
  }
  iceberg::ChangelogOptions range;
  range.from_snapshot_id = oldest->parent_snapshot_id;
  range.to_snapshot_id = to->snapshot_id;
  if (auto keys = key_columns_.find(unit.table); keys != key_columns_.end()) range.key_columns = keys->second;
  auto scan = iceberg::ChangelogScan::Make(std::move(loaded.metadata), loaded.io, std::move(range));
  if (!scan.ok()) return scan.status().WithContext("the changes of source table " + qualified);
  FLOE_ASSIGN_OR_RETURN(std::vector<iceberg::ChangelogCommit> commits, (*scan)->PlanCommits());
  Schema schema = (*scan)->output_schema();
  schema.push_back(Field{kFeedSequenceColumn, Int64(), false, std::nullopt});
  std::vector<RecordBatch> chunks;
  for (const iceberg::ChangelogCommit& commit : commits) {
    FLOE_ASSIGN_OR_RETURN(std::unique_ptr<iceberg::ChangeReader> reader, (*scan)->Open(commit));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(std::optional<RecordBatch> batch, reader->Next());
      if (!batch) break;
      Column sequence(Int64());
      sequence.values.reserve(static_cast<size_t>(batch->num_rows) * sizeof(int64_t));
      for (int64_t row = 0; row < batch->num_rows; ++row)
        sequence.AppendValue<int64_t>(commit.sequence_number);
      batch->schema = schema;
      batch->columns.push_back(std::move(sequence));
      chunks.push_back(std::move(*batch));
    }
  }
  if (chunks.empty()) return std::unique_ptr<formats::ChunkedReader>(new ChangeRowsReader({}, {}));
  return std::unique_ptr<formats::ChunkedReader>(new ChangeRowsReader(std::move(schema), std::move(chunks)));
}

}  // namespace floe::ingest
