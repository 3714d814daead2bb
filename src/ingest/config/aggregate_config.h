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
#include <optional>
#include <string>
#include <string_view>
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

// late_changes: what becomes of a change to a window the watermark closed.
enum class LateChanges {
  kApply,  // applied all the same (and counted): windows never close
  kDrop,   // not applied to its closed windows (and counted)
};

struct AggregateConfig {
  std::string name;   // the output table <[target] namespace>.<name>
  std::string table;  // the source table (as the pipeline's source names it)
  std::vector<AggregateGroup> group_by;
  std::vector<AggregateMeasure> measures;
  std::string filter;  // a predicate (docs/expressions.md); "" counts every row
  // watermark: a window closes once the largest time of its group's column
  // seen among the applied changes, minus this, reaches its end (ms, >= 0).
  // Set only with exactly one window()/hop() group. Unset: windows never
  // close and nothing is counted.
  std::optional<int64_t> watermark_ms;
  LateChanges late_changes = LateChanges::kApply;  // kDrop only with watermark_ms
  bool operator==(const AggregateConfig&) const = default;
};

// The aggregate's definition as one canonical line (groups with their window
// lengths in ms, measures with their output names, the filter), which its
// table keeps (table property floe.aggregate-definition) so that a config
// changed under an existing table is noticed even where the columns stay.
// watermark and late_changes are not part of it: they decide which future
// changes are applied, not what the stored rows mean — every stored row is
// still its group's aggregate of the changes applied to it — so changing
// them keeps the table (the new rule applies from the next catch-up on).
std::string AggregateDefinitionText(const AggregateConfig& config);

// A window length or watermark as the config spells it: "5 minutes",
// "1 hour", "30 seconds", "2 days", "250 milliseconds" (singular or plural),
// or floe's durations ("5m", "10s"); in ms. nullopt: not a duration.
std::optional<int64_t> ParseAggregateDuration(std::string_view text);

Result<AggregateGroup> ParseAggregateGroup(const std::string& text);
Result<AggregateMeasure> ParseAggregateMeasure(const std::string& text);
const char* AggregateFunctionName(AggregateFunction function);  // "count", "sum", ...

}  // namespace floe::ingest
