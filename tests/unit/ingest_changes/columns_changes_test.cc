// The columns change conventions ("cda", "columns", "dms", "append") bound to
// unit schemas: string and integer operation codes, files without the
// operation column, two ordering columns, DMS full-load rows, bad rows.
#include "ingest/changes/columns_changes.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ingest/changes/operation_codes.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;

Column Strings(std::initializer_list<const char*> values) {
  Column c(String());
  for (const char* v : values) {
    if (v) {
      c.AppendBytes(v);
    } else {
      c.AppendNull();
    }
  }
  return c;
}

Column Longs(std::initializer_list<int64_t> values) {
  Column c(Int64());
  for (int64_t v : values) c.AppendValue(v);
  return c;
}

// The unit columns `bound` scans, taken by name from `columns`.
RecordBatch Scanned(const Schema& schema, const std::vector<Column>& columns, const BoundChanges& bound) {
  RecordBatch batch;
  batch.num_rows = columns.empty() ? 0 : columns[0].length;
  for (int index : bound.scan_columns()) {
    batch.schema.push_back(schema[static_cast<size_t>(index)]);
    batch.columns.push_back(columns[static_cast<size_t>(index)]);
  }
  return batch;
}

MergeConfig DebeziumFiles() {
  MergeConfig merge;
  merge.keys = {"id"};
  merge.order_by = {{"ts_ms", OrderingKind::kTimestamp}, {"lsn", OrderingKind::kNumber}};
  merge.operation_column = "__op";
  merge.insert_values = {std::string("c"), std::string("r")};
  merge.update_values = {std::string("u")};
  merge.delete_values = {std::string("d")};
  merge.ignore_values = {};
  return merge;
}

TEST(ColumnsChangesTest, StringOperationCodesAreComparedExactly) {
  ColumnsChanges convention("columns", DebeziumFiles());
  const Schema schema = {MakeField("id", Int64()), MakeField("ts_ms", Int64()), MakeField("lsn", Int64()),
                         MakeField("__op", String())};
  ASSERT_OK_AND_ASSIGN(auto bound, convention.Bind(schema));
  const std::vector<Column> columns = {Longs({1, 2, 3, 4, 5}), Longs({10, 10, 11, 12, 13}),
                                       Longs({1, 2, 3, 4, 5}), Strings({"c", "r", "u", "d", "U"})};
  ASSERT_OK_AND_ASSIGN(ChunkChanges changes, bound->Extract(Scanned(schema, columns, *bound), 100));
  EXPECT_EQ(changes.actions, (std::vector<OperationAction>{OperationAction::kInsert, OperationAction::kInsert,
                                                           OperationAction::kUpdate, OperationAction::kDelete,
                                                           OperationAction::kUnknown}));
  ASSERT_EQ(changes.bad_rows.size(), 1u);  // "U" is not "u": codes are case-sensitive
  EXPECT_EQ(changes.bad_rows[0].row, 104);
  EXPECT_THAT(changes.bad_rows[0].reason, HasSubstr("column __op: unknown operation code \"U\""));
  EXPECT_THAT(changes.bad_rows[0].reason, HasSubstr("insert \"c\", \"r\"; update \"u\"; delete \"d\""));
  ASSERT_EQ(changes.orders.size(), 2u);
  EXPECT_EQ(bound->ordering().columns.size(), 2u);
}

TEST(ColumnsChangesTest, AnOperationColumnNeedsCodesOfItsType) {
  MergeConfig integer_codes;  // the CDA defaults: 0, 2, 4, 1, 3
  integer_codes.keys = {"id"};
  integer_codes.order_by = {{"seq", OrderingKind::kNumber}};
  integer_codes.operation_column = "op";
  ColumnsChanges convention("columns", integer_codes);
  auto string_column =
      convention.Bind({MakeField("id", Int64()), MakeField("seq", Int64()), MakeField("op", String())});
  ASSERT_FALSE(string_column.ok());
  EXPECT_THAT(string_column.status().message(),
              HasSubstr("operation column op has type string; [merge] insert_values, update_values, "
                        "delete_values and ignore_values hold no string codes"));
  EXPECT_THAT(string_column.status().message(), HasSubstr("insert_values = [\"I\"]"));
  auto float_column =
      convention.Bind({MakeField("id", Int64()), MakeField("seq", Int64()), MakeField("op", Float64())});
  EXPECT_THAT(float_column.status().message(), HasSubstr("expected an integer or string type"));

  ColumnsChanges strings("columns", DebeziumFiles());
  auto int_column = strings.Bind({MakeField("id", Int64()), MakeField("ts_ms", Int64()),
                                  MakeField("lsn", Int64()), MakeField("__op", Int32())});
  EXPECT_THAT(int_column.status().message(), HasSubstr("hold no integer codes"));
}

TEST(ColumnsChangesTest, AFileWithoutTheOperationColumnHoldsUpsertsOnlyWhenConfigured) {
  MergeConfig merge = DebeziumFiles();
  const Schema schema = {MakeField("id", Int64()), MakeField("ts_ms", Int64()), MakeField("lsn", Int64())};
  auto refused = ColumnsChanges("columns", merge).Bind(schema);
  ASSERT_FALSE(refused.ok());
  EXPECT_THAT(refused.status().message(), HasSubstr("missing operation column __op"));
  EXPECT_THAT(refused.status().message(), HasSubstr("missing_operation = \"upsert\""));

  merge.missing_operation = MissingOperation::kUpsert;
  ColumnsChanges convention("columns", merge);
  ASSERT_OK_AND_ASSIGN(auto bound, convention.Bind(schema));
  const std::vector<Column> columns = {Longs({1, 2}), Longs({5, 6}), Longs({1, 1})};
  ASSERT_OK_AND_ASSIGN(ChunkChanges changes, bound->Extract(Scanned(schema, columns, *bound), 0));
  EXPECT_EQ(changes.actions,
            (std::vector<OperationAction>{OperationAction::kInsert, OperationAction::kInsert}));
  EXPECT_TRUE(changes.bad_rows.empty());
}

// The DMS preset's full-load rule: rows without AR_H_CHANGE_SEQ order first
// when they are inserts; an update or a delete without one is a bad row.
TEST(ColumnsChangesTest, DmsFullLoadRowsWithoutAChangeSequenceAreOldest) {
  MergeConfig dms;
  dms.keys = {"id"};
  dms.order_by = {{"AR_H_CHANGE_SEQ", OrderingKind::kDigits}};
  dms.unordered_rows_oldest = true;
  dms.operation_column = "Op";
  dms.insert_values = {std::string("I")};
  dms.update_values = {std::string("U")};
  dms.delete_values = {std::string("D")};
  dms.ignore_values = {};
  dms.missing_operation = MissingOperation::kUpsert;
  ColumnsChanges convention("dms", dms);

  // A full-load file: neither Op nor AR_H_CHANGE_SEQ.
  const Schema load = {MakeField("id", Int64()), MakeField("name", String())};
  ASSERT_OK_AND_ASSIGN(auto full_load, convention.Bind(load));
  ASSERT_OK_AND_ASSIGN(
      ChunkChanges loaded,
      full_load->Extract(Scanned(load, {Longs({1, 2}), Strings({"a", "b"})}, *full_load), 0));
  EXPECT_EQ(loaded.actions,
            (std::vector<OperationAction>{OperationAction::kInsert, OperationAction::kInsert}));
  ASSERT_EQ(loaded.order_present, std::vector<bool>{false});

  // A CDC file: an update without a sequence is refused row by row.
  const Schema cdc = {MakeField("Op", String()), MakeField("AR_H_CHANGE_SEQ", String()),
                      MakeField("id", Int64())};
  ASSERT_OK_AND_ASSIGN(auto changes_bound, convention.Bind(cdc));
  const std::vector<Column> columns = {Strings({"I", "U", "D", "U"}),
                                       Strings({"", "20240308000000000000000000000000001", nullptr, nullptr}),
                                       Longs({1, 2, 3, 4})};
  ASSERT_OK_AND_ASSIGN(ChunkChanges changes,
                       changes_bound->Extract(Scanned(cdc, columns, *changes_bound), 10));
  EXPECT_EQ(changes.actions,
            (std::vector<OperationAction>{OperationAction::kInsert, OperationAction::kUpdate,
                                          OperationAction::kUnknown, OperationAction::kUnknown}));
  ASSERT_EQ(changes.bad_rows.size(), 2u);
  EXPECT_EQ(changes.bad_rows[0].row, 12);
  EXPECT_EQ(changes.bad_rows[0].reason, "column AR_H_CHANGE_SEQ: a delete without an ordering value");
  EXPECT_EQ(changes.bad_rows[1].row, 13);
  EXPECT_EQ(changes.bad_rows[1].reason, "column AR_H_CHANGE_SEQ: an update without an ordering value");

  // A CDC file of a task that writes no AR_H_CHANGE_SEQ: its updates are bad
  // rows saying what to configure instead.
  const Schema unsequenced = {MakeField("Op", String()), MakeField("dms_ts", String()),
                              MakeField("id", Int64())};
  ASSERT_OK_AND_ASSIGN(auto unsequenced_bound, convention.Bind(unsequenced));
  ASSERT_OK_AND_ASSIGN(
      ChunkChanges refused,
      unsequenced_bound->Extract(
          Scanned(unsequenced, {Strings({"U"}), Strings({"2024-03-08 10:00:00.000001"}), Longs({7})},
                  *unsequenced_bound),
          0));
  ASSERT_EQ(refused.bad_rows.size(), 1u);
  EXPECT_THAT(refused.bad_rows[0].reason,
              HasSubstr("an update in a file without the ordering column AR_H_CHANGE_SEQ"));
  EXPECT_THAT(refused.bad_rows[0].reason, HasSubstr("TimestampColumnName column: [merge] order_by"));
}

TEST(ColumnsChangesTest, NullOperationCodesAreBadRowsAndAppendDropsThem) {
  MergeConfig merge;
  merge.operation_column = "op";
  AppendChanges convention(merge);
  const Schema schema = {MakeField("v", Int64()), MakeField("op", Int32())};
  ASSERT_OK_AND_ASSIGN(auto bound, convention.Bind(schema));
  Column op(Int32());
  op.AppendValue(int32_t{0});
  op.AppendNull();
  op.AppendValue(int32_t{3});
  ASSERT_OK_AND_ASSIGN(ChunkChanges changes,
                       bound->Extract(Scanned(schema, {Longs({1, 2, 3}), op}, *bound), 0));
  EXPECT_EQ(changes.actions,
            (std::vector<OperationAction>{OperationAction::kInsert, OperationAction::kUnknown,
                                          OperationAction::kIgnore}));
  ASSERT_EQ(changes.bad_rows.size(), 1u);
  EXPECT_EQ(changes.bad_rows[0].reason, "column op: null operation code");
}

TEST(ColumnsChangesTest, MissingOrderingColumnsAndOrderingsAnIndexCannotHoldAreRefused) {
  MergeConfig merge = DebeziumFiles();
  auto missing =
      ColumnsChanges("columns", merge)
          .Bind({MakeField("id", Int64()), MakeField("ts_ms", Int64()), MakeField("__op", String())});
  EXPECT_THAT(missing.status().message(), HasSubstr("missing ordering column lsn"));
  merge.order_by = {{"ts_ms", OrderingKind::kTimestamp}, {"seq", OrderingKind::kPaddedHex}};
  auto too_wide = ColumnsChanges("columns", merge)
                      .Bind({MakeField("id", Int64()), MakeField("ts_ms", Int64()),
                             MakeField("seq", String()), MakeField("__op", String())});
  EXPECT_THAT(too_wide.status().message(), HasSubstr("needs all 16 bytes"));
}

TEST(ColumnsChangesTest, AnUnsignedCodeBeyondInt64MatchesNoCode) {
  // 2^64 - 1 is not -1: an unsigned code past int64's range is an unknown
  // code, never one that wrapped around.
  MergeConfig merge;
  merge.keys = {"id"};
  merge.order_by = {{"seq", OrderingKind::kNumber}};
  merge.operation_column = "op";
  merge.insert_values = {int64_t{0}};
  merge.update_values = {int64_t{4}};
  merge.delete_values = {int64_t{-1}};
  merge.ignore_values = {};
  ColumnsChanges convention("columns", merge);
  const Schema schema = {MakeField("id", Int64()), MakeField("seq", Int64()), MakeField("op", UInt64())};
  ASSERT_OK_AND_ASSIGN(auto bound, convention.Bind(schema));
  Column op(UInt64());
  op.AppendValue(uint64_t{0});
  op.AppendValue(~uint64_t{0});
  ASSERT_OK_AND_ASSIGN(ChunkChanges changes,
                       bound->Extract(Scanned(schema, {Longs({1, 2}), Longs({1, 2}), op}, *bound), 0));
  EXPECT_EQ(changes.actions,
            (std::vector<OperationAction>{OperationAction::kInsert, OperationAction::kUnknown}));
  ASSERT_EQ(changes.bad_rows.size(), 1u);
  EXPECT_THAT(changes.bad_rows[0].reason,
              HasSubstr("column op: unknown operation code 18446744073709551615"));
}

}  // namespace
}  // namespace floe::ingest
