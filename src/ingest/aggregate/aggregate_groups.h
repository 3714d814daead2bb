// BoundAggregate: an [[aggregates]] entry bound to its source table's
// columns, and the per-group arithmetic of incremental aggregation with
// retractions.
//
// Contract:
// - Bind checks every column the aggregate names against the source's
//   columns and types (errors name the aggregate, the column and what is
//   wrong) and fixes the aggregate table's columns: the groups (a window()
//   or hop() group gives window_start and window_end, of its column's type;
//   a row is in every hop window holding its time), then the
//   measures (count: long; sum: long over integers, double over floats,
//   decimal(38, s) over decimal(p, s); avg: double; min/max: the column's
//   type), then floe's hidden state: _floe_rows (the group's row count), and
//   per sum and avg measure _floe_<name>_count (its non-null inputs), per avg
//   _floe_<name>_sum. A group is the tuple of its group values; null is a
//   value of its own.
// - Accumulate adds the rows of a batch (source columns first, in the bound
//   order; more columns may follow) that pass the filter into per-group
//   deltas, each row with its sign: +1 adds, -1 retracts. Null inputs are
//   ignored by sum, avg, min, max and count(col), as in SQL.
// - Apply combines a group's stored state with its delta: kRemove when no
//   row is left, kRecompute when a retracted value may have been the
//   group's min or max (retracted <= min, >= max), else kKeep with the new
//   state. A recomputed group is rebuilt by accumulating the source table's
//   current rows of that group.
// - Lateness (config watermark_ms): Accumulate judges each row's windows of
//   the one window()/hop() group against a watermark given by the caller: a
//   window is closed when its end <= the watermark. A row (a change image)
//   with a closed window counts as late once; under late_changes = "drop"
//   its closed windows are skipped (a hop() row's open ones still take it),
//   else it is applied. Accumulate also reports the largest time (in ms,
//   floored) of the rows with sign +1 it reads, so the caller can advance
//   the watermark. Rows the filter drops and null times take no part.
// Immutable after Bind; Accumulate may run on several threads with
// separate outputs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "expr/expression.h"
#include "ingest/config/aggregate_config.h"

namespace floe::ingest {

// One group value or measure value: null, an integer (also bool, date,
// time, timestamp), a float, a decimal's unscaled value, a string.
using AggregateValue = std::variant<std::monostate, int64_t, double, __int128, std::string>;
using GroupKey = std::vector<AggregateValue>;

struct MeasureState {
  int64_t count = 0;         // non-null inputs (count(*): rows)
  AggregateValue sum;        // sum, avg
  AggregateValue extreme;    // min, max: of the values added
  AggregateValue retracted;  // deltas of min, max: the most extreme value retracted
};

struct GroupState {
  int64_t rows = 0;
  std::vector<MeasureState> measures;  // one per measure, in config order
};

using GroupStates = std::map<GroupKey, GroupState>;

class BoundAggregate {
 public:
  static Result<BoundAggregate> Bind(const AggregateConfig& config, const Schema& source);

  const AggregateConfig& config() const { return config_; }
  // The aggregate table's columns (no field ids).
  const Schema& output_schema() const { return output_; }
  // The source columns the aggregate reads (groups, measures, filter), in
  // the source's order; a scan may read only these (Accumulate then takes
  // batches of a schema bound to the same names).
  const std::vector<std::string>& source_columns() const { return source_columns_; }

  // Accumulate's watermark handling (only for an aggregate with a watermark).
  struct Lateness {
    std::optional<int64_t> watermark_ms;  // in: windows ending at or before it are closed; nullopt: none
    bool drop = false;                    // in: skip a row's closed windows (else apply them)
    int64_t late = 0;                     // out, added to: rows with a closed window
    std::optional<int64_t> max_event_ms;  // out, raised: the largest window time of rows with sign +1
  };

  // `signs`: one per row of `batch` (+1 or -1, 0 skips the row); nullptr:
  // every row +1. `only`: when set, rows of other groups are skipped.
  // `lateness`: nullptr, or for an aggregate without a watermark: every
  // window is open.
  Status Accumulate(const RecordBatch& batch, const std::vector<int8_t>* signs, GroupStates* deltas,
                    const std::set<GroupKey>* only = nullptr, Lateness* lateness = nullptr) const;

  enum class Outcome { kRemove, kKeep, kRecompute };
  // `stored`: the group's state in the aggregate table (nullptr: a new group).
  Outcome Apply(const GroupState* stored, const GroupState& delta, GroupState* out) const;

  // Row `row` of a batch of the aggregate table (output_schema's columns first).
  std::pair<GroupKey, GroupState> ReadRow(const RecordBatch& batch, int64_t row) const;
  // Appends the group as one row to `columns` (one per output_schema field).
  void AppendRow(const GroupKey& key, const GroupState& state, std::vector<Column>* columns) const;

 private:
  enum class Kind { kInt, kFloat, kDecimal, kString };
  struct Group {
    int source = 0;            // column index in the source
    int64_t window_ticks = 0;  // 0: the value itself
    int64_t slide_ticks = 0;   // hop(): a window starts every slide_ticks; 0: tumbling
    Kind kind = Kind::kInt;
    int64_t ticks_per_ms = 1;  // windows: of the column's unit
  };
  struct Measure {
    AggregateFunction function = AggregateFunction::kCountRows;
    int source = -1;  // -1: count(*)
    Kind kind = Kind::kInt;
    int visible = 0;  // output column indexes; -1: none
    int hidden_count = -1;
    int hidden_sum = -1;
  };

  GroupState EmptyState() const;
  // Adds row `row` of `batch` with `sign` to the delta of the group `key`
  // (unless `only` is set and lacks it).
  void AddRow(const RecordBatch& batch, int32_t row, int64_t sign, const GroupKey& key, GroupStates* deltas,
              const std::set<GroupKey>* only) const;

  AggregateConfig config_;
  std::vector<Group> groups_;
  std::vector<Measure> measures_;
  std::vector<int> group_columns_;  // output index of each group (window_start for windows)
  int watermark_group_ = -1;        // the group the watermark closes windows of; -1: no watermark
  int rows_column_ = 0;
  Schema output_;
  std::vector<std::string> source_columns_;
  std::shared_ptr<const expr::Expression> filter_;  // null: every row
};

}  // namespace floe::ingest
