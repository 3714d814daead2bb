// [transform] and [[expectations]]: keys, per-table overrides, and errors
// that name the key, the expression and the position at config load.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ingest/config/config.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;

constexpr const char* kBase = R"toml(
name = "orders"
[source]
format = "parquet"
uri = "/landing/orders"
[catalog]
uri = "sqlite:///var/floe/catalog.db"
warehouse = "/var/floe/warehouse"
)toml";

Result<PipelineConfig> Parse(const std::string& extra) {
  return ParsePipelineConfig(std::string(kBase) + extra, "/etc/floe/pipeline.toml");
}

std::string ErrorOf(const std::string& extra) {
  auto result = Parse(extra);
  if (result.ok()) return "<parsed without error>";
  EXPECT_EQ(result.status().kind(), ErrorKind::kInvalidArgument) << result.status().ToString();
  return result.status().message();
}

TEST(TransformConfigTest, EveryKeyIsReadInTheFilesOrder) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
[transform]
filter = "id IS NOT NULL"
drop = ["internal_note", "currency"]
[transform.columns]
year = "year(order_ts)"
revenue_usd = "CASE WHEN currency = 'EUR' THEN revenue * 1.09 ELSE revenue END"
added = "ingestion_time()"
[transform.rename]
cust = "customer_id"
amt = "amount"
[[expectations]]
name = "positive_revenue"
expr = "revenue > 0"
action = "drop"
[[expectations]]
name = "has-customer"
expr = "cust IS NOT NULL"
)toml"));
  EXPECT_EQ(config.transform.filter, "id IS NOT NULL");
  EXPECT_EQ(config.transform.drop, (std::vector<std::string>{"internal_note", "currency"}));
  ASSERT_EQ(config.transform.columns.size(), 3u);
  EXPECT_EQ(config.transform.columns[0], (DerivedColumn{"year", "year(order_ts)"}));
  EXPECT_EQ(config.transform.columns[1].name, "revenue_usd");
  EXPECT_EQ(config.transform.columns[2].name, "added");
  EXPECT_EQ(config.transform.rename,
            (std::vector<std::pair<std::string, std::string>>{{"cust", "customer_id"}, {"amt", "amount"}}));
  ASSERT_EQ(config.expectations.size(), 2u);
  EXPECT_EQ(config.expectations[0],
            (ExpectationConfig{"positive_revenue", "revenue > 0", ExpectationAction::kDrop}));
  EXPECT_EQ(config.expectations[1].action, ExpectationAction::kWarn);  // the default
  const TableSettings settings = config.ForTable("orders");
  EXPECT_EQ(settings.transform.columns.size(), 3u);
  EXPECT_EQ(settings.expectations.size(), 2u);
}

TEST(TransformConfigTest, ATableOverridesKeysAndAddsOrReplacesExpectations) {
  ASSERT_OK_AND_ASSIGN(PipelineConfig config, Parse(R"toml(
[transform]
filter = "id IS NOT NULL"
drop = ["note"]
[transform.columns]
d = "to_date(ts)"
[[expectations]]
name = "positive"
expr = "amount > 0"
action = "warn"
[tables.returns.transform]
filter = "amount < 0"
[[tables.returns.expectations]]
name = "positive"
expr = "amount < 0"
action = "fail"
[[tables.returns.expectations]]
name = "small"
expr = "amount > -1000"
action = "quarantine"
)toml"));
  const TableSettings returns = config.ForTable("returns");
  EXPECT_EQ(returns.transform.filter, "amount < 0");
  EXPECT_EQ(returns.transform.drop, std::vector<std::string>{"note"});  // not given: the pipeline's
  EXPECT_EQ(returns.transform.columns.size(), 1u);
  ASSERT_EQ(returns.expectations.size(), 2u);
  EXPECT_EQ(returns.expectations[0], (ExpectationConfig{"positive", "amount < 0", ExpectationAction::kFail}));
  EXPECT_EQ(returns.expectations[1].name, "small");
  const TableSettings orders = config.ForTable("orders");
  EXPECT_EQ(orders.transform.filter, "id IS NOT NULL");
  ASSERT_EQ(orders.expectations.size(), 1u);
  EXPECT_EQ(orders.expectations[0].action, ExpectationAction::kWarn);
}

TEST(TransformConfigTest, ASyntaxErrorNamesTheKeyTheExpressionAndThePosition) {
  EXPECT_THAT(
      ErrorOf("[transform]\nfilter = \"id IS NOT\"\n"),
      AllOf(HasSubstr("/etc/floe/pipeline.toml: [transform] filter: expression \"id IS NOT\": position"),
            HasSubstr("(line ")));
  EXPECT_THAT(
      ErrorOf("[transform.columns]\nusd = \"revenue * \"\n"),
      AllOf(HasSubstr("[transform] columns.usd: expression \"revenue * \": position 11"), HasSubstr("line")));
  EXPECT_THAT(ErrorOf("[[expectations]]\nname = \"positive\"\nexpr = \"revenue >> 0\"\n"),
              HasSubstr("[[expectations]] \"positive\" expr: expression \"revenue >> 0\": position"));
  EXPECT_THAT(ErrorOf("[[tables.t.expectations]]\nname = \"p\"\nexpr = \"(a\"\n"),
              HasSubstr("[[tables.t.expectations]] \"p\" expr: expression \"(a\": position"));
  EXPECT_THAT(ErrorOf("[transform]\nfilter = \"  \"\n"),
              HasSubstr("[transform] filter: an empty expression"));
}

TEST(TransformConfigTest, ExpectationsAreCheckedEntryByEntry) {
  EXPECT_THAT(ErrorOf("[[expectations]]\nexpr = \"a > 0\"\n"),
              HasSubstr("[[expectations]] #1 name: is required"));
  EXPECT_THAT(ErrorOf("[[expectations]]\nname = \"a b\"\nexpr = \"a > 0\"\n"),
              HasSubstr("[[expectations]] #1 name: expected letters, digits"));
  EXPECT_THAT(ErrorOf("[[expectations]]\nname = \"a\"\n"),
              HasSubstr("[[expectations]] \"a\" expr: is required"));
  EXPECT_THAT(
      ErrorOf("[[expectations]]\nname = \"a\"\nexpr = \"x > 0\"\naction = \"stop\"\n"),
      HasSubstr("[[expectations]] \"a\" action: expected \"warn\", \"drop\", \"quarantine\" or \"fail\""));
  EXPECT_THAT(
      ErrorOf("[[expectations]]\nname = \"a\"\nexpr = \"x > 0\"\n[[expectations]]\nname = \"a\"\nexpr = "
              "\"y > 0\"\n"),
      HasSubstr("[[expectations]] #2 name: \"a\" names a second expectation"));
  EXPECT_THAT(ErrorOf("[[expectations]]\nname = \"a\"\nexpr = \"x > 0\"\nwhen = \"always\"\n"),
              HasSubstr("unknown key [[expectations]] \"a\" when"));
  EXPECT_THAT(ErrorOf("[tables.t]\nexpectations = \"a > 0\"\n"),
              HasSubstr("tables.t.expectations: expected [[tables.t.expectations]] entries"));
}

TEST(TransformConfigTest, ContradictionsWithinTheSectionAreRefused) {
  EXPECT_THAT(ErrorOf("[transform]\ndrop = [\"x\"]\n[transform.columns]\nx = \"1\"\n"),
              HasSubstr("[transform] columns.x: is also in drop"));
  EXPECT_THAT(ErrorOf("[transform]\ndrop = [\"x\"]\n[transform.rename]\nx = \"y\"\n"),
              HasSubstr("[transform] rename.x: is also in drop"));
  EXPECT_THAT(ErrorOf("[transform.rename]\na = \"z\"\nb = \"Z\"\n"),
              HasSubstr("[transform] rename.b: renames a second column to Z"));
  EXPECT_THAT(ErrorOf("[transform]\ncolumns = \"x\"\n"), HasSubstr("[transform] columns: expected a table"));
  EXPECT_THAT(ErrorOf("[transform]\nwhere = \"x\"\n"), HasSubstr("unknown key [transform] where"));
  EXPECT_THAT(ErrorOf("[transform.columns]\nx = 1\n"), HasSubstr("[transform] columns.x: expected a string"));
}

TEST(TransformConfigTest, MergeKeysAndOrderingColumnsCannotBeDroppedRenamedOrRedefined) {
  const std::string merge = "[merge]\nmode = \"merge\"\nkeys = [\"id\"]\norder_by = \"seq\"\n";
  EXPECT_THAT(ErrorOf(merge + "[transform]\ndrop = [\"ID\"]\n"),
              HasSubstr("[transform] drop: drops id, a [merge] key or ordering column"));
  EXPECT_THAT(ErrorOf(merge + "[transform.columns]\nseq = \"seq + 1\"\n"),
              HasSubstr("[transform] columns.seq: redefines seq"));
  EXPECT_THAT(ErrorOf(merge + "[transform.rename]\nid = \"order_id\"\n"),
              HasSubstr("[transform] rename.id: renames id"));
  EXPECT_THAT(ErrorOf(merge + "[transform.rename]\nother = \"id\"\n"),
              HasSubstr("[transform] rename.other: renames a column onto id"));
  // Per table, with the table's own keys.
  EXPECT_THAT(ErrorOf(merge + "[tables.t]\nkeys = [\"k\"]\n[tables.t.transform]\ndrop = [\"k\"]\n"),
              HasSubstr("[transform] of table t drop: drops k"));
  // Append mode has no keys: anything goes; filtering on a key is fine.
  ASSERT_OK(Parse("[transform]\ndrop = [\"id\"]\n").status());
  ASSERT_OK(Parse(merge + "[transform]\nfilter = \"id > 0\"\n").status());
}

}  // namespace
}  // namespace floe::ingest
