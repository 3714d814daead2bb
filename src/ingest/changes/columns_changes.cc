#include "ingest/changes/columns_changes.h"

#include "ingest/changes/operation_codes.h"
#include "ingest/merge/order_value.h"

namespace floe::ingest {

namespace {

// Where the bound columns sit in scan_columns().
struct ScanLayout {
  std::vector<int> scan;    // unit column indexes
  size_t key_count = 0;     // scan[0, key_count) are the keys
  std::vector<int> orders;  // per ordering column: its slot in scan, or -1 when the unit lacks it
  int operation_slot = -1;  // in scan, or -1
};

// Rows are the image; pass 1 reads the key, ordering and operation columns.
class BoundColumns final : public BoundChanges {
 public:
  BoundColumns(const Schema& unit_schema, const MergeConfig& merge, ScanLayout layout)
      : image_(unit_schema),
        operations_(merge),
        ordering_(OrderingSpec::Of(merge)),
        layout_(std::move(layout)) {
    for (int index : layout_.scan) names_.push_back(unit_schema[static_cast<size_t>(index)].name);
  }

  const std::vector<int>& scan_columns() const override { return layout_.scan; }
  const OrderingSpec& ordering() const override { return ordering_; }
  const Schema& image_schema() const override { return image_; }
  Result<RecordBatch> Image(RecordBatch chunk) const override { return chunk; }

  Result<ChunkChanges> Extract(RecordBatch scanned, int64_t first_row) const override {
    ChunkChanges changes;
    changes.rows = scanned.num_rows;
    if (layout_.operation_slot >= 0) {
      const size_t slot = static_cast<size_t>(layout_.operation_slot);
      changes.actions =
          ClassifyOperations(scanned.columns[slot], names_[slot], first_row, operations_, &changes.bad_rows);
    } else {
      changes.actions.assign(static_cast<size_t>(scanned.num_rows), OperationAction::kInsert);
    }
    if (layout_.key_count == 0) return changes;  // append
    for (size_t k = 0; k < layout_.key_count; ++k) {
      changes.keys.push_back(std::move(scanned.columns[k]));
      changes.key_names.push_back(names_[k]);
    }
    for (int slot : layout_.orders) {
      changes.order_present.push_back(slot >= 0);
      changes.orders.push_back(slot >= 0 ? std::move(scanned.columns[static_cast<size_t>(slot)]) : Column());
    }
    if (ordering_.missing_is_oldest) RefuseUnorderedChanges(changes, first_row);
    return changes;
  }

 private:
  // Rows without an ordering value order before every change: right for a
  // full load's inserts, but an update or delete without one would silently
  // lose to every row. Those are bad rows.
  void RefuseUnorderedChanges(ChunkChanges& changes, int64_t first_row) const {
    std::vector<BadRow> refused;
    for (int64_t row = 0; row < changes.rows; ++row) {
      OperationAction& action = changes.actions[static_cast<size_t>(row)];
      if (action != OperationAction::kUpdate && action != OperationAction::kDelete) continue;
      for (size_t i = 0; i < changes.orders.size(); ++i) {
        const Column& column = changes.orders[i];
        const bool missing = !changes.order_present[i] || column.IsNull(row) ||
                             (column.type.id == TypeId::kString && column.StringAt(row).empty());
        if (!missing) continue;
        const std::string& name = ordering_.columns[i].name;
        const char* what = action == OperationAction::kUpdate ? "an update" : "a delete";
        // Only the DMS preset lets a row miss its ordering value (a full-load
        // row); a file without the column is a task that does not write it.
        refused.push_back({first_row + row,
                           changes.order_present[i]
                               ? "column " + name + ": " + what + " without an ordering value"
                               : std::string(what) + " in a file without the ordering column " + name +
                                     " (an AWS DMS task writes AR_H_CHANGE_SEQ only when its table mapping "
                                     "adds it; otherwise order by the task's TimestampColumnName column: "
                                     "[merge] order_by)"});
        action = OperationAction::kUnknown;
        break;
      }
    }
    if (refused.empty()) return;
    // Keep bad_rows in row order.
    std::vector<BadRow> merged;
    merged.reserve(changes.bad_rows.size() + refused.size());
    size_t a = 0, b = 0;
    while (a < changes.bad_rows.size() || b < refused.size()) {
      if (b == refused.size() || (a < changes.bad_rows.size() && changes.bad_rows[a].row <= refused[b].row)) {
        merged.push_back(std::move(changes.bad_rows[a++]));
      } else {
        merged.push_back(std::move(refused[b++]));
      }
    }
    changes.bad_rows = std::move(merged);
  }

  Schema image_;
  OperationMap operations_;
  OrderingSpec ordering_;
  ScanLayout layout_;
  std::vector<std::string> names_;  // of layout_.scan
};

// The operation column's index in `schema`, or -1 when none is configured,
// or when it is missing and `required` is false.
Result<int> LocateOperationColumn(const Schema& schema, const MergeConfig& merge,
                                  const OperationMap& operations, bool required) {
  if (merge.operation_column.empty()) return -1;
  const int index = FindColumn(schema, merge.operation_column);
  if (index < 0) {
    if (required) {
      return Status::InvalidArgument("missing operation column " + merge.operation_column +
                                     " (a file without it can hold upserts only: [merge] missing_operation = "
                                     "\"upsert\" says so)");
    }
    return -1;
  }
  FLOE_RETURN_IF_ERROR(CheckOperationColumn(schema, index, operations));
  return index;
}

}  // namespace

Result<std::unique_ptr<BoundChanges>> ColumnsChanges::Bind(const Schema& unit_schema) const {
  const OrderingSpec ordering = OrderingSpec::Of(merge_);
  FLOE_RETURN_IF_ERROR(CheckOrderingSpec(ordering));
  ScanLayout layout;
  for (const std::string& key : merge_.keys) {
    const int index = FindColumn(unit_schema, key);
    if (index < 0) return Status::InvalidArgument("missing key column " + key);
    layout.scan.push_back(index);
  }
  layout.key_count = merge_.keys.size();
  for (const OrderColumn& wanted : ordering.columns) {
    const int order = FindColumn(unit_schema, wanted.name);
    if (order < 0) {
      if (!ordering.missing_is_oldest)
        return Status::InvalidArgument("missing ordering column " + wanted.name);
      layout.orders.push_back(-1);
      continue;
    }
    const Field& order_field = unit_schema[static_cast<size_t>(order)];
    FLOE_RETURN_IF_ERROR(CheckOrderColumn(Column(order_field.type), wanted.kind, order_field.name));
    layout.orders.push_back(static_cast<int>(layout.scan.size()));
    layout.scan.push_back(order);
  }
  const OperationMap operations(merge_);
  FLOE_ASSIGN_OR_RETURN(int operation, LocateOperationColumn(unit_schema, merge_, operations,
                                                             /*required=*/merge_.missing_operation ==
                                                                 MissingOperation::kQuarantine));
  if (operation >= 0) {
    layout.operation_slot = static_cast<int>(layout.scan.size());
    layout.scan.push_back(operation);
  }
  return std::unique_ptr<BoundChanges>(new BoundColumns(unit_schema, merge_, std::move(layout)));
}

Result<std::unique_ptr<BoundChanges>> AppendChanges::Bind(const Schema& unit_schema) const {
  const OperationMap operations(merge_);
  FLOE_ASSIGN_OR_RETURN(int operation,
                        LocateOperationColumn(unit_schema, merge_, operations, /*required=*/false));
  ScanLayout layout;
  if (operation >= 0) {
    layout.scan.push_back(operation);
    layout.operation_slot = 0;
  }
  return std::unique_ptr<BoundChanges>(new BoundColumns(unit_schema, merge_, std::move(layout)));
}

}  // namespace floe::ingest
