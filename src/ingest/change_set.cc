#include "ingest/change_set.h"

#include <algorithm>

#include "ingest/schema/name_match.h"

namespace floe::ingest {

namespace {

bool Contains(const std::vector<int64_t>& values, int64_t code) {
  return std::find(values.begin(), values.end(), code) != values.end();
}

std::string JoinCodes(const std::vector<int64_t>& values) {
  std::string out;
  for (int64_t v : values) {
    if (!out.empty()) out += ", ";
    out += std::to_string(v);
  }
  return out.empty() ? "none" : out;
}

std::string RowText(int64_t row) {
  return "row " + std::to_string(row);
}

}  // namespace

OperationAction OperationMap::Classify(int64_t code) const {
  if (Contains(merge_.insert_values, code)) return OperationAction::kInsert;
  if (Contains(merge_.update_values, code)) return OperationAction::kUpdate;
  if (Contains(merge_.delete_values, code)) return OperationAction::kDelete;
  if (Contains(merge_.ignore_values, code)) return OperationAction::kIgnore;
  return OperationAction::kUnknown;
}

std::string OperationMap::Describe() const {
  return "insert " + JoinCodes(merge_.insert_values) + "; update " + JoinCodes(merge_.update_values) +
         "; delete " + JoinCodes(merge_.delete_values) + "; ignore " + JoinCodes(merge_.ignore_values);
}

int FindColumn(const floe::Schema& schema, const std::string& name) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].name == name) return static_cast<int>(i);
  }
  for (size_t i = 0; i < schema.size(); ++i) {
    if (internal::EqualsIgnoreCase(schema[i].name, name)) return static_cast<int>(i);
  }
  return -1;
}

bool IsIntegerType(const DataType& type) {
  switch (type.id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kUInt64: return true;
    default: return false;
  }
}

int64_t IntegerAt(const Column& column, int64_t row) {
  switch (column.type.id) {
    case TypeId::kInt8: return column.Value<int8_t>(row);
    case TypeId::kInt16: return column.Value<int16_t>(row);
    case TypeId::kInt32: return column.Value<int32_t>(row);
    case TypeId::kUInt8: return column.Value<uint8_t>(row);
    case TypeId::kUInt16: return column.Value<uint16_t>(row);
    case TypeId::kUInt32: return column.Value<uint32_t>(row);
    case TypeId::kUInt64: return static_cast<int64_t>(column.Value<uint64_t>(row));
    default: return column.Value<int64_t>(row);
  }
}

Result<ChangeColumns> LocateChangeColumns(const floe::Schema& file_schema, const MergeConfig& merge) {
  ChangeColumns columns;
  const bool merging = merge.mode == WriteMode::kMerge;
  if (merging) {
    for (const std::string& key : merge.keys) {
      const int index = FindColumn(file_schema, key);
      if (index < 0) return Status::InvalidArgument("missing key column " + key);
      columns.keys.push_back(index);
    }
    columns.order = FindColumn(file_schema, merge.order_column);
    if (columns.order < 0) return Status::InvalidArgument("missing ordering column " + merge.order_column);
    const Field& order = file_schema[static_cast<size_t>(columns.order)];
    FLOE_RETURN_IF_ERROR(CheckOrderColumn(Column(order.type), merge.order_kind, order.name));
  }
  if (!merge.operation_column.empty()) {
    columns.operation = FindColumn(file_schema, merge.operation_column);
    if (columns.operation < 0 && merging) {
      return Status::InvalidArgument("missing operation column " + merge.operation_column);
    }
    if (columns.operation >= 0) {
      const Field& operation = file_schema[static_cast<size_t>(columns.operation)];
      if (!IsIntegerType(operation.type)) {
        return Status::InvalidArgument("operation column " + operation.name + " has type " +
                                       operation.type.ToString() + "; expected an integer type");
      }
    }
  }
  return columns;
}

namespace {

// The operation of `row`, or an error naming the column and row.
Result<OperationAction> ActionAt(const Column& column, const std::string& name, int64_t row, int64_t file_row,
                                 const OperationMap& operations) {
  if (column.IsNull(row)) {
    return Status::InvalidArgument("column " + name + ": " + RowText(file_row) + ": null operation code");
  }
  const int64_t code = IntegerAt(column, row);
  const OperationAction action = operations.Classify(code);
  if (action == OperationAction::kUnknown) {
    return Status::InvalidArgument("column " + name + ": " + RowText(file_row) + ": unknown operation code " +
                                   std::to_string(code) + " (" + operations.Describe() + ")");
  }
  return action;
}

Result<FileScan> ScanAppendFile(parquet::ParquetFileReader& reader, const ChangeColumns& columns,
                                const MergeConfig& merge) {
  FileScan scan;
  if (columns.operation < 0) {
    for (const auto& row_group : reader.metadata().row_groups) {
      scan.row_group_rows.push_back(row_group.num_rows);
      scan.rows += row_group.num_rows;
    }
    return scan;
  }
  const OperationMap operations(merge);
  const std::string& name = reader.schema()[static_cast<size_t>(columns.operation)].name;
  for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
    FLOE_ASSIGN_OR_RETURN(RecordBatch batch, reader.ReadRowGroup(rg, {columns.operation}));
    for (int64_t row = 0; row < batch.num_rows; ++row) {
      FLOE_ASSIGN_OR_RETURN(OperationAction action,
                            ActionAt(batch.columns[0], name, row, scan.rows + row, operations));
      if (action == OperationAction::kIgnore) ++scan.ignored;
    }
    scan.row_group_rows.push_back(batch.num_rows);
    scan.rows += batch.num_rows;
  }
  return scan;
}

}  // namespace

Result<FileScan> ScanFile(parquet::ParquetFileReader& reader, const ChangeColumns& columns,
                          int32_t file_index, const MergeConfig& merge) {
  if (merge.mode == WriteMode::kAppend) return ScanAppendFile(reader, columns, merge);

  const floe::Schema& schema = reader.schema();
  std::vector<DataType> key_types;
  std::vector<std::string> key_names;
  std::vector<int> read_columns;
  for (int index : columns.keys) {
    key_types.push_back(schema[static_cast<size_t>(index)].type);
    key_names.push_back(schema[static_cast<size_t>(index)].name);
    read_columns.push_back(index);
  }
  FLOE_ASSIGN_OR_RETURN(KeyEncoder encoder, KeyEncoder::Make(key_types, key_names));
  const size_t order_slot = read_columns.size();
  read_columns.push_back(columns.order);
  const std::string& order_name = schema[static_cast<size_t>(columns.order)].name;
  const bool has_operation = columns.operation >= 0;
  if (has_operation) read_columns.push_back(columns.operation);
  const std::string operation_name =
      has_operation ? schema[static_cast<size_t>(columns.operation)].name : std::string();
  const OperationMap operations(merge);

  if (file_index < 0 || file_index >= kMaxChangeFiles) {
    return Status::InvalidArgument("file number " + std::to_string(file_index) +
                                   " of a batch is out of range");
  }
  FileScan scan;
  ChangeMap& newest = scan.winners;
  // Sized once for every row being a new key (no rehash cascade); the row
  // counts come from untrusted metadata, so the reservation is capped and
  // growth handles the rest.
  constexpr int64_t kMaxReservedRows = int64_t{1} << 20;
  int64_t rows_expected = 0;
  for (const auto& row_group : reader.metadata().row_groups) {
    rows_expected += std::clamp<int64_t>(row_group.num_rows, 0, kMaxReservedRows);
    rows_expected = std::min(rows_expected, kMaxReservedRows);
  }
  newest.Reserve(static_cast<size_t>(rows_expected));
  for (int rg = 0; rg < reader.num_row_groups(); ++rg) {
    FLOE_ASSIGN_OR_RETURN(RecordBatch batch, reader.ReadRowGroup(rg, read_columns));
    std::vector<const Column*> key_columns;
    for (size_t k = 0; k < order_slot; ++k) key_columns.push_back(&batch.columns[k]);
    const Column& order_column = batch.columns[order_slot];
    for (int64_t row = 0; row < batch.num_rows; ++row) {
      const int64_t file_row = scan.rows + row;
      bool is_delete = false;
      if (has_operation) {
        FLOE_ASSIGN_OR_RETURN(OperationAction action, ActionAt(batch.columns[order_slot + 1], operation_name,
                                                               row, file_row, operations));
        if (action == OperationAction::kIgnore) {
          ++scan.ignored;
          continue;
        }
        is_delete = action == OperationAction::kDelete;
      }
      auto key = encoder.KeyAt(key_columns, row);
      if (!key.ok()) return key.status().WithContext(RowText(file_row));
      auto order = OrderValueAt(order_column, row, merge.order_kind, order_name);
      if (!order.ok()) return order.status().WithContext(RowText(file_row));
      if (newest.Upsert(Change{*key, *order, file_index, file_row, is_delete})) ++scan.superseded;
    }
    scan.row_group_rows.push_back(batch.num_rows);
    scan.rows += batch.num_rows;
  }
  return scan;
}

int64_t BatchChanges::Merge(FileScan& scan) {
  int64_t superseded = 0;
  if (winners_.empty()) {
    // The first file's map becomes the batch's: no copy.
    std::swap(winners_, scan.winners);
    scan.winners.Clear();
    return 0;
  }
  winners_.Reserve(winners_.size() + scan.winners.size());
  scan.winners.ForEach([&](const Change& change) {
    if (winners_.Upsert(change)) ++superseded;
  });
  scan.winners.Clear();
  return superseded;
}

size_t BatchChanges::MemoryBytesAfterMerging(const FileScan& scan) const {
  return winners_.MemoryBytesWith(scan.winners.size(), scan.winners.hashed());
}

}  // namespace floe::ingest
