// [[aggregates]]: incremental aggregates kept from a target table's changes
// (ingest/aggregate/aggregate_table.h maintains them).
//
// Contract: ParseAggregateGroup / ParseAggregateMeasure read one entry of
// `group_by` / `measures` as the config spells it and return InvalidArgument
// saying what is wrong with the text; column names are checked later, when
// the aggregate is bound to its table's columns (aggregate_spec.h), because
// a table's columns are known only then.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"

namespace floe::ingest {

// A group_by entry: a column; window(column, 'N unit'), a tumbling window;
// or hop(column, 'size', 'slide'), windows of `size` starting every `slide`
// (a row is in each window that holds it). Windows give the columns
// window_start and window_end.
struct AggregateGroup {
  std::string column;
  int64_t window_ms = 0;  // 0: the column itself
  int64_t slide_ms = 0;   // hop(): how often a window starts; 0: tumbling (= window_ms)
  bool operator==(const AggregateGroup&) const = default;
};
// The most windows one row may fall in (hop size ÷ slide): each is a group
// the row's change updates.
inline constexpr int64_t kMaxWindowsPerRow = 100;

enum class AggregateFunction { kCountRows, kCount, kSum, kAvg, kMin, kMax };

// A measures entry: count(*), count(col), sum(col), avg(col), min(col) or
// max(col), optionally `AS name` (default: count, count_<col>, sum_<col>, ...).
struct AggregateMeasure {
  AggregateFunction function = AggregateFunction::kCountRows;
  std::string column;  // "" for count(*)
  std::string name;    // the output column
  bool operator==(const AggregateMeasure&) const = default;
};

struct AggregateConfig {
  std::string name;   // the output table <[target] namespace>.<name>
  std::string table;  // the source table (as the pipeline's source names it)
  std::vector<AggregateGroup> group_by;
  std::vector<AggregateMeasure> measures;
  std::string filter;  // a predicate (docs/expressions.md); "" counts every row
  bool operator==(const AggregateConfig&) const = default;
};

// The aggregate's definition as one canonical line (groups with their window
// lengths in ms, measures with their output names, the filter), which its
// table keeps (table property floe.aggregate-definition) so that a config
// changed under an existing table is noticed even where the columns stay.
std::string AggregateDefinitionText(const AggregateConfig& config);

Result<AggregateGroup> ParseAggregateGroup(const std::string& text);
Result<AggregateMeasure> ParseAggregateMeasure(const std::string& text);
const char* AggregateFunctionName(AggregateFunction function);  // "count", "sum", ...

}  // namespace floe::ingest
