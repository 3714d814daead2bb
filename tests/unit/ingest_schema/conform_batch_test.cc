#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ingest/schema/schema_reconcile.h"
#include "reconcile_test_helpers.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using namespace schema_test;  // NOLINT: test builders

TEST(ConformBatchTest, RequiredColumnWithNullIsAnError) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong, true)});
  auto source = Batch({MakeField("id", Int64())}, {Values<int64_t>(Int64(), {1, 0}, {false, true})});
  auto result = ReconcileAndConform(table, source);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "s3://b/x/part-0.parquet: column id: null at row 1, but the table requires a value");
}

TEST(ConformBatchTest, ColumnNotInTargetIsAnError) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong)});
  auto source = Batch({MakeField("id", Int64()), MakeField("extra", Int32())},
                      {Values<int64_t>(Int64(), {1}), Values<int32_t>(Int32(), {2})});
  ASSERT_OK_AND_ASSIGN(FileMapping m, Reconcile(table, source.schema, kUri, Options()));
  auto result = ConformBatch(source, m, table);  // schema not evolved
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "s3://b/x/part-0.parquet: column extra: not in the table schema (evolve the schema first)");
}

TEST(ConformBatchTest, MalformedSourceBatchIsRejected) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong)});
  FileMapping m;
  m.file_uri = kUri;
  RecordBatch bad = Batch({MakeField("id", Int64())}, {Values<int64_t>(Int64(), {1, 2})});
  bad.columns[0].values.resize(3);
  EXPECT_FALSE(ConformBatch(bad, m, table).ok());
  RecordBatch short_batch = Batch({MakeField("id", Int64())}, {Values<int64_t>(Int64(), {1, 2})});
  short_batch.num_rows = 5;
  EXPECT_FALSE(ConformBatch(short_batch, m, table).ok());
  RecordBatch missing_column = short_batch;
  missing_column.columns.clear();
  EXPECT_FALSE(ConformBatch(missing_column, m, table).ok());
}

TEST(ConformBatchTest, TimeInMillisecondsConverts) {
  auto table = TableSchema({Col(1, "t", TypeKind::kTime)});
  auto source =
      Batch({MakeField("t", Time(TimeUnit::kMilli))}, {Values<int64_t>(Time(TimeUnit::kMilli), {1500})});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source, Options(IncompatiblePolicy::kFail)));
  EXPECT_EQ(c.batch.schema[0].type, Time(TimeUnit::kMicro));
  EXPECT_EQ(c.batch.columns[0].Value<int64_t>(0), 1500000);
}

TEST(ConformBatchTest, NewColumnWithoutIcebergTypeFollowsThePolicy) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong)});
  auto source = Batch(
      {MakeField("id", Int64()), MakeField("t", Time(TimeUnit::kNano))},
      {Values<int64_t>(Int64(), {1, 2}), Values<int64_t>(Time(TimeUnit::kNano), {1000, 0}, {false, true})});
  auto failed = Reconcile(table, source.schema, kUri, Options(IncompatiblePolicy::kQuarantine));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message().rfind(
                "s3://b/x/part-0.parquet: column t: file type time[ns] has no Iceberg type", 0),
            0u)
      << failed.status().message();
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source));
  EXPECT_EQ(c.mapping.rescued, (std::vector<std::string>{"t"}));
  ASSERT_EQ(c.batch.schema.size(), 2u);
  EXPECT_EQ(c.batch.schema[1].name, kRescuedDataColumn);
  EXPECT_EQ(c.batch.columns[1].StringAt(0), "{\"t\":\"00:00:00.000001000\"}");
  EXPECT_TRUE(c.batch.columns[1].IsNull(1));
}

TEST(ConformBatchTest, RequiredNestedMembers) {
  // A required member missing from the file's struct makes the column incompatible.
  auto table = TableSchema(
      {Col(1, "id", TypeKind::kLong),
       MakeNestedField(
           2, "s", iceberg::StructType({Col(3, "a", TypeKind::kInt, true), Col(4, "b", TypeKind::kInt)}))});
  floe::Schema file = {MakeField("id", Int64()), MakeField("s", Struct({MakeField("b", Int32())}))};
  auto failed = Reconcile(table, file, kUri, Options(IncompatiblePolicy::kFail));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(),
            "s3://b/x/part-0.parquet: column s.a: required by the table but missing from the file");

  // A null required member counts only where its struct is present.
  DataType s_type = Struct({MakeField("a", Int32()), MakeField("b", Int32())});
  Column s = MakeEmptyColumn(s_type);
  s.children[0].AppendValue<int32_t>(1);
  s.children[1].AppendNull();
  s.AppendStructSlot();
  s.AppendNull();  // absent struct: its null member is fine
  auto ok_source =
      Batch({MakeField("id", Int64()), MakeField("s", s_type)}, {Values<int64_t>(Int64(), {1, 2}), s});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, ok_source));
  ExpectValid(c.batch);
  Column bad = MakeEmptyColumn(s_type);
  bad.children[0].AppendNull();
  bad.children[1].AppendValue<int32_t>(5);
  bad.AppendStructSlot();
  auto bad_source =
      Batch({MakeField("id", Int64()), MakeField("s", s_type)}, {Values<int64_t>(Int64(), {1}), bad});
  auto result = ReconcileAndConform(table, bad_source);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "s3://b/x/part-0.parquet: column s.a: null at row 0, but the table requires a value");
}

TEST(ConformBatchTest, NewMemberInsideListOfStructs) {
  auto point = iceberg::StructType({Col(3, "x", TypeKind::kInt)});
  auto table = TableSchema(
      {Col(1, "id", TypeKind::kLong), MakeNestedField(2, "points", iceberg::ListType(4, point, false))});
  DataType file_point = Struct({MakeField("x", Int32()), MakeField("y", Float32())});
  floe::Schema file = {MakeField("id", Int64()), MakeField("points", List(MakeField("element", file_point)))};
  Column points = MakeEmptyColumn(file[1].type);
  points.children[0].children[0].AppendValue<int32_t>(3);
  points.children[0].children[1].AppendValue<float>(0.5f);
  points.children[0].AppendStructSlot();
  points.AppendListEnd();
  auto source = Batch(file, {Values<int64_t>(Int64(), {9}), points});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source));
  ASSERT_EQ(c.mapping.evolution.added.size(), 1u);
  EXPECT_EQ(c.mapping.evolution.added[0].name, "points.element.y");
  const iceberg::NestedField* y = c.schema.FindFieldByName("points.element.y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->id, 5);
  ExpectValid(c.batch);
  EXPECT_EQ(c.batch.columns[1].children[0].children[1].Value<float>(0), 0.5f);
}

// The table ingestor reconciles each file again against the final evolved
// schema and expects nothing more to evolve.
TEST(ConformBatchTest, ReconcilingAgainstTheEvolvedSchemaNeedsNothing) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "n", TypeKind::kInt),
                            MakeNestedField(3, "s", iceberg::StructType({Col(4, "a", TypeKind::kInt)})),
                            Col(5, "amount", TypeKind::kLong)});
  std::vector<floe::Schema> files = {
      {MakeField("id", Int64()), MakeField("n", Int32()), MakeField("amount", String()),
       MakeField("ts", Timestamp(TimeUnit::kNano, false))},
      {MakeField("ID", Int64()), MakeField("n", Int64()), MakeField("big", UInt64()),
       MakeField("s",
                 Struct({MakeField("a", Int64()), MakeField("b", List(MakeField("element", UInt8())))}))},
      {MakeField("id", Int64()), MakeField("ts", Timestamp(TimeUnit::kMilli, false)),
       MakeField("n", UInt32()), MakeField("h", Float16())},
  };
  for (int version : {2, 3}) {
    SCOPED_TRACE(version);
    std::vector<SchemaEvolution> evolutions;
    iceberg::Schema working = table;
    std::vector<FileMapping> first_pass;
    for (const auto& file : files) {
      ASSERT_OK_AND_ASSIGN(FileMapping m,
                           Reconcile(working, file, kUri, Options(IncompatiblePolicy::kRescue, version)));
      evolutions.push_back(m.evolution);
      ASSERT_OK_AND_ASSIGN(working, EvolveSchema(table, 5, evolutions, version));
      first_pass.push_back(std::move(m));
    }
    ASSERT_OK_AND_ASSIGN(iceberg::Schema final_schema, EvolveSchema(table, 5, evolutions, version));
    EXPECT_EQ(final_schema, working);
    EXPECT_EQ(final_schema.FindFieldByName("n")->type, PrimitiveType(TypeKind::kLong));
    EXPECT_EQ(final_schema.FindFieldByName("s.a")->type, PrimitiveType(TypeKind::kLong));
    EXPECT_EQ(final_schema.FindFieldByName("s.b.element")->type, PrimitiveType(TypeKind::kInt));
    EXPECT_NE(final_schema.FindFieldByName(kRescuedDataColumn), nullptr);
    for (size_t i = 0; i < files.size(); ++i) {
      ASSERT_OK_AND_ASSIGN(FileMapping again, Reconcile(final_schema, files[i], kUri,
                                                        Options(IncompatiblePolicy::kRescue, version)));
      EXPECT_TRUE(again.evolution.empty()) << i;
      EXPECT_EQ(again.rescued, first_pass[i].rescued) << i;
    }
  }
}

TEST(ConformBatchTest, MovesColumnsOfTheTableTypeAndCastsTheOthers) {
  auto table = TableSchema(
      {Col(1, "id", TypeKind::kLong), Col(2, "n", TypeKind::kLong), Col(3, "name", TypeKind::kString)});
  RecordBatch source =
      Batch({MakeField("id", Int64()), MakeField("n", Int32()), MakeField("name", String())},
            {Values<int64_t>(Int64(), {7, 8}), Values<int32_t>(Int32(), {1, -2}), Strings({"a", "bc"})});
  ASSERT_OK_AND_ASSIGN(FileMapping m, Reconcile(table, source.schema, kUri, Options()));
  ASSERT_OK_AND_ASSIGN(RecordBatch copied, ConformBatch(source, m, table));
  const auto* id_values = source.columns[0].values.data();
  ASSERT_OK_AND_ASSIGN(RecordBatch moved, ConformBatch(std::move(source), m, table));
  for (const RecordBatch* batch : {&copied, &moved}) {
    ASSERT_EQ(batch->num_rows, 2);
    EXPECT_EQ(batch->columns[0].Value<int64_t>(1), 8);
    EXPECT_EQ(batch->columns[1].type, Int64());  // int widened to long either way
    EXPECT_EQ(batch->columns[1].Value<int64_t>(1), -2);
    EXPECT_EQ(batch->columns[2].StringAt(1), "bc");
  }
  // The id column's buffer itself went to the result: no copy.
  EXPECT_EQ(moved.columns[0].values.data(), id_values);
  EXPECT_NE(copied.columns[0].values.data(), id_values);
}

}  // namespace
}  // namespace floe::ingest
