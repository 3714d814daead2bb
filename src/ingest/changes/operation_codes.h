// Operation codes: how the values of an operation column map to what a change
// does ([merge] insert_values / update_values / delete_values /
// ignore_values), shared by every convention that reads such a column.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "ingest/changes/change_convention.h"
#include "ingest/config/config.h"

namespace floe::ingest {

class OperationMap {
 public:
  explicit OperationMap(const MergeConfig& merge) : merge_(merge) {}
  OperationAction Classify(int64_t code) const;
  // "insert 0, 2; update 4; delete 1; ignore 3" for messages.
  std::string Describe() const;

 private:
  const MergeConfig& merge_;
};

// The top-level index of column `name` in `schema` (exact match first, then
// case-insensitive), or -1.
int FindColumn(const floe::Schema& schema, const std::string& name);
bool IsIntegerType(const DataType& type);
// The integer at `row` of an integer column (IsIntegerType); the caller checks nulls.
int64_t IntegerAt(const Column& column, int64_t row);

// Checks that field `index` of `schema` can be an operation column.
Status CheckOperationColumn(const floe::Schema& schema, int index);

// The action of every row of the operation column `column` (named `name` in
// messages); a null or unknown code is InvalidArgument naming the column and
// the unit row (`first_row` + row).
Result<std::vector<OperationAction>> ClassifyOperations(const Column& column, const std::string& name,
                                                        int64_t first_row, const OperationMap& operations);

}  // namespace floe::ingest
