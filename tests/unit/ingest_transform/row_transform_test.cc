// The row stage: binding against a unit's row image, pass 1's checks and
// pass 2's output rows.
#include "ingest/transform/row_transform.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// id long, amount decimal(10,2) (null at row 2), cur string.
RecordBatch Rows() {
  RecordBatch batch;
  batch.schema = {MakeField("id", Int64()), MakeField("amount", Decimal(10, 2)), MakeField("cur", String())};
  batch.columns = {MakeEmptyColumn(Int64()), MakeEmptyColumn(Decimal(10, 2)), MakeEmptyColumn(String())};
  const int64_t amounts[] = {150, -20, 0, 990, 5};
  const char* currencies[] = {"EUR", "USD", "EUR", "EUR", "GBP"};
  for (int64_t i = 0; i < 5; ++i) {
    batch.columns[0].AppendValue<int64_t>(i + 1);
    if (i == 2) {
      batch.columns[1].AppendNull();
    } else {
      batch.columns[1].AppendValue<__int128>(amounts[i]);
    }
    batch.columns[2].AppendBytes(currencies[i]);
  }
  batch.num_rows = 5;
  return batch;
}

expr::EvalContext Context() {
  expr::EvalContext context;
  context.source_file = "s3://b/part-7.parquet";
  context.first_source_row = 100;
  return context;
}

TransformConfig Transform(std::string filter = "") {
  TransformConfig transform;
  transform.filter = std::move(filter);
  return transform;
}

TEST(RowTransformTest, FilterThenExpectationsGiveEachRowItsStrongestOutcome) {
  RowTransform transform(Transform("cur <> 'GBP'"),
                         {{"positive", "amount > 0", ExpectationAction::kDrop},
                          {"euro", "cur = 'EUR'", ExpectationAction::kWarn},
                          {"small", "amount < 9", ExpectationAction::kQuarantine}},
                         "default.orders");
  ASSERT_OK_AND_ASSIGN(auto bound, transform.Bind(Rows().schema, {}));
  EXPECT_TRUE(bound->checks_rows());
  // Units that share a schema share the binding.
  ASSERT_OK_AND_ASSIGN(auto again, transform.Bind(Rows().schema, {}));
  EXPECT_EQ(again.get(), bound.get());
  EXPECT_THAT(bound->check_columns(), ElementsAre(1, 2));
  ASSERT_OK_AND_ASSIGN(RowChecks checks, bound->Check(Rows(), nullptr, Context(), false));
  // Row 4 (GBP) is filtered and never checked; row 1 fails `positive` (drop) and `euro`
  // (warn); row 2's null amount fails `positive` and `small` (a null is not true).
  EXPECT_THAT(checks.outcomes, ElementsAre(RowOutcome::kKeep, RowOutcome::kDropped, RowOutcome::kQuarantined,
                                           RowOutcome::kQuarantined, RowOutcome::kFiltered));
  EXPECT_EQ(checks.filtered, 1);
  EXPECT_EQ(checks.dropped, 1);
  EXPECT_EQ(checks.quarantined, 2);
  ASSERT_EQ(checks.tallies.size(), 3u);
  EXPECT_EQ(checks.tallies[0].checked, 4);
  EXPECT_EQ(checks.tallies[0].failed, 2);  // -0.20 and null
  EXPECT_EQ(checks.tallies[1].failed, 1);  // USD
  EXPECT_EQ(checks.tallies[2].failed, 2);  // null, 9.90
  // Quarantined rows list every expectation they failed; dropped ones are only counted.
  ASSERT_EQ(checks.failed_rows.size(), 2u);
  EXPECT_EQ(checks.failed_rows[0].row, 2);
  EXPECT_THAT(checks.failed_rows[0].expectations, ElementsAre(0u, 2u));
  // Validation lists every failing row.
  ASSERT_OK_AND_ASSIGN(RowChecks every, bound->Check(Rows(), nullptr, Context(), true));
  EXPECT_EQ(every.failed_rows.size(), 3u);
  EXPECT_THAT(every.failed_rows[0].expectations, ElementsAre(0u, 1u));
}

TEST(RowTransformTest, OnlyCandidateRowsAreCheckedAndAFailOutranksTheRest) {
  RowTransform transform(Transform(),
                         {{"id_small", "id < 3", ExpectationAction::kFail},
                          {"row_known", "source_row() < 103", ExpectationAction::kQuarantine}},
                         "t");
  ASSERT_OK_AND_ASSIGN(auto bound, transform.Bind(Rows().schema, {}));
  const std::vector<int64_t> candidates = {0, 3, 4};  // rows 1 and 2 are deletes
  ASSERT_OK_AND_ASSIGN(RowChecks checks, bound->Check(Rows(), &candidates, Context(), false));
  EXPECT_THAT(checks.outcomes, ElementsAre(RowOutcome::kKeep, RowOutcome::kKeep, RowOutcome::kKeep,
                                           RowOutcome::kFailed, RowOutcome::kFailed));
  EXPECT_EQ(checks.tallies[0].checked, 3);
  EXPECT_EQ(checks.tallies[0].failed, 2);
  // source_row() is the unit row: 100 + the chunk row, also for a subset.
  EXPECT_EQ(checks.tallies[1].failed, 2);  // rows 103 and 104
  EXPECT_EQ(checks.failed, 2);
  ASSERT_EQ(checks.failed_rows.size(), 2u);
  EXPECT_THAT(checks.failed_rows[0].expectations, ElementsAre(0u, 1u));
}

TEST(RowTransformTest, AnExpressionThatCanFailNeverRunsOnRowsThatAreNotChecked) {
  // id 2 * 2^62 overflows; row 1 (id 2) is a delete here, so it is never evaluated.
  RowTransform transform(Transform("cur <> 'GBP'"),
                         {{"huge", "id * 4611686018427387904 > 0", ExpectationAction::kWarn}}, "t");
  ASSERT_OK_AND_ASSIGN(auto bound, transform.Bind(Rows().schema, {}));
  const std::vector<int64_t> candidates = {0, 4};
  ASSERT_OK_AND_ASSIGN(RowChecks checks, bound->Check(Rows(), &candidates, Context(), false));
  EXPECT_EQ(checks.filtered, 1);  // row 4 (GBP)
  EXPECT_EQ(checks.tallies[0].checked, 1);
  EXPECT_EQ(checks.tallies[0].failed, 0);
  // Nor on a row the filter removed (row 4, id 5); a checked row that overflows is an error.
  const std::vector<int64_t> with_overflow = {0, 1};
  Status status = bound->Check(Rows(), &with_overflow, Context(), false).status();
  EXPECT_EQ(status.kind(), ErrorKind::kOutOfRange);
  EXPECT_THAT(status.message(), HasSubstr("row 101"));  // the unit row of chunk row 1
  // With every row a candidate, the filtered rows are still never evaluated.
  RowTransform only_small(Transform("id < 2"),
                          {{"huge", "id * 4611686018427387904 > 0", ExpectationAction::kWarn}}, "t");
  ASSERT_OK_AND_ASSIGN(auto every_row, only_small.Bind(Rows().schema, {}));
  ASSERT_OK_AND_ASSIGN(RowChecks all, every_row->Check(Rows(), nullptr, Context(), false));
  EXPECT_EQ(all.filtered, 4);
  EXPECT_EQ(all.tallies[0].checked, 1);
  EXPECT_EQ(all.tallies[0].failed, 0);
}

TEST(RowTransformTest, ExpectationsSeeDerivedColumnsAndOutputRowsAreDerivedDroppedRenamed) {
  TransformConfig config;
  config.columns = {{"amount", "amount * 2"},
                    {"usd", "CASE WHEN cur = 'EUR' THEN amount * 1.09 END"},
                    {"src", "source_file()"}};
  config.drop = {"cur", "not_in_this_file"};
  config.rename = {{"ID", "order_id"}};
  RowTransform transform(config,
                         {{"doubled", "amount > 2", ExpectationAction::kDrop},
                          {"has_usd", "usd IS NOT NULL", ExpectationAction::kWarn}},
                         "t");
  ASSERT_OK_AND_ASSIGN(auto bound, transform.Bind(Rows().schema, {}));
  EXPECT_FALSE(bound->identity());
  EXPECT_EQ(SchemaToString(bound->output_schema()),
            SchemaToString({MakeField("order_id", Int64()), MakeField("amount", Decimal(20, 2)),
                            MakeField("usd", Decimal(13, 4)), MakeField("src", String())}));
  ASSERT_OK_AND_ASSIGN(RowChecks checks, bound->Check(Rows(), nullptr, Context(), false));
  EXPECT_EQ(checks.tallies[0].failed,
            3);  // -0.40, null, 0.10: the doubled amount (1.50 alone would fail too)
  EXPECT_EQ(checks.tallies[1].failed, 3);  // null (EUR, no amount), USD, GBP
  ASSERT_OK_AND_ASSIGN(RecordBatch out, bound->Apply(Rows(), Context()));
  ASSERT_EQ(out.num_rows, 5);
  EXPECT_EQ(out.columns[0].Value<int64_t>(4), 5);
  EXPECT_EQ(out.columns[1].Value<__int128>(0), 300);    // 1.50 * 2
  EXPECT_EQ(out.columns[2].Value<__int128>(0), 16350);  // 1.50 * 1.09 = 1.6350
  EXPECT_TRUE(out.columns[2].IsNull(1));
  EXPECT_EQ(out.columns[3].StringAt(2), "s3://b/part-7.parquet");
}

TEST(RowTransformTest, ATableColumnTheUnitLacksReadsAsNullAndUnknownColumnsFailTheBind) {
  const Schema table_columns = {MakeField("id", Int64()), MakeField("region", String())};
  RowTransform transform(Transform("region IS NULL OR region = 'EU'"),
                         {{"region_known", "region IS NOT NULL", ExpectationAction::kWarn}},
                         "default.orders");
  ASSERT_OK_AND_ASSIGN(auto bound, transform.Bind(Rows().schema, table_columns));
  ASSERT_OK_AND_ASSIGN(RowChecks checks, bound->Check(Rows(), nullptr, Context(), false));
  EXPECT_EQ(checks.filtered, 0);
  EXPECT_EQ(checks.tallies[0].failed, 5);
  // Neither the unit nor the table has the column: an error naming the table, the key and the column.
  RowTransform typo(Transform("regoin = 'EU'"), {}, "default.orders");
  Status status = typo.Bind(Rows().schema, table_columns).status();
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidArgument);
  EXPECT_THAT(status.message(),
              AllOf(HasSubstr("table default.orders: [transform] filter: expression \"regoin = "
                              "'EU'\": position 1"),
                    HasSubstr("regoin")));
  RowTransform not_boolean(Transform(), {{"amount_only", "amount", ExpectationAction::kWarn}}, "t");
  EXPECT_THAT(
      not_boolean.Bind(Rows().schema, {}).status().message(),
      HasSubstr("[[expectations]] \"amount_only\": expression \"amount\" is decimal(10,2), not a predicate"));
  TransformConfig derived;
  derived.columns = {{"x", "lower(amount)"}};
  EXPECT_THAT(RowTransform(derived, {}, "t").Bind(Rows().schema, {}).status().message(),
              HasSubstr("[transform.columns] x: expression \"lower(amount)\""));
  TransformConfig clash;
  clash.rename = {{"id", "cur"}};
  EXPECT_THAT(RowTransform(clash, {}, "t").Bind(Rows().schema, {}).status().message(),
              HasSubstr("two columns named cur"));
}

TEST(RowTransformTest, AnOverflowNamesTheExpressionTheRowAndTheFile) {
  TransformConfig config;
  config.columns = {{"huge", "id * 9223372036854775807"}};
  RowTransform transform(config, {}, "t");
  ASSERT_OK_AND_ASSIGN(auto bound, transform.Bind(Rows().schema, {}));
  Status status = bound->Apply(Rows(), Context()).status();
  EXPECT_EQ(status.kind(), ErrorKind::kOutOfRange);
  EXPECT_THAT(status.message(), AllOf(HasSubstr("id * 9223372036854775807"), HasSubstr("row 1 of the batch"),
                                      HasSubstr("s3://b/part-7.parquet")));
}

TEST(RowTransformTest, SourceColumnsUndoRenamesAndLeaveDerivedColumnsOut) {
  TransformConfig config;
  config.columns = {{"usd", "amount"}};
  config.rename = {{"cust", "customer_id"}};
  RowTransform transform(config, {}, "t");
  const Schema source = transform.SourceColumns(
      {MakeField("id", Int64()), MakeField("customer_id", String()), MakeField("usd", Decimal(10, 2))});
  EXPECT_EQ(SchemaToString(source), SchemaToString({MakeField("id", Int64()), MakeField("cust", String())}));
  EXPECT_TRUE(RowTransform(TransformConfig{}, {}, "t").empty());
}

}  // namespace
}  // namespace floe::ingest
