// Operation codes: how the values of an operation column map to what a change
// does ([merge] insert_values / update_values / delete_values /
// ignore_values), shared by every convention that reads such a column.
//
// Contract: codes are integers or strings. An integer operation column
// (int8..int64, uint8..uint64) is classified by the integer codes, a string
// column by the string codes, compared exactly (case-sensitive, no
// trimming: DMS writes "I", Debezium "c", applications "INSERT"). A column
// of any other type, or one whose kind of code the config does not give
// (a string column and only integer codes), cannot be an operation column:
// CheckOperationColumn says so and what to configure. A null or unknown code
// is reported per row (ClassifyOperations: kUnknown plus a BadRow). Immutable
// after construction: Classify is thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "ingest/changes/change_convention.h"
#include "ingest/config/config.h"

namespace floe::ingest {

class OperationMap {
 public:
  explicit OperationMap(const MergeConfig& merge);
  OperationAction Classify(int64_t code) const;
  OperationAction Classify(std::string_view code) const;
  bool has_integer_codes() const { return !integers_.empty(); }
  bool has_string_codes() const { return !strings_.empty(); }
  // "insert 0, 2; update 4; delete 1; ignore 3" (strings quoted) for messages.
  std::string Describe() const;

 private:
  std::unordered_map<int64_t, OperationAction> integers_;
  std::unordered_map<std::string, OperationAction> strings_;
  std::string description_;
};

// The top-level index of column `name` in `schema` (exact match first, then
// case-insensitive), or -1.
int FindColumn(const floe::Schema& schema, const std::string& name);

// Checks that field `index` of `schema` can be an operation column classified by `operations`.
Status CheckOperationColumn(const floe::Schema& schema, int index, const OperationMap& operations);

// The action of every row of the operation column `column` (named `name` in
// messages). A null or unknown code makes the row's action kUnknown and adds
// a BadRow naming the column, the unit row (`first_row` + row) and the code
// to `bad_rows`.
std::vector<OperationAction> ClassifyOperations(const Column& column, const std::string& name,
                                                int64_t first_row, const OperationMap& operations,
                                                std::vector<BadRow>* bad_rows);

}  // namespace floe::ingest
