#include "ingest/changes/table_changes.h"

#include <string_view>

#include "iceberg/scan/changelog_scan.h"

namespace floe::ingest {

static_assert(std::string_view(kFeedChangeTypeColumn) == iceberg::kChangeTypeColumn);
static_assert(std::string_view(kFeedOrdinalColumn) == iceberg::kChangeOrdinalColumn);

namespace {

// The columns of the bound unit convention, with an image that leaves out
// the feed's change type and commit identity.
class BoundTableChanges final : public BoundChanges {
 public:
  BoundTableChanges(const Schema& unit_schema, std::unique_ptr<BoundChanges> columns)
      : columns_(std::move(columns)), unit_width_(unit_schema.size()) {
    for (size_t i = 0; i < unit_schema.size(); ++i) {
      const std::string& name = unit_schema[i].name;
      if (name == iceberg::kChangeTypeColumn || name == iceberg::kCommitSnapshotIdColumn ||
          name == iceberg::kCommitTimestampColumn) {
        continue;
      }
      kept_.push_back(i);
      image_.push_back(unit_schema[i]);
    }
  }
  const std::vector<int>& scan_columns() const override { return columns_->scan_columns(); }
  const OrderingSpec& ordering() const override { return columns_->ordering(); }
  Result<ChunkChanges> Extract(RecordBatch scanned, int64_t first_row) const override {
    return columns_->Extract(std::move(scanned), first_row);
  }
  const Schema& image_schema() const override { return image_; }
  Result<RecordBatch> Image(RecordBatch chunk) const override {
    if (chunk.columns.size() != unit_width_) {
      return Status::InvalidArgument("a change feed chunk has " + std::to_string(chunk.columns.size()) +
                                     " columns, its unit " + std::to_string(unit_width_));
    }
    RecordBatch image;
    image.num_rows = chunk.num_rows;
    image.schema = image_;
    for (size_t index : kept_) image.columns.push_back(std::move(chunk.columns[index]));
    return image;
  }

 private:
  std::unique_ptr<BoundChanges> columns_;
  const size_t unit_width_;
  std::vector<size_t> kept_;
  Schema image_;
};

}  // namespace

Result<std::unique_ptr<BoundChanges>> TableChanges::Bind(const Schema& unit_schema) const {
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<BoundChanges> columns, columns_.Bind(unit_schema));
  return std::unique_ptr<BoundChanges>(new BoundTableChanges(unit_schema, std::move(columns)));
}

}  // namespace floe::ingest
