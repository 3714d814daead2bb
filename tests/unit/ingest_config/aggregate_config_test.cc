// [[aggregates]]: group_by and measures parsed as the config spells them,
// and every mistake refused at load with the aggregate, the key and what is
// wrong (unknown measures, bad windows, a table the source does not have,
// clashing output columns).
#include "ingest/config/aggregate_config.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ingest/config/config.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;

// A prefix source of the one table "orders", then `aggregates`.
std::string Pipeline(const std::string& aggregates) {
  return R"toml(
name = "orders"
[source]
format = "parquet"
uri = "/landing/orders"
table = "orders"
[merge]
mode = "merge"
keys = ["order_id"]
order_by = "updated_at"
[catalog]
uri = "sqlite:///var/floe/catalog.db"
warehouse = "/var/floe/warehouse"
)toml" + aggregates;
}

std::string ErrorOf(const std::string& aggregates) {
  auto parsed = ParsePipelineConfig(Pipeline(aggregates), "/etc/floe/orders.toml");
  if (parsed.ok()) return "<parsed without error>";
  EXPECT_EQ(parsed.status().kind(), ErrorKind::kInvalidArgument) << parsed.status().ToString();
  return parsed.status().message();
}

TEST(AggregateConfigTest, ParsesGroupsMeasuresAndFilter) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, ParsePipelineConfig(Pipeline(R"toml(
[[aggregates]]
name = "orders_by_region_5m"
table = "orders"
group_by = ["region", "window(order_ts, '5 minutes')"]
measures = ["count(*) AS orders", "sum(amount) AS revenue", "avg(amount)", "MIN(amount)", "max(amount)", "count(customer_id)"]
filter = "status <> 'cancelled'"
)toml"),
                                                                  "/etc/floe/orders.toml"));
  ASSERT_EQ(config.aggregates.size(), 1u);
  const AggregateConfig& aggregate = config.aggregates[0];
  EXPECT_EQ(aggregate.name, "orders_by_region_5m");
  EXPECT_EQ(aggregate.table, "orders");
  EXPECT_EQ(aggregate.group_by, (std::vector<AggregateGroup>{{"region", 0}, {"order_ts", 300'000}}));
  ASSERT_EQ(aggregate.measures.size(), 6u);
  EXPECT_EQ(aggregate.measures[0], (AggregateMeasure{AggregateFunction::kCountRows, "", "orders"}));
  EXPECT_EQ(aggregate.measures[1], (AggregateMeasure{AggregateFunction::kSum, "amount", "revenue"}));
  EXPECT_EQ(aggregate.measures[2], (AggregateMeasure{AggregateFunction::kAvg, "amount", "avg_amount"}));
  EXPECT_EQ(aggregate.measures[3], (AggregateMeasure{AggregateFunction::kMin, "amount", "min_amount"}));
  EXPECT_EQ(aggregate.measures[5],
            (AggregateMeasure{AggregateFunction::kCount, "customer_id", "count_customer_id"}));
  EXPECT_EQ(aggregate.filter, "status <> 'cancelled'");
  // The table's settings carry the aggregates over it, other tables' do not.
  EXPECT_EQ(config.ForTable("orders").aggregates.size(), 1u);
  EXPECT_TRUE(config.ForTable("customers").aggregates.empty());
}

TEST(AggregateConfigTest, WindowSizesTakeUnitsAndDurations) {
  EXPECT_EQ(ParseAggregateGroup("window(ts, '1 hour')")->window_ms, 3'600'000);
  EXPECT_EQ(ParseAggregateGroup("window( ts , '30 seconds' )")->window_ms, 30'000);
  EXPECT_EQ(ParseAggregateGroup("window(ts, '2 days')")->window_ms, 172'800'000);
  EXPECT_EQ(ParseAggregateGroup("window(ts, '10m')")->window_ms, 600'000);
}

TEST(AggregateConfigTest, HopWindowsTakeASizeAndASlide) {
  EXPECT_EQ(*ParseAggregateGroup("hop(ts, '10 minutes', '5 minutes')"),
            (AggregateGroup{"ts", 600'000, 300'000}));
  EXPECT_EQ(*ParseAggregateGroup("HOP( ts , '1 hour' , '1m' )"), (AggregateGroup{"ts", 3'600'000, 60'000}));
  // A slide equal to the size is a tumbling window.
  EXPECT_EQ(*ParseAggregateGroup("hop(ts, '5 minutes', '5 minutes')"), (AggregateGroup{"ts", 300'000, 0}));
  EXPECT_THAT(ParseAggregateGroup("hop(ts, '5 minutes', '10 minutes')").status().message(),
              HasSubstr("the slide is longer than the window"));
  EXPECT_THAT(ParseAggregateGroup("hop(ts, '1 day', '1 minute')").status().message(),
              HasSubstr("each row would be in 1440 windows; at most 100"));
  EXPECT_THAT(ParseAggregateGroup("hop(ts, '10 minutes')").status().message(),
              HasSubstr("expected hop(column, '10 minutes', '5 minutes')"));
  EXPECT_THAT(ParseAggregateGroup("hop(ts, '10 minutes', 5)").status().message(),
              HasSubstr("the window slide must be quoted"));
  EXPECT_THAT(ParseAggregateGroup("hop(ts, '10 minutes', '0 s')").status().message(),
              HasSubstr("bad window slide '0 s'"));
  EXPECT_THAT(ParseAggregateGroup("window(ts, '1 hour', '5 minutes')").status().message(),
              HasSubstr("expected window(column, '5 minutes')"));
  EXPECT_THAT(ParseAggregateGroup("tumble(ts, '1 hour')").status().message(),
              HasSubstr("unsupported grouping tumble()"));
}

TEST(AggregateConfigTest, MistakesAreRefusedWithWhatIsWrong) {
  const std::string head = "\n[[aggregates]]\nname = \"a\"\ntable = \"orders\"\n";
  EXPECT_THAT(ErrorOf(head + "measures = [\"median(amount)\"]\n"),
              HasSubstr("[[aggregates]] \"a\" measures: \"median(amount)\": unsupported measure median()"));
  EXPECT_THAT(ErrorOf(head + "measures = [\"sum(*)\"]\n"), HasSubstr("only count takes *"));
  EXPECT_THAT(ErrorOf(head + "measures = [\"sum(a + b)\"]\n"),
              HasSubstr("the argument must be one column name"));
  EXPECT_THAT(ErrorOf(head + "group_by = [\"window(ts, 'five minutes')\"]\nmeasures = [\"count(*)\"]\n"),
              HasSubstr("group_by: \"window(ts, 'five minutes')\": bad window size 'five minutes'"));
  EXPECT_THAT(ErrorOf(head + "group_by = [\"window(ts, 5)\"]\nmeasures = [\"count(*)\"]\n"),
              HasSubstr("the window size must be quoted"));
  EXPECT_THAT(
      ErrorOf(head + "group_by = [\"hop(ts, '1 minute', '5 minutes')\"]\nmeasures = [\"count(*)\"]\n"),
      HasSubstr("group_by: \"hop(ts, '1 minute', '5 minutes')\": the slide is longer than the window"));
  EXPECT_THAT(ErrorOf(head + "group_by = [\"hop(ts, '10 minutes', '5 minutes')\", \"window(ts, '1 hour')\"]\n"
                             "measures = [\"count(*)\"]\n"),
              HasSubstr("two output columns are named \"window_start\""));
  EXPECT_THAT(ErrorOf(head + "group_by = [\"count\"]\nmeasures = [\"count(*)\"]\n"),
              HasSubstr("two output columns are named \"count\""));
  EXPECT_THAT(ErrorOf(head + "measures = [\"count(*) AS _floe_rows\"]\n"),
              HasSubstr("names starting with _floe_ are floe's own columns"));
  EXPECT_THAT(ErrorOf(head), HasSubstr("measures: is required"));
  EXPECT_THAT(ErrorOf(head + "measures = [\"count(*)\"]\nfilter = \"status <>\"\n"),
              HasSubstr("[[aggregates]] \"a\" filter:"));
  EXPECT_THAT(ErrorOf("\n[[aggregates]]\nname = \"a\"\ntable = \"customers\"\nmeasures = [\"count(*)\"]\n"),
              HasSubstr("table: \"customers\" is not a table of this pipeline (its source has: orders)"));
  EXPECT_THAT(ErrorOf(head + "measures = [\"count(*)\"]\n" + head + "measures = [\"count(*)\"]\n"),
              HasSubstr("\"a\" names a second aggregate"));
  EXPECT_THAT(ErrorOf("\n[[aggregates]]\ntable = \"orders\"\nmeasures = [\"count(*)\"]\n"),
              HasSubstr("[[aggregates]] #1 name: is required"));
}

TEST(AggregateConfigTest, WatermarkAndLateChanges) {
  const std::string head =
      "\n[[aggregates]]\nname = \"a\"\ntable = \"orders\"\nmeasures = [\"count(*)\"]\n"
      "group_by = [\"region\", \"hop(order_ts, '10 minutes', '5 minutes')\"]\n";
  ASSERT_OK_AND_ASSIGN(PipelineConfig config,
                       ParsePipelineConfig(Pipeline(head + "watermark = \"10 minutes\"\n"
                                                           "late_changes = \"drop\"\n"),
                                           "/etc/floe/orders.toml"));
  EXPECT_EQ(config.aggregates[0].watermark_ms, 600'000);
  EXPECT_EQ(config.aggregates[0].late_changes, LateChanges::kDrop);
  // The window syntax and floe's durations; zero closes a window as soon as a later time comes.
  ASSERT_OK_AND_ASSIGN(
      config, ParsePipelineConfig(Pipeline(head + "watermark = \"90s\"\n"), "/etc/floe/orders.toml"));
  EXPECT_EQ(config.aggregates[0].watermark_ms, 90'000);
  EXPECT_EQ(config.aggregates[0].late_changes, LateChanges::kApply);
  ASSERT_OK_AND_ASSIGN(
      config, ParsePipelineConfig(Pipeline(head + "watermark = \"0 seconds\"\n"), "/etc/floe/orders.toml"));
  EXPECT_EQ(config.aggregates[0].watermark_ms, 0);
  // Without: windows never close.
  ASSERT_OK_AND_ASSIGN(config, ParsePipelineConfig(Pipeline(head), "/etc/floe/orders.toml"));
  EXPECT_EQ(config.aggregates[0].watermark_ms, std::nullopt);
  EXPECT_EQ(config.aggregates[0].late_changes, LateChanges::kApply);

  const std::string plain = "\n[[aggregates]]\nname = \"a\"\ntable = \"orders\"\nmeasures = [\"count(*)\"]\n";
  EXPECT_THAT(ErrorOf(plain + "group_by = [\"region\"]\nwatermark = \"10 minutes\"\n"),
              HasSubstr("[[aggregates]] \"a\" watermark: needs a window() or hop() group in group_by"));
  EXPECT_THAT(ErrorOf(head + "watermark = \"ten minutes\"\n"),
              HasSubstr("[[aggregates]] \"a\" watermark: bad duration \"ten minutes\""));
  EXPECT_THAT(ErrorOf(head + "watermark = \"-5 minutes\"\n"), HasSubstr("watermark: bad duration"));
  EXPECT_THAT(ErrorOf(head + "watermark = 600\n"), HasSubstr("watermark"));
  EXPECT_THAT(
      ErrorOf(head + "watermark = \"10 minutes\"\nlate_changes = \"dead_letter\"\n"),
      HasSubstr("[[aggregates]] \"a\" late_changes: expected \"apply\" or \"drop\", got \"dead_letter\""));
  EXPECT_THAT(ErrorOf(head + "late_changes = \"drop\"\n"),
              HasSubstr("[[aggregates]] \"a\" late_changes: \"drop\" needs a watermark"));
}

}  // namespace
}  // namespace floe::ingest
