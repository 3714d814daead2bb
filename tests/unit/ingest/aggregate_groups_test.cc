// BoundAggregate: binding errors name the aggregate and the column; deltas
// with retractions give the SQL answer over the rows left: sums and counts
// subtract, a retracted min/max asks for a recompute, a group without rows
// disappears, null group values are a group of their own and null inputs
// are ignored.
#include "ingest/aggregate/aggregate_groups.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <limits>
#include <map>

#include "column_builders.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;
using testing::MakeColumn;
using testing::MakeStrings;

constexpr int64_t kMinuteUs = 60'000'000;

Schema Orders() {
  return {Field{"region", String(), true, std::nullopt},
          Field{"ts", Timestamp(TimeUnit::kMicro, true), true, std::nullopt},
          Field{"amount", Int64(), true, std::nullopt}, Field{"status", String(), true, std::nullopt}};
}

struct Order {
  std::optional<std::string> region;
  int64_t ts_minutes;
  std::optional<int64_t> amount;
  std::string status = "open";
};

RecordBatch Batch(const std::vector<Order>& orders) {
  RecordBatch batch;
  batch.schema = Orders();
  std::vector<std::optional<std::string>> regions, statuses;
  std::vector<std::optional<int64_t>> ts, amounts;
  for (const Order& order : orders) {
    regions.push_back(order.region);
    ts.push_back(order.ts_minutes * kMinuteUs);
    amounts.push_back(order.amount);
    statuses.push_back(order.status);
  }
  batch.columns = {MakeStrings(String(), regions), MakeColumn<int64_t>(Timestamp(TimeUnit::kMicro, true), ts),
                   MakeColumn<int64_t>(Int64(), amounts), MakeStrings(String(), statuses)};
  batch.num_rows = static_cast<int64_t>(orders.size());
  return batch;
}

AggregateConfig Config() {
  AggregateConfig config;
  config.name = "by_region";
  config.table = "orders";
  for (const char* group : {"region", "window(ts, '5 minutes')"})
    config.group_by.push_back(*ParseAggregateGroup(group));
  for (const char* measure :
       {"count(*) AS orders", "sum(amount)", "avg(amount)", "min(amount)", "max(amount)", "count(amount)"})
    config.measures.push_back(*ParseAggregateMeasure(measure));
  config.filter = "status <> 'cancelled'";
  return config;
}

// The group's row as the aggregate table stores it (visible columns only).
std::vector<std::string> Row(const BoundAggregate& bound, const GroupKey& key, const GroupState& state,
                             size_t hidden_columns = 4) {
  std::vector<Column> columns;
  for (const Field& field : bound.output_schema()) columns.push_back(MakeEmptyColumn(field.type));
  bound.AppendRow(key, state, &columns);
  RecordBatch batch{bound.output_schema(), columns, 1};
  // Round trip through ReadRow: what the next catch-up reads back.
  auto [read_key, read_state] = bound.ReadRow(batch, 0);
  EXPECT_EQ(read_key, key);
  EXPECT_EQ(read_state.rows, state.rows);
  std::vector<std::string> cells;
  for (size_t i = 0; i + hidden_columns < columns.size(); ++i) {  // floe's hidden columns left out
    const Column& c = columns[i];
    if (c.IsNull(0)) {
      cells.push_back("null");
    } else if (c.type.id == TypeId::kString) {
      cells.emplace_back(c.StringAt(0));
    } else if (c.type.id == TypeId::kFloat64) {
      cells.push_back(std::to_string(c.Value<double>(0)));
    } else {
      cells.push_back(std::to_string(c.Value<int64_t>(0)));
    }
  }
  return cells;
}

GroupKey Key(std::optional<std::string> region, int64_t window_minutes) {
  GroupKey key;
  key.push_back(region ? AggregateValue{*region} : AggregateValue{});
  key.push_back(AggregateValue{window_minutes * kMinuteUs});
  return key;
}

TEST(AggregateGroupsTest, BindsColumnsAndLaysOutTheTable) {
  ASSERT_OK_AND_ASSIGN(BoundAggregate bound, BoundAggregate::Bind(Config(), Orders()));
  std::vector<std::string> names;
  for (const Field& field : bound.output_schema()) names.push_back(field.name);
  EXPECT_EQ(names, (std::vector<std::string>{"region", "window_start", "window_end", "orders", "sum_amount",
                                             "avg_amount", "min_amount", "max_amount", "count_amount",
                                             "_floe_rows", "_floe_sum_amount_count", "_floe_avg_amount_count",
                                             "_floe_avg_amount_sum"}));
}

TEST(AggregateGroupsTest, BindingErrorsNameTheAggregateAndColumn) {
  AggregateConfig config = Config();
  config.measures.push_back(*ParseAggregateMeasure("sum(price)"));
  EXPECT_THAT(
      BoundAggregate::Bind(config, Orders()).status().message(),
      HasSubstr("aggregate by_region over orders: measures: unknown column \"price\" (the table has region, "
                "ts, amount, status)"));
  config = Config();
  config.measures.push_back(*ParseAggregateMeasure("sum(status)"));
  EXPECT_THAT(BoundAggregate::Bind(config, Orders()).status().message(),
              HasSubstr("sum(status): column \"status\" is string, not a number"));
  config = Config();
  config.group_by.push_back(*ParseAggregateGroup("window(amount, '1 hour')"));
  EXPECT_THAT(BoundAggregate::Bind(config, Orders()).status().message(),
              HasSubstr("window(amount, ...) needs a timestamp column"));
  config = Config();
  config.group_by.push_back(*ParseAggregateGroup("customer"));
  EXPECT_THAT(BoundAggregate::Bind(config, Orders()).status().message(),
              HasSubstr("group_by: unknown column \"customer\""));
  config = Config();
  config.group_by[1] = *ParseAggregateGroup("window(ts, '90000000000 days')");
  EXPECT_THAT(BoundAggregate::Bind(config, Orders()).status().message(),
              HasSubstr("the window over \"ts\" is longer than its"));
  config = Config();
  config.filter = "amount + 1";
  EXPECT_THAT(BoundAggregate::Bind(config, Orders()).status().message(), HasSubstr("not a predicate"));
}

TEST(AggregateGroupsTest, InsertsRetractionsAndRecomputes) {
  ASSERT_OK_AND_ASSIGN(BoundAggregate bound, BoundAggregate::Bind(Config(), Orders()));
  // Commit 1: inserts; the cancelled order and the null region are counted apart.
  GroupStates first;
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 1, 10},
                                    {"eu", 3, 30},
                                    {"eu", 4, std::nullopt},
                                    {"eu", 2, 99, "cancelled"},
                                    {std::nullopt, 7, 5},
                                    {"us", 6, 20}}),
                             nullptr, &first));
  ASSERT_EQ(first.size(), 3u);
  GroupState eu;
  ASSERT_EQ(bound.Apply(nullptr, first.at(Key("eu", 0)), &eu), BoundAggregate::Outcome::kKeep);
  EXPECT_EQ(Row(bound, Key("eu", 0), eu),
            (std::vector<std::string>{"eu", std::to_string(0), std::to_string(5 * kMinuteUs), "3", "40",
                                      std::to_string(20.0), "10", "30", "2"}));
  GroupState none;
  ASSERT_EQ(bound.Apply(nullptr, first.at(Key(std::nullopt, 5)), &none), BoundAggregate::Outcome::kKeep);
  EXPECT_EQ(Row(bound, Key(std::nullopt, 5), none)[0], "null");

  // Commit 2: an update of 30 -> 25 (pre-image retracted, post-image added)
  // and the delete of the null amount: min and max stay (10 stays, 30 was the max: recompute).
  GroupStates second;
  const std::vector<int8_t> signs = {-1, 1, -1};
  ASSERT_OK(
      bound.Accumulate(Batch({{"eu", 3, 30}, {"eu", 3, 25}, {"eu", 4, std::nullopt}}), &signs, &second));
  GroupState next;
  EXPECT_EQ(bound.Apply(&eu, second.at(Key("eu", 0)), &next), BoundAggregate::Outcome::kRecompute);

  // Without touching the max (20 -> 15 in a group of 10, 20, 30) no recompute is needed.
  GroupStates third;
  const std::vector<int8_t> update = {-1, 1};
  GroupState eu3;
  GroupStates base;
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 1, 10}, {"eu", 2, 20}, {"eu", 3, 30}}), nullptr, &base));
  ASSERT_EQ(bound.Apply(nullptr, base.at(Key("eu", 0)), &eu3), BoundAggregate::Outcome::kKeep);
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 2, 20}, {"eu", 2, 15}}), &update, &third));
  ASSERT_EQ(bound.Apply(&eu3, third.at(Key("eu", 0)), &next), BoundAggregate::Outcome::kKeep);
  EXPECT_EQ(Row(bound, Key("eu", 0), next),
            (std::vector<std::string>{"eu", std::to_string(0), std::to_string(5 * kMinuteUs), "3", "55",
                                      std::to_string(55.0 / 3), "10", "30", "3"}));
  // Retracting the min asks for a recompute; a value added below it does not.
  GroupStates fourth;
  const std::vector<int8_t> minus = {-1};
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 1, 10}}), &minus, &fourth));
  EXPECT_EQ(bound.Apply(&eu3, fourth.at(Key("eu", 0)), &next), BoundAggregate::Outcome::kRecompute);
  GroupStates fifth;
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 1, 1}}), nullptr, &fifth));
  ASSERT_EQ(bound.Apply(&eu3, fifth.at(Key("eu", 0)), &next), BoundAggregate::Outcome::kKeep);
  EXPECT_EQ(Row(bound, Key("eu", 0), next)[6], "1");

  // A value added and retracted within one catch-up is not the group's min.
  GroupStates churn;
  const std::vector<int8_t> in_out = {1, -1};
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 1, 2}, {"eu", 1, 2}}), &in_out, &churn));
  EXPECT_EQ(bound.Apply(&eu3, churn.at(Key("eu", 0)), &next), BoundAggregate::Outcome::kRecompute);

  // Deleting every row of a group removes it.
  GroupStates gone;
  const std::vector<int8_t> deletes = {-1};
  ASSERT_OK(bound.Accumulate(Batch({{"us", 6, 20}}), &deletes, &gone));
  GroupState us;
  ASSERT_EQ(bound.Apply(nullptr, first.at(Key("us", 5)), &us), BoundAggregate::Outcome::kKeep);
  EXPECT_EQ(bound.Apply(&us, gone.at(Key("us", 5)), &next), BoundAggregate::Outcome::kRemove);
}

TEST(AggregateGroupsTest, AllNullInputsGiveNullSumAvgMinMax) {
  ASSERT_OK_AND_ASSIGN(BoundAggregate bound, BoundAggregate::Bind(Config(), Orders()));
  GroupStates states;
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 1, std::nullopt}, {"eu", 2, std::nullopt}}), nullptr, &states));
  GroupState eu;
  ASSERT_EQ(bound.Apply(nullptr, states.at(Key("eu", 0)), &eu), BoundAggregate::Outcome::kKeep);
  EXPECT_EQ(Row(bound, Key("eu", 0), eu),
            (std::vector<std::string>{"eu", std::to_string(0), std::to_string(5 * kMinuteUs), "2", "null",
                                      "null", "null", "null", "0"}));
}

TEST(AggregateGroupsTest, HopWindowsCountARowInEveryWindowHoldingIt) {
  AggregateConfig config;
  config.name = "by_region_hop";
  config.table = "orders";
  // 10-minute windows starting every 5 minutes: each time is in two of them.
  for (const char* group : {"region", "hop(ts, '10 minutes', '5 minutes')"})
    config.group_by.push_back(*ParseAggregateGroup(group));
  for (const char* measure : {"count(*) AS orders", "sum(amount)", "max(amount)"})
    config.measures.push_back(*ParseAggregateMeasure(measure));
  ASSERT_OK_AND_ASSIGN(BoundAggregate bound, BoundAggregate::Bind(config, Orders()));
  GroupStates states;
  // 7 min: windows [0, 10) and [5, 15); 12 min: [5, 15) and [10, 20); -3 min: [-10, 0) and [-5, 5).
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 7, 10}, {"eu", 12, 20}, {"eu", -3, 5}}), nullptr, &states));
  std::map<int64_t, std::pair<int64_t, int64_t>> rows_and_max;  // by window start (minutes)
  for (const auto& [key, delta] : states) {
    GroupState state;
    ASSERT_EQ(bound.Apply(nullptr, delta, &state), BoundAggregate::Outcome::kKeep);
    const std::vector<std::string> row = Row(bound, key, state, 2);
    const int64_t start = std::get<int64_t>(key[1]) / kMinuteUs;
    EXPECT_EQ(row[2], std::to_string((start + 10) * kMinuteUs)) << "window_end = start + size";
    rows_and_max[start] = {state.rows, std::stoll(row[5])};
  }
  EXPECT_EQ(rows_and_max, (std::map<int64_t, std::pair<int64_t, int64_t>>{
                              {-10, {1, 5}}, {-5, {1, 5}}, {0, {1, 10}}, {5, {2, 20}}, {10, {1, 20}}}));
  // Retracting the 12-minute row touches both its windows, and only them.
  GroupStates retracted;
  const std::vector<int8_t> minus = {-1};
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 12, 20}}), &minus, &retracted));
  ASSERT_EQ(retracted.size(), 2u);
  EXPECT_TRUE(retracted.contains(Key("eu", 5)));
  EXPECT_TRUE(retracted.contains(Key("eu", 10)));
  // A null time is one group of its own, as for window().
  GroupStates nulls;
  RecordBatch batch = Batch({{"eu", 0, 1}});
  batch.columns[1] = MakeColumn<int64_t>(Timestamp(TimeUnit::kMicro, true), {std::nullopt});
  ASSERT_OK(bound.Accumulate(batch, nullptr, &nulls));
  ASSERT_EQ(nulls.size(), 1u);
  EXPECT_TRUE(std::holds_alternative<std::monostate>(nulls.begin()->first[1]));
}

TEST(AggregateGroupsTest, TimesAtTheEndsOfTheRangeNeitherOverflowNorVanish) {
  AggregateConfig config;
  config.name = "edges";
  config.table = "orders";
  config.group_by.push_back(*ParseAggregateGroup("hop(ts, '10 minutes', '5 minutes')"));
  config.measures.push_back(*ParseAggregateMeasure("count(*)"));
  ASSERT_OK_AND_ASSIGN(BoundAggregate bound, BoundAggregate::Bind(config, Orders()));
  RecordBatch batch = Batch({{"eu", 0, 1}, {"eu", 0, 2}});
  const int64_t earliest = std::numeric_limits<int64_t>::min() + 1;
  const int64_t latest = std::numeric_limits<int64_t>::max();
  batch.columns[1] = MakeColumn<int64_t>(Timestamp(TimeUnit::kMicro, true), {earliest, latest});
  GroupStates states;
  ASSERT_OK(bound.Accumulate(batch, nullptr, &states));
  int64_t rows = 0;
  bool null_end = false;
  for (const auto& [key, delta] : states) {
    rows += delta.rows;
    std::vector<Column> columns;
    for (const Field& field : bound.output_schema()) columns.push_back(MakeEmptyColumn(field.type));
    GroupState state;
    ASSERT_EQ(bound.Apply(nullptr, delta, &state), BoundAggregate::Outcome::kKeep);
    bound.AppendRow(key, state, &columns);
    null_end |= !std::holds_alternative<std::monostate>(key[0]) && columns[1].IsNull(0);
  }
  // The earliest time is in the null window; the latest in its two windows, whose ends are past the range.
  EXPECT_EQ(rows, 3);
  EXPECT_TRUE(null_end);
}

// Judging against `watermark_ms` (nullopt: no watermark yet), dropping or not.
BoundAggregate::Lateness Judging(std::optional<int64_t> watermark_ms, bool drop) {
  BoundAggregate::Lateness lateness;
  lateness.watermark_ms = watermark_ms;
  lateness.drop = drop;
  return lateness;
}

// Watermark: a window is closed when its end <= the watermark given; a row
// with a closed window is late (counted once), skipped under drop; the
// largest time of the +1 rows read comes back in ms.
TEST(AggregateGroupsTest, LateRowsOfClosedWindowsAreDroppedAndCounted) {
  AggregateConfig config = Config();
  config.watermark_ms = 10 * 60'000;
  config.late_changes = LateChanges::kDrop;
  ASSERT_OK_AND_ASSIGN(BoundAggregate bound, BoundAggregate::Bind(config, Orders()));
  // Watermark 00:10: [00:00, 00:05) and [00:05, 00:10) are closed, [00:10, 00:15) open.
  BoundAggregate::Lateness lateness = Judging(10 * 60'000, true);
  GroupStates deltas;
  const std::vector<int8_t> signs = {1, -1, 1, 1, -1, 1, 1};
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 1, 10},               // insert, closed: dropped
                                    {"eu", 9, 20},               // delete, closed: dropped
                                    {"eu", 10, 30},              // insert, open
                                    {"eu", 4, 40, "cancelled"},  // filtered out: not judged
                                    {"eu", 7, 50},               // update pre-image, closed: dropped
                                    {"eu", 12, 55},              // its post-image, open
                                    {"us", 25, 1}}),             // the largest time
                             &signs, &deltas, nullptr, &lateness));
  EXPECT_EQ(lateness.late, 3);
  ASSERT_TRUE(lateness.max_event_ms.has_value());
  EXPECT_EQ(*lateness.max_event_ms, 25 * 60'000);
  EXPECT_EQ(deltas.size(), 2u);
  EXPECT_FALSE(deltas.contains(Key("eu", 0)));
  EXPECT_FALSE(deltas.contains(Key("eu", 5)));
  ASSERT_TRUE(deltas.contains(Key("eu", 10)));
  EXPECT_EQ(deltas.at(Key("eu", 10)).rows, 2);

  // late_changes = "apply": the same rows are counted and applied.
  BoundAggregate::Lateness applying = Judging(10 * 60'000, false);
  GroupStates applied;
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 1, 10}, {"eu", 9, 20}}), &signs, &applied, nullptr, &applying));
  EXPECT_EQ(applying.late, 2);
  EXPECT_EQ(applied.at(Key("eu", 0)).rows, 1);
  EXPECT_EQ(applied.at(Key("eu", 5)).rows, -1);
  // A window ending exactly at the watermark is closed; one ending after it is not.
  BoundAggregate::Lateness edge = Judging(10 * 60'000 - 1, true);
  GroupStates open;
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 9, 20}}), nullptr, &open, nullptr, &edge));
  EXPECT_EQ(edge.late, 0);
  EXPECT_TRUE(open.contains(Key("eu", 5)));
  // No watermark yet: nothing is late.
  BoundAggregate::Lateness first = Judging(std::nullopt, true);
  GroupStates all;
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 1, 10}}), nullptr, &all, nullptr, &first));
  EXPECT_EQ(first.late, 0);
  EXPECT_EQ(all.size(), 1u);
}

TEST(AggregateGroupsTest, AHopRowIsLateOnlyForItsClosedWindows) {
  AggregateConfig config;
  config.name = "hops";
  config.table = "orders";
  config.group_by.push_back(*ParseAggregateGroup("hop(ts, '15 minutes', '5 minutes')"));
  config.measures.push_back(*ParseAggregateMeasure("count(*)"));
  config.watermark_ms = 0;
  config.late_changes = LateChanges::kDrop;
  ASSERT_OK_AND_ASSIGN(BoundAggregate bound, BoundAggregate::Bind(config, Orders()));
  // 00:12 is in [00:00, 00:15), [00:05, 00:20), [00:10, 00:25); watermark 00:16 closes the first.
  BoundAggregate::Lateness lateness = Judging(16 * 60'000, true);
  GroupStates deltas;
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 12, 1}}), nullptr, &deltas, nullptr, &lateness));
  EXPECT_EQ(lateness.late, 1);
  std::vector<int64_t> starts;
  for (const auto& [key, state] : deltas) starts.push_back(std::get<int64_t>(key[0]) / kMinuteUs);
  EXPECT_EQ(starts, (std::vector<int64_t>{5, 10}));
  // Watermark 00:25: every window of 00:12 is closed, the row is dropped whole (counted once).
  lateness.watermark_ms = 25 * 60'000;
  deltas.clear();
  ASSERT_OK(bound.Accumulate(Batch({{"eu", 12, 1}}), nullptr, &deltas, nullptr, &lateness));
  EXPECT_EQ(lateness.late, 2);
  EXPECT_TRUE(deltas.empty());
}

TEST(AggregateGroupsTest, AWatermarkNeedsOneWindowGroup) {
  AggregateConfig config = Config();
  config.group_by = {*ParseAggregateGroup("region")};
  config.watermark_ms = 60'000;
  EXPECT_THAT(BoundAggregate::Bind(config, Orders()).status().message(),
              HasSubstr("aggregate by_region over orders: watermark needs a window() or hop() group"));
}

}  // namespace
}  // namespace floe::ingest
