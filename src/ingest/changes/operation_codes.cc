#include "ingest/changes/operation_codes.h"

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

Status CheckOperationColumn(const floe::Schema& schema, int index) {
  const Field& operation = schema[static_cast<size_t>(index)];
  if (!IsIntegerType(operation.type)) {
    return Status::InvalidArgument("operation column " + operation.name + " has type " +
                                   operation.type.ToString() + "; expected an integer type");
  }
  return Status::OK();
}

Result<std::vector<OperationAction>> ClassifyOperations(const Column& column, const std::string& name,
                                                        int64_t first_row, const OperationMap& operations) {
  std::vector<OperationAction> actions(static_cast<size_t>(column.length));
  for (int64_t row = 0; row < column.length; ++row) {
    if (column.IsNull(row)) {
      return Status::InvalidArgument("column " + name + ": row " + std::to_string(first_row + row) +
                                     ": null operation code");
    }
    const int64_t code = IntegerAt(column, row);
    const OperationAction action = operations.Classify(code);
    if (action == OperationAction::kUnknown) {
      return Status::InvalidArgument("column " + name + ": row " + std::to_string(first_row + row) +
                                     ": unknown operation code " + std::to_string(code) + " (" +
                                     operations.Describe() + ")");
    }
    actions[static_cast<size_t>(row)] = action;
  }
  return actions;
}

}  // namespace floe::ingest
