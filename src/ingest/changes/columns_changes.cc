#include "ingest/changes/columns_changes.h"

#include "ingest/changes/operation_codes.h"
#include "ingest/merge/order_value.h"

namespace floe::ingest {

namespace {

// Rows are the image; pass 1 reads the key, ordering and operation columns.
class BoundColumns final : public BoundChanges {
 public:
  BoundColumns(const Schema& unit_schema, const MergeConfig& merge, std::vector<int> scan, size_t key_count,
               int operation_slot)
      : image_(unit_schema),
        merge_(merge),
        operations_(merge_),
        scan_(std::move(scan)),
        key_count_(key_count),
        operation_slot_(operation_slot) {
    for (int index : scan_) names_.push_back(unit_schema[static_cast<size_t>(index)].name);
  }

  const std::vector<int>& scan_columns() const override { return scan_; }
  const Schema& image_schema() const override { return image_; }
  Result<RecordBatch> Image(RecordBatch chunk) const override { return chunk; }

  Result<ChunkChanges> Extract(RecordBatch scanned, int64_t first_row) const override {
    ChunkChanges changes;
    changes.rows = scanned.num_rows;
    if (operation_slot_ >= 0) {
      const size_t slot = static_cast<size_t>(operation_slot_);
      FLOE_ASSIGN_OR_RETURN(changes.actions,
                            ClassifyOperations(scanned.columns[slot], names_[slot], first_row, operations_));
    } else {
      changes.actions.assign(static_cast<size_t>(scanned.num_rows), OperationAction::kInsert);
    }
    if (key_count_ == 0) return changes;  // append
    for (size_t k = 0; k < key_count_; ++k) {
      changes.keys.push_back(std::move(scanned.columns[k]));
      changes.key_names.push_back(names_[k]);
    }
    changes.order = std::move(scanned.columns[key_count_]);
    changes.order_name = names_[key_count_];
    return changes;
  }

 private:
  Schema image_;
  MergeConfig merge_;
  OperationMap operations_;  // refers to merge_
  std::vector<int> scan_;
  std::vector<std::string> names_;  // of scan_
  size_t key_count_;
  int operation_slot_;  // in scan_, or -1
};

// The operation column's index in `schema`: -1 when none is configured, or
// when it is missing and `required` is false.
Result<int> LocateOperationColumn(const Schema& schema, const MergeConfig& merge, bool required) {
  if (merge.operation_column.empty()) return -1;
  const int index = FindColumn(schema, merge.operation_column);
  if (index < 0) {
    if (required) return Status::InvalidArgument("missing operation column " + merge.operation_column);
    return -1;
  }
  FLOE_RETURN_IF_ERROR(CheckOperationColumn(schema, index));
  return index;
}

}  // namespace

Result<std::unique_ptr<BoundChanges>> ColumnsChanges::Bind(const Schema& unit_schema) const {
  std::vector<int> scan;
  for (const std::string& key : merge_.keys) {
    const int index = FindColumn(unit_schema, key);
    if (index < 0) return Status::InvalidArgument("missing key column " + key);
    scan.push_back(index);
  }
  const int order = FindColumn(unit_schema, merge_.order_column);
  if (order < 0) return Status::InvalidArgument("missing ordering column " + merge_.order_column);
  const Field& order_field = unit_schema[static_cast<size_t>(order)];
  FLOE_RETURN_IF_ERROR(CheckOrderColumn(Column(order_field.type), merge_.order_kind, order_field.name));
  scan.push_back(order);
  FLOE_ASSIGN_OR_RETURN(int operation, LocateOperationColumn(unit_schema, merge_, /*required=*/true));
  int operation_slot = -1;
  if (operation >= 0) {
    operation_slot = static_cast<int>(scan.size());
    scan.push_back(operation);
  }
  const size_t key_count = merge_.keys.size();
  return std::unique_ptr<BoundChanges>(
      new BoundColumns(unit_schema, merge_, std::move(scan), key_count, operation_slot));
}

Result<std::unique_ptr<BoundChanges>> AppendChanges::Bind(const Schema& unit_schema) const {
  FLOE_ASSIGN_OR_RETURN(int operation, LocateOperationColumn(unit_schema, merge_, /*required=*/false));
  std::vector<int> scan;
  if (operation >= 0) scan.push_back(operation);
  const int operation_slot = operation >= 0 ? 0 : -1;
  return std::unique_ptr<BoundChanges>(
      new BoundColumns(unit_schema, merge_, std::move(scan), 0, operation_slot));
}

}  // namespace floe::ingest
