#include "ingest/aggregate/aggregate_groups.h"

#include <algorithm>
#include <limits>
#include <memory>
#include <utility>

#include "columnar/integer_cells.h"

namespace floe::ingest {
namespace {

// The value of row `row` of `column` (of a type Kind() accepts).
AggregateValue ValueAt(const Column& column, int64_t row) {
  if (column.IsNull(row)) return std::monostate{};
  switch (column.type.id) {
    case TypeId::kBool: return static_cast<int64_t>(column.Value<uint8_t>(row));
    case TypeId::kFloat32: return static_cast<double>(column.Value<float>(row));
    case TypeId::kFloat64: return column.Value<double>(row);
    case TypeId::kDecimal: return column.Value<__int128>(row);
    case TypeId::kString:
    case TypeId::kBinary: return std::string(column.StringAt(row));
    default:  // integers, date, time, timestamp (KindOf admits no other type)
      return IntegerCellAt(column, row);
  }
}

void AppendValue(const AggregateValue& value, Column* column) {
  if (std::holds_alternative<std::monostate>(value)) {
    column->AppendNull();
    return;
  }
  switch (column->type.id) {
    case TypeId::kBool:
    case TypeId::kUInt8: column->AppendValue(static_cast<uint8_t>(std::get<int64_t>(value))); return;
    case TypeId::kInt8: column->AppendValue(static_cast<int8_t>(std::get<int64_t>(value))); return;
    case TypeId::kInt16: column->AppendValue(static_cast<int16_t>(std::get<int64_t>(value))); return;
    case TypeId::kUInt16: column->AppendValue(static_cast<uint16_t>(std::get<int64_t>(value))); return;
    case TypeId::kInt32:
    case TypeId::kDate: column->AppendValue(static_cast<int32_t>(std::get<int64_t>(value))); return;
    case TypeId::kUInt32: column->AppendValue(static_cast<uint32_t>(std::get<int64_t>(value))); return;
    case TypeId::kInt64:
    case TypeId::kTime:
    case TypeId::kTimestamp: column->AppendValue(std::get<int64_t>(value)); return;
    case TypeId::kFloat32: column->AppendValue(static_cast<float>(std::get<double>(value))); return;
    case TypeId::kFloat64: column->AppendValue(std::get<double>(value)); return;
    case TypeId::kDecimal: column->AppendValue(std::get<__int128>(value)); return;
    case TypeId::kString:
    case TypeId::kBinary: column->AppendBytes(std::get<std::string>(value)); return;
    default: column->AppendNull(); return;
  }
}

bool IsNull(const AggregateValue& value) {
  return std::holds_alternative<std::monostate>(value);
}

// a + sign * b; a null `a` counts as zero.
AggregateValue AddSigned(const AggregateValue& a, const AggregateValue& b, int64_t sign) {
  if (IsNull(b)) return a;
  if (const auto* i = std::get_if<int64_t>(&b)) {
    const int64_t base = IsNull(a) ? 0 : std::get<int64_t>(a);
    return static_cast<int64_t>(static_cast<uint64_t>(base) + static_cast<uint64_t>(sign * *i));
  }
  if (const auto* d = std::get_if<double>(&b)) return (IsNull(a) ? 0.0 : std::get<double>(a)) + sign * *d;
  if (const auto* x = std::get_if<__int128>(&b)) {
    return (IsNull(a) ? __int128{0} : std::get<__int128>(a)) + static_cast<__int128>(sign) * *x;
  }
  return a;
}

// Whether `candidate` is strictly more extreme than `current` for min (or max).
bool MoreExtreme(const AggregateValue& candidate, const AggregateValue& current, bool min) {
  if (IsNull(candidate)) return false;
  if (IsNull(current)) return true;
  return min ? candidate < current : current < candidate;
}

Result<DataType> SumType(const DataType& input) {
  switch (input.id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32: return Int64();
    case TypeId::kFloat32:
    case TypeId::kFloat64: return Float64();
    case TypeId::kDecimal: return Decimal(38, input.scale);
    default: return Status::InvalidArgument("is " + input.ToString() + ", not a number");
  }
}

// How a value of `type` is held, or an error for types aggregates do not take.
Result<int> KindOf(const DataType& type) {
  switch (type.id) {
    case TypeId::kBool:
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kDate:
    case TypeId::kTime:
    case TypeId::kTimestamp: return 0;
    case TypeId::kFloat32:
    case TypeId::kFloat64: return 1;
    case TypeId::kDecimal: return 2;
    case TypeId::kString:
    case TypeId::kBinary: return 3;
    default: return Status::InvalidArgument("is " + type.ToString() + ", which aggregates do not take");
  }
}

}  // namespace

Result<BoundAggregate> BoundAggregate::Bind(const AggregateConfig& config, const Schema& source) {
  BoundAggregate bound;
  bound.config_ = config;
  const std::string label = "aggregate " + config.name + " over " + config.table;
  auto find = [&](const std::string& column, const std::string& where) -> Result<int> {
    for (size_t i = 0; i < source.size(); ++i) {
      if (source[i].name == column) return static_cast<int>(i);
    }
    std::string known;
    for (const Field& field : source) known += (known.empty() ? "" : ", ") + field.name;
    return Status::InvalidArgument(label + ": " + where + ": unknown column \"" + column +
                                   "\" (the table has " + known + ")");
  };
  for (const AggregateGroup& group : config.group_by) {
    FLOE_ASSIGN_OR_RETURN(int index, find(group.column, "group_by"));
    const DataType& type = source[static_cast<size_t>(index)].type;
    auto kind = KindOf(type);
    if (!kind.ok()) {
      return Status::InvalidArgument(label + ": group_by: column \"" + group.column + "\" " +
                                     kind.status().message());
    }
    Group bound_group{index, 0, 0, static_cast<Kind>(*kind)};
    bound.group_columns_.push_back(static_cast<int>(bound.output_.size()));
    if (group.window_ms > 0) {
      if (type.id != TypeId::kTimestamp) {
        return Status::InvalidArgument(label + ": group_by: window(" + group.column +
                                       ", ...) needs a timestamp column, \"" + group.column + "\" is " +
                                       type.ToString());
      }
      const int64_t ticks_per_ms = std::max<int64_t>(TicksPerSecond(type.unit) / 1000, 1);
      if (__builtin_mul_overflow(group.window_ms, ticks_per_ms, &bound_group.window_ticks) ||
          __builtin_mul_overflow(group.slide_ms, ticks_per_ms, &bound_group.slide_ticks)) {
        return Status::InvalidArgument(label + ": group_by: the window over \"" + group.column +
                                       "\" is longer than its " + type.ToString() + " values can count");
      }
      bound_group.ticks_per_ms = ticks_per_ms;
      if (config.watermark_ms) {
        if (bound.watermark_group_ >= 0) {
          return Status::InvalidArgument(label + ": watermark needs exactly one window() or hop() group");
        }
        bound.watermark_group_ = static_cast<int>(bound.groups_.size());
      }
      bound.output_.push_back(Field{"window_start", type, true, std::nullopt});
      bound.output_.push_back(Field{"window_end", type, true, std::nullopt});
    } else {
      bound.output_.push_back(Field{group.column, type, true, std::nullopt});
    }
    bound.groups_.push_back(bound_group);
  }
  if (config.watermark_ms && bound.watermark_group_ < 0) {
    return Status::InvalidArgument(label + ": watermark needs a window() or hop() group in group_by");
  }
  for (const AggregateMeasure& measure : config.measures) {
    Measure m;
    m.function = measure.function;
    const std::string what = std::string(AggregateFunctionName(measure.function)) + "(" +
                             (measure.column.empty() ? "*" : measure.column) + ")";
    DataType output_type = Int64();
    if (!measure.column.empty()) {
      FLOE_ASSIGN_OR_RETURN(m.source, find(measure.column, "measures"));
      const DataType& type = source[static_cast<size_t>(m.source)].type;
      auto kind = KindOf(type);
      if (!kind.ok()) {
        return Status::InvalidArgument(label + ": measures: " + what + ": column \"" + measure.column +
                                       "\" " + kind.status().message());
      }
      m.kind = static_cast<Kind>(*kind);
      if (measure.function == AggregateFunction::kSum || measure.function == AggregateFunction::kAvg) {
        auto sum_type = SumType(type);
        if (!sum_type.ok() || type.id == TypeId::kBool) {
          return Status::InvalidArgument(label + ": measures: " + what + ": column \"" + measure.column +
                                         "\" is " + type.ToString() + ", not a number");
        }
        output_type = measure.function == AggregateFunction::kSum ? *sum_type : Float64();
      } else if (measure.function == AggregateFunction::kMin || measure.function == AggregateFunction::kMax) {
        output_type = type;
      }
    }
    m.visible = static_cast<int>(bound.output_.size());
    bound.output_.push_back(Field{measure.name, output_type, true, std::nullopt});
    bound.measures_.push_back(m);
  }
  // Hidden state after every visible column.
  bound.rows_column_ = static_cast<int>(bound.output_.size());
  bound.output_.push_back(Field{"_floe_rows", Int64(), true, std::nullopt});
  for (size_t j = 0; j < bound.measures_.size(); ++j) {
    Measure& m = bound.measures_[j];
    const AggregateMeasure& measure = config.measures[j];
    if (m.function != AggregateFunction::kSum && m.function != AggregateFunction::kAvg) continue;
    m.hidden_count = static_cast<int>(bound.output_.size());
    bound.output_.push_back(Field{"_floe_" + measure.name + "_count", Int64(), true, std::nullopt});
    if (m.function == AggregateFunction::kAvg) {
      FLOE_ASSIGN_OR_RETURN(DataType sum_type, SumType(source[static_cast<size_t>(m.source)].type));
      m.hidden_sum = static_cast<int>(bound.output_.size());
      bound.output_.push_back(Field{"_floe_" + measure.name + "_sum", sum_type, true, std::nullopt});
    } else {
      m.hidden_sum = -1;
    }
  }
  if (!config.filter.empty()) {
    auto filter = expr::Expression::Bind(config.filter, source);
    if (!filter.ok()) return Status::InvalidArgument(label + ": filter: " + filter.status().message());
    if (filter->type().id != TypeId::kBool) {
      return Status::InvalidArgument(label + ": filter: \"" + config.filter + "\" is " +
                                     filter->type().ToString() + ", not a predicate");
    }
    bound.filter_ = std::make_shared<const expr::Expression>(std::move(filter).value());
  }
  std::set<int> read;
  for (const Group& group : bound.groups_) read.insert(group.source);
  for (const Measure& measure : bound.measures_) {
    if (measure.source >= 0) read.insert(measure.source);
  }
  if (bound.filter_)
    read.insert(bound.filter_->input_columns().begin(), bound.filter_->input_columns().end());
  for (int index : read) bound.source_columns_.push_back(source[static_cast<size_t>(index)].name);
  return bound;
}

GroupState BoundAggregate::EmptyState() const {
  GroupState state;
  state.measures.resize(measures_.size());
  return state;
}

void BoundAggregate::AddRow(const RecordBatch& batch, int32_t row, int64_t sign, const GroupKey& key,
                            GroupStates* deltas, const std::set<GroupKey>* only) const {
  if (only && !only->contains(key)) return;
  auto [it, inserted] = deltas->try_emplace(key);
  GroupState& state = it->second;
  if (inserted) state = EmptyState();
  state.rows += sign;
  for (size_t j = 0; j < measures_.size(); ++j) {
    const Measure& m = measures_[j];
    MeasureState& ms = state.measures[j];
    if (m.source < 0) {
      ms.count += sign;
      continue;
    }
    AggregateValue value = ValueAt(batch.columns[static_cast<size_t>(m.source)], row);
    if (IsNull(value)) continue;
    ms.count += sign;
    switch (m.function) {
      case AggregateFunction::kSum:
      case AggregateFunction::kAvg: ms.sum = AddSigned(ms.sum, value, sign); break;
      case AggregateFunction::kMin:
      case AggregateFunction::kMax: {
        const bool min = m.function == AggregateFunction::kMin;
        AggregateValue& slot = sign > 0 ? ms.extreme : ms.retracted;
        if (MoreExtreme(value, slot, min)) slot = std::move(value);
        break;
      }
      default: break;
    }
  }
}

Status BoundAggregate::Accumulate(const RecordBatch& batch, const std::vector<int8_t>* signs,
                                  GroupStates* deltas, const std::set<GroupKey>* only,
                                  Lateness* lateness) const {
  std::vector<int32_t> selected;
  if (filter_) {
    FLOE_ASSIGN_OR_RETURN(selected, filter_->TrueRows(batch, expr::EvalContext{}));
  } else {
    selected.resize(static_cast<size_t>(batch.num_rows));
    for (int32_t i = 0; i < static_cast<int32_t>(batch.num_rows); ++i) selected[static_cast<size_t>(i)] = i;
  }
  // The watermark in the window column's ticks (saturated): a window whose
  // end is at or before it is closed.
  const Group* timed =
      lateness && watermark_group_ >= 0 ? &groups_[static_cast<size_t>(watermark_group_)] : nullptr;
  std::optional<int64_t> closed_until;
  if (timed && lateness->watermark_ms) {
    int64_t ticks = 0;
    if (__builtin_mul_overflow(*lateness->watermark_ms, timed->ticks_per_ms, &ticks)) {
      ticks = *lateness->watermark_ms > 0 ? std::numeric_limits<int64_t>::max()
                                          : std::numeric_limits<int64_t>::min();
    }
    closed_until = ticks;
  }
  GroupKey key(groups_.size());
  // Per group, the values a row groups by: one, or each hop window's start.
  std::vector<std::vector<AggregateValue>> choices(groups_.size());
  std::vector<size_t> pick(groups_.size());
  for (int32_t row : selected) {
    const int64_t sign = signs ? (*signs)[static_cast<size_t>(row)] : 1;
    if (sign == 0) continue;
    bool several = false;
    for (size_t g = 0; g < groups_.size(); ++g) {
      AggregateValue value = ValueAt(batch.columns[static_cast<size_t>(groups_[g].source)], row);
      choices[g].clear();
      if (groups_[g].window_ticks > 0 && !IsNull(value)) {
        const int64_t ts = std::get<int64_t>(value);
        const int64_t size = groups_[g].window_ticks;
        const int64_t slide = groups_[g].slide_ticks > 0 ? groups_[g].slide_ticks : size;
        // The windows [start, start + size) holding ts, newest first; a
        // time so early that its window would start before the earliest
        // time is in the null window.
        int64_t into = ts % slide;  // ts's offset into its newest window, in [0, slide)
        if (into < 0) into += slide;
        int64_t start = 0;
        if (__builtin_sub_overflow(ts, into, &start)) {
          choices[g].push_back(AggregateValue{});
        } else {
          // (start <= ts: the unsigned difference is exact where the signed one could overflow)
          while (static_cast<uint64_t>(ts) - static_cast<uint64_t>(start) < static_cast<uint64_t>(size)) {
            choices[g].push_back(start);
            if (__builtin_sub_overflow(start, slide, &start)) break;
          }
        }
        if (timed == &groups_[g]) {
          if (sign > 0) {
            // Floored to ms: window ends are whole ms, so comparing them with a floored watermark is exact.
            int64_t ms = ts / timed->ticks_per_ms;
            if (ms * timed->ticks_per_ms > ts) --ms;
            if (!lateness->max_event_ms || ms > *lateness->max_event_ms) lateness->max_event_ms = ms;
          }
          if (closed_until) {
            // A window ending past the largest time (the sum overflows) never closes.
            auto closed = [&](const AggregateValue& start) {
              int64_t end = 0;
              return !IsNull(start) && !__builtin_add_overflow(std::get<int64_t>(start), size, &end) &&
                     end <= *closed_until;
            };
            auto& windows = choices[g];
            if (std::any_of(windows.begin(), windows.end(), closed)) {
              ++lateness->late;
              if (lateness->drop)
                windows.erase(std::remove_if(windows.begin(), windows.end(), closed), windows.end());
            }
          }
        }
        several |= choices[g].size() > 1;
      } else {
        choices[g].push_back(std::move(value));
      }
    }
    if (std::any_of(choices.begin(), choices.end(), [](const auto& values) { return values.empty(); }))
      continue;  // every window of the row closed: dropped
    if (!several) {
      for (size_t g = 0; g < groups_.size(); ++g) key[g] = std::move(choices[g].front());
      AddRow(batch, row, sign, key, deltas, only);
      continue;
    }
    // Every combination of the groups' values (an odometer over `pick`).
    std::fill(pick.begin(), pick.end(), 0);
    while (true) {
      for (size_t g = 0; g < groups_.size(); ++g) key[g] = choices[g][pick[g]];
      AddRow(batch, row, sign, key, deltas, only);
      size_t g = 0;
      while (g < groups_.size() && ++pick[g] == choices[g].size()) pick[g++] = 0;
      if (g == groups_.size()) break;
    }
  }
  return Status::OK();
}

BoundAggregate::Outcome BoundAggregate::Apply(const GroupState* stored, const GroupState& delta,
                                              GroupState* out) const {
  *out = stored ? *stored : EmptyState();
  out->rows += delta.rows;
  if (out->rows == 0) return Outcome::kRemove;
  if (out->rows < 0) return Outcome::kRecompute;  // the stored state disagrees with the changes
  for (size_t j = 0; j < measures_.size(); ++j) {
    const Measure& m = measures_[j];
    MeasureState& ms = out->measures[j];
    const MeasureState& d = delta.measures[j];
    if (m.function == AggregateFunction::kMin || m.function == AggregateFunction::kMax) {
      const bool min = m.function == AggregateFunction::kMin;
      AggregateValue best = ms.extreme;
      if (MoreExtreme(d.extreme, best, min)) best = d.extreme;
      // A value retracted at or beyond the best one left may have been the extreme.
      if (!IsNull(d.retracted) && !MoreExtreme(best, d.retracted, min)) return Outcome::kRecompute;
      ms.extreme = std::move(best);
      continue;
    }
    ms.count += d.count;
    if (ms.count < 0) return Outcome::kRecompute;  // the stored state disagrees with the changes
    if (m.function == AggregateFunction::kSum || m.function == AggregateFunction::kAvg)
      ms.sum = ms.count == 0 ? AggregateValue{} : AddSigned(ms.sum, d.sum, 1);
  }
  return Outcome::kKeep;
}

std::pair<GroupKey, GroupState> BoundAggregate::ReadRow(const RecordBatch& batch, int64_t row) const {
  GroupKey key;
  for (int column : group_columns_) key.push_back(ValueAt(batch.columns[static_cast<size_t>(column)], row));
  GroupState state = EmptyState();
  const AggregateValue rows = ValueAt(batch.columns[static_cast<size_t>(rows_column_)], row);
  state.rows = IsNull(rows) ? 0 : std::get<int64_t>(rows);
  for (size_t j = 0; j < measures_.size(); ++j) {
    const Measure& m = measures_[j];
    MeasureState& ms = state.measures[j];
    const AggregateValue visible = ValueAt(batch.columns[static_cast<size_t>(m.visible)], row);
    auto count_at = [&](int column) {
      const AggregateValue count = ValueAt(batch.columns[static_cast<size_t>(column)], row);
      return IsNull(count) ? int64_t{0} : std::get<int64_t>(count);
    };
    switch (m.function) {
      case AggregateFunction::kCountRows: ms.count = state.rows; break;
      case AggregateFunction::kCount: ms.count = IsNull(visible) ? 0 : std::get<int64_t>(visible); break;
      case AggregateFunction::kSum:
        ms.count = count_at(m.hidden_count);
        ms.sum = visible;
        break;
      case AggregateFunction::kAvg:
        ms.count = count_at(m.hidden_count);
        ms.sum = ValueAt(batch.columns[static_cast<size_t>(m.hidden_sum)], row);
        break;
      case AggregateFunction::kMin:
      case AggregateFunction::kMax:
        ms.extreme = visible;
        // Non-null inputs are not stored for min/max: a group with a value has at least one.
        ms.count = IsNull(visible) ? 0 : 1;
        break;
    }
  }
  return {std::move(key), std::move(state)};
}

void BoundAggregate::AppendRow(const GroupKey& key, const GroupState& state,
                               std::vector<Column>* columns) const {
  std::vector<Column>& out = *columns;
  for (size_t g = 0; g < groups_.size(); ++g) {
    const size_t column = static_cast<size_t>(group_columns_[g]);
    AppendValue(key[g], &out[column]);
    if (groups_[g].window_ticks > 0) {
      AggregateValue end = key[g];
      int64_t end_ticks = 0;
      // A window ending past the largest time has no end value (null).
      if (!IsNull(end)) {
        end = __builtin_add_overflow(std::get<int64_t>(end), groups_[g].window_ticks, &end_ticks)
                  ? AggregateValue{}
                  : AggregateValue{end_ticks};
      }
      AppendValue(end, &out[column + 1]);
    }
  }
  AppendValue(AggregateValue{state.rows}, &out[static_cast<size_t>(rows_column_)]);
  for (size_t j = 0; j < measures_.size(); ++j) {
    const Measure& m = measures_[j];
    const MeasureState& ms = state.measures[j];
    Column& visible = out[static_cast<size_t>(m.visible)];
    switch (m.function) {
      case AggregateFunction::kCountRows: AppendValue(AggregateValue{state.rows}, &visible); break;
      case AggregateFunction::kCount: AppendValue(AggregateValue{ms.count}, &visible); break;
      case AggregateFunction::kSum:
        AppendValue(ms.count > 0 ? ms.sum : AggregateValue{}, &visible);
        AppendValue(AggregateValue{ms.count}, &out[static_cast<size_t>(m.hidden_count)]);
        break;
      case AggregateFunction::kAvg: {
        AggregateValue average;
        if (ms.count > 0 && !IsNull(ms.sum)) {
          double total = 0;
          if (const auto* i = std::get_if<int64_t>(&ms.sum)) total = static_cast<double>(*i);
          if (const auto* d = std::get_if<double>(&ms.sum)) total = *d;
          if (const auto* x = std::get_if<__int128>(&ms.sum)) {
            const DataType& sum_type = output_[static_cast<size_t>(m.hidden_sum)].type;
            double scale = 1;
            for (int32_t s = 0; s < sum_type.scale; ++s) scale *= 10;
            total = static_cast<double>(*x) / scale;
          }
          average = total / static_cast<double>(ms.count);
        }
        AppendValue(average, &visible);
        AppendValue(AggregateValue{ms.count}, &out[static_cast<size_t>(m.hidden_count)]);
        AppendValue(ms.count > 0 ? ms.sum : AggregateValue{}, &out[static_cast<size_t>(m.hidden_sum)]);
        break;
      }
      case AggregateFunction::kMin:
      case AggregateFunction::kMax: AppendValue(ms.extreme, &visible); break;
    }
  }
}

}  // namespace floe::ingest
