#include "ingest/schema/schema_reconcile.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "reconcile_test_helpers.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using namespace schema_test;  // NOLINT: test builders

TEST(ReconcileTest, IdenticalSchemaNeedsNothing) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "name", TypeKind::kString)});
  ASSERT_OK_AND_ASSIGN(
      FileMapping m,
      Reconcile(table, {MakeField("id", Int64()), MakeField("name", String())}, kUri, Options()));
  EXPECT_EQ(m.file_uri, kUri);
  EXPECT_TRUE(m.evolution.empty());
  EXPECT_TRUE(m.rescued.empty());
  EXPECT_TRUE(m.warnings.empty());
}

TEST(ReconcileTest, AddsFlatColumnWithFreshId) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "name", TypeKind::kString)});
  auto source = Batch(
      {MakeField("id", Int64()), MakeField("name", String()), MakeField("amount", Decimal(9, 2))},
      {Values<int64_t>(Int64(), {1, 2}), Strings({"a", "b"}), Values<__int128>(Decimal(9, 2), {1250, -5})});
  ASSERT_OK_AND_ASSIGN(FileMapping m, Reconcile(table, source.schema, kUri, Options()));
  ASSERT_EQ(m.evolution.added.size(), 1u);
  EXPECT_EQ(m.evolution.added[0].name, "amount");
  EXPECT_EQ(m.evolution.added[0].type, DecimalType(9, 2));
  EXPECT_TRUE(m.evolution.promoted.empty());

  // last-column-id above the highest id: new ids start after it.
  ASSERT_OK_AND_ASSIGN(iceberg::Schema evolved, EvolveSchema(table, 7, {m.evolution}, 2));
  EXPECT_EQ(evolved.schema_id, 3);
  ASSERT_EQ(evolved.fields.size(), 3u);
  EXPECT_EQ(evolved.fields[2].id, 8);
  EXPECT_EQ(evolved.fields[2].name, "amount");
  EXPECT_FALSE(evolved.fields[2].required);

  ASSERT_OK_AND_ASSIGN(RecordBatch out, ConformBatch(source, m, evolved));
  ExpectValid(out);
  ASSERT_EQ(out.schema.size(), 3u);
  EXPECT_EQ(out.schema[2].field_id, 8);
  EXPECT_EQ(DecimalAt(out.columns[2], 0), 1250);
  EXPECT_EQ(DecimalAt(out.columns[2], 1), -5);
  EXPECT_EQ(out.columns[1].StringAt(1), "b");
}

TEST(ReconcileTest, AddsNestedStructMember) {
  auto address = iceberg::StructType({Col(3, "city", TypeKind::kString)});
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), MakeNestedField(2, "address", address)});
  DataType file_address = Struct({MakeField("city", String()), MakeField("zip", Int32())});
  Column address_col = MakeEmptyColumn(file_address);
  address_col.children[0].AppendBytes("Oslo");
  address_col.children[1].AppendValue<int32_t>(150);
  address_col.AppendStructSlot();
  address_col.AppendNull();
  auto source = Batch({MakeField("id", Int64()), MakeField("address", file_address)},
                      {Values<int64_t>(Int64(), {1, 2}), address_col});

  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source));
  ASSERT_EQ(c.mapping.evolution.added.size(), 1u);
  EXPECT_EQ(c.mapping.evolution.added[0].name, "address.zip");
  EXPECT_EQ(c.mapping.evolution.added[0].path, (std::vector<std::string>{"address", "zip"}));
  const iceberg::NestedField* zip = c.schema.FindFieldByName("address.zip");
  ASSERT_NE(zip, nullptr);
  EXPECT_EQ(zip->id, 4);
  EXPECT_EQ(zip->type.kind, TypeKind::kInt);
  ExpectValid(c.batch);
  const Column& out_address = c.batch.columns[1];
  EXPECT_EQ(out_address.children[0].StringAt(0), "Oslo");
  EXPECT_EQ(out_address.children[1].Value<int32_t>(0), 150);
  EXPECT_TRUE(out_address.IsNull(1));
}

TEST(ReconcileTest, NewNestedColumnGetsFreshIdsForEveryField) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong)});
  floe::Schema file = {
      MakeField("id", Int64()),
      MakeField(
          "points",
          List(MakeField("element", Struct({MakeField("x", Int32(), true, 91), MakeField("y", UInt32())})))),
      MakeField("attrs", Map(MakeField("key", String(), false), MakeField("value", UInt64())))};
  ASSERT_OK_AND_ASSIGN(FileMapping m, Reconcile(table, file, kUri, Options()));
  ASSERT_EQ(m.evolution.added.size(), 2u);
  ASSERT_OK_AND_ASSIGN(iceberg::Schema evolved, EvolveSchema(table, 1, {m.evolution}, 2));
  EXPECT_OK(evolved.Validate());
  // points=2, element=3, x=4, y=5, attrs=6, key=7, value=8; the Parquet field id 91 is not kept.
  EXPECT_EQ(evolved.HighestFieldId(), 8);
  const iceberg::NestedField* y = evolved.FindFieldByName("points.element.y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->type.kind, TypeKind::kLong);
  const iceberg::NestedField* value = evolved.FindFieldByName("attrs.value");
  ASSERT_NE(value, nullptr);
  EXPECT_EQ(value->type, DecimalType(20, 0));
  EXPECT_EQ(evolved.FindFieldByName("points.element.x")->id, 4);
}

TEST(ReconcileTest, MissingColumnReadsAsNull) {
  auto table =
      TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "name", TypeKind::kString),
                   MakeNestedField(3, "tags", iceberg::ListType(4, PrimitiveType(TypeKind::kString), false)),
                   MakeNestedField(5, "s", iceberg::StructType({Col(6, "a", TypeKind::kInt)}))});
  auto source = Batch({MakeField("id", Int64())}, {Values<int64_t>(Int64(), {1, 2, 3})});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source));
  EXPECT_TRUE(c.mapping.evolution.empty());
  ExpectValid(c.batch);
  ASSERT_EQ(c.batch.columns.size(), 4u);
  for (size_t k = 1; k < 4; ++k) EXPECT_EQ(c.batch.columns[k].null_count, 3) << k;
  EXPECT_EQ(c.batch.columns[0].Value<int64_t>(2), 3);
}

TEST(ReconcileTest, MissingRequiredColumnIsAnErrorEvenUnderRescue) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "name", TypeKind::kString, true)});
  auto result = Reconcile(table, {MakeField("id", Int64())}, kUri, Options(IncompatiblePolicy::kRescue));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "s3://b/x/part-0.parquet: column name: required by the table but missing from the file (rescue "
            "cannot fill a required column, so the file cannot be written)");
}

struct PromotionCase {
  iceberg::Type table;
  DataType file;
  iceberg::Type promoted;
};

TEST(ReconcileTest, WiderFileTypesPromoteTheTable) {
  std::vector<PromotionCase> cases = {
      {PrimitiveType(TypeKind::kInt), Int64(), PrimitiveType(TypeKind::kLong)},
      {PrimitiveType(TypeKind::kInt), UInt32(), PrimitiveType(TypeKind::kLong)},
      {PrimitiveType(TypeKind::kFloat), Float64(), PrimitiveType(TypeKind::kDouble)},
      {DecimalType(9, 2), Decimal(18, 2), DecimalType(18, 2)},
      {DecimalType(18, 0), UInt64(), DecimalType(20, 0)},
  };
  for (const auto& pc : cases) {
    SCOPED_TRACE(pc.file.ToString());
    auto table = TableSchema({Col(1, "id", TypeKind::kLong), MakeNestedField(2, "v", pc.table)});
    ASSERT_OK_AND_ASSIGN(FileMapping m, Reconcile(table, {MakeField("id", Int64()), MakeField("v", pc.file)},
                                                  kUri, Options(IncompatiblePolicy::kFail)));
    ASSERT_EQ(m.evolution.promoted.size(), 1u);
    EXPECT_EQ(m.evolution.promoted[0].name, "v");
    EXPECT_EQ(m.evolution.promoted[0].from, pc.table);
    EXPECT_EQ(m.evolution.promoted[0].to, pc.promoted);
    EXPECT_TRUE(m.evolution.added.empty());
    EXPECT_FALSE(m.warnings.empty());
    ASSERT_OK_AND_ASSIGN(iceberg::Schema evolved, EvolveSchema(table, 2, {m.evolution}, 2));
    EXPECT_EQ(evolved.fields[1].type, pc.promoted);
    EXPECT_EQ(evolved.fields[1].id, 2);
  }
}

TEST(ReconcileTest, PromotedValuesConform) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "n", TypeKind::kInt),
                            Col(3, "f", TypeKind::kFloat), MakeNestedField(4, "d", DecimalType(9, 2))});
  auto source = Batch(
      {MakeField("id", Int64()), MakeField("n", Int64()), MakeField("f", Float64()),
       MakeField("d", Decimal(18, 2))},
      {Values<int64_t>(Int64(), {1, 2}), Values<int64_t>(Int64(), {int64_t{1} << 40, -7}, {false, true}),
       Values<double>(Float64(), {0.1, 2.5}), Values<__int128>(Decimal(18, 2), {123456789012345, -1})});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source));
  EXPECT_EQ(c.mapping.evolution.promoted.size(), 3u);
  ExpectValid(c.batch);
  EXPECT_EQ(c.batch.schema[1].type, Int64());
  EXPECT_EQ(c.batch.columns[1].Value<int64_t>(0), int64_t{1} << 40);
  EXPECT_TRUE(c.batch.columns[1].IsNull(1));
  EXPECT_EQ(c.batch.columns[2].Value<double>(0), 0.1);
  EXPECT_EQ(c.batch.schema[3].type, Decimal(18, 2));
  EXPECT_EQ(DecimalAt(c.batch.columns[3], 0), 123456789012345);
}

TEST(ReconcileTest, NarrowerFileTypesAreCastUp) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "l", TypeKind::kLong),
                            Col(3, "d", TypeKind::kDouble), MakeNestedField(4, "dec", DecimalType(18, 2)),
                            Col(5, "i", TypeKind::kInt), Col(6, "u", TypeKind::kLong),
                            MakeNestedField(7, "big", DecimalType(20, 0)), Col(8, "h", TypeKind::kDouble)});
  auto source =
      Batch({MakeField("id", Int64()), MakeField("l", Int32()), MakeField("d", Float32()),
             MakeField("dec", Decimal(9, 2)), MakeField("i", UInt16()), MakeField("u", UInt32()),
             MakeField("big", UInt64()), MakeField("h", Float16())},
            {Values<int64_t>(Int64(), {1, 2}), Values<int32_t>(Int32(), {-5, 2147483647}),
             Values<float>(Float32(), {1.5f, -0.25f}), Values<__int128>(Decimal(9, 2), {-1250, 999}),
             Values<uint16_t>(UInt16(), {65535, 0}), Values<uint32_t>(UInt32(), {4294967295u, 1}),
             Values<uint64_t>(UInt64(), {18446744073709551615ull, 3}),
             Values<uint16_t>(Float16(), {0x3C00 /* 1.0 */, 0xC000 /* -2.0 */})});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source, Options(IncompatiblePolicy::kFail)));
  EXPECT_TRUE(c.mapping.evolution.empty());
  EXPECT_EQ(c.mapping.warnings.size(), 4u);  // l, d, dec, h change Iceberg type; i/u/big only their layout
  ExpectValid(c.batch);
  const auto& cols = c.batch.columns;
  EXPECT_EQ(cols[1].Value<int64_t>(0), -5);
  EXPECT_EQ(cols[1].Value<int64_t>(1), 2147483647);
  EXPECT_EQ(cols[2].Value<double>(0), 1.5);
  EXPECT_EQ(cols[2].Value<double>(1), -0.25);
  EXPECT_EQ(c.batch.schema[3].type, Decimal(18, 2));
  EXPECT_EQ(DecimalAt(cols[3], 0), -1250);
  EXPECT_EQ(cols[4].Value<int32_t>(0), 65535);
  EXPECT_EQ(cols[5].Value<int64_t>(0), 4294967295);
  EXPECT_EQ(DecimalAt(cols[6], 0), static_cast<__int128>(18446744073709551615ull));
  EXPECT_EQ(cols[7].Value<double>(0), 1.0);
  EXPECT_EQ(cols[7].Value<double>(1), -2.0);
}

// Text formats infer per file: a file whose prices are all "2" or "2.50"
// must fit the double column its siblings made, value for value, and a value
// with no exact double is an error naming the row (never rounded).
TEST(ReconcileTest, NumbersCastIntoADoubleColumnWhenExact) {
  auto table = TableSchema(
      {Col(1, "i", TypeKind::kDouble), Col(2, "l", TypeKind::kDouble), Col(3, "dec", TypeKind::kDouble)});
  auto source = Batch({MakeField("i", Int32()), MakeField("l", Int64()), MakeField("dec", Decimal(38, 2))},
                      {Values<int32_t>(Int32(), {2, -7}), Values<int64_t>(Int64(), {int64_t{1} << 53, -3}),
                       Values<__int128>(Decimal(38, 2), {250, -1})});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source, Options(IncompatiblePolicy::kFail)));
  EXPECT_TRUE(c.mapping.evolution.empty());
  ExpectValid(c.batch);
  EXPECT_EQ(c.batch.columns[0].Value<double>(0), 2.0);
  EXPECT_EQ(c.batch.columns[0].Value<double>(1), -7.0);
  EXPECT_EQ(c.batch.columns[1].Value<double>(0), 9007199254740992.0);
  EXPECT_EQ(c.batch.columns[2].Value<double>(0), 2.5);
  EXPECT_EQ(c.batch.columns[2].Value<double>(1), -0.01);

  auto too_long = Batch({MakeField("l", Int64())}, {Values<int64_t>(Int64(), {1, (int64_t{1} << 53) + 1})});
  auto refused = ReconcileAndConform(table, too_long, Options(IncompatiblePolicy::kFail));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("column l: value 9007199254740993 at row 1"), std::string::npos)
      << refused.status().message();
  __int128 sixteen_digits = 1;
  for (int k = 0; k < 16; ++k) sixteen_digits *= 10;
  auto too_precise =
      Batch({MakeField("dec", Decimal(38, 2))}, {Values<__int128>(Decimal(38, 2), {sixteen_digits})});
  refused = ReconcileAndConform(table, too_precise, Options(IncompatiblePolicy::kFail));
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("column dec: the value at row 0"), std::string::npos)
      << refused.status().message();
}

// A text reader's own _rescued_data (one JSON object per row) and the
// columns reconciliation rescues share that column: one object per row.
TEST(ReconcileTest, AFilesOwnRescuedDataTakesRescuedColumnsToo) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "amount", TypeKind::kDouble),
                            Col(3, "_rescued_data", TypeKind::kString)});
  Column rescued(String());
  rescued.AppendBytes(R"({"v":"x","_file_path":"f.jsonl","_line":1})");
  rescued.AppendNull();
  rescued.AppendNull();
  Column amount(String());
  amount.AppendBytes("abc");
  amount.AppendNull();
  amount.AppendBytes("n/a");
  auto source =
      Batch({MakeField("id", Int64()), MakeField("amount", String()), MakeField("_rescued_data", String())},
            {Values<int64_t>(Int64(), {1, 2, 3}), amount, rescued});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source, Options(IncompatiblePolicy::kRescue)));
  ExpectValid(c.batch);
  const Column& out = c.batch.columns[2];
  EXPECT_EQ(out.StringAt(0), R"({"v":"x","_file_path":"f.jsonl","_line":1,"amount":"abc"})");
  EXPECT_TRUE(out.IsNull(1));
  EXPECT_EQ(out.StringAt(2), R"({"amount":"n/a"})");
}

TEST(ReconcileTest, TimestampsConvertToTheTableUnit) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "ms", TypeKind::kTimestamp),
                            Col(3, "ns", TypeKind::kTimestampTz), Col(4, "us", TypeKind::kTimestamp)});
  auto source = Batch(
      {MakeField("id", Int64()), MakeField("ms", Timestamp(TimeUnit::kMilli, false)),
       MakeField("ns", Timestamp(TimeUnit::kNano, true)),
       MakeField("us", Timestamp(TimeUnit::kMicro, false))},
      {Values<int64_t>(Int64(), {1, 2, 3}),
       Values<int64_t>(Timestamp(TimeUnit::kMilli, false), {1664585730123, -1, 0}, {false, false, true}),
       Values<int64_t>(Timestamp(TimeUnit::kNano, true), {1999, -1500, -1000}),
       Values<int64_t>(Timestamp(TimeUnit::kMicro, false), {5, 6, 7})});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source, Options(IncompatiblePolicy::kFail)));
  EXPECT_TRUE(c.mapping.evolution.empty());
  ExpectValid(c.batch);
  EXPECT_EQ(c.batch.schema[1].type, Timestamp(TimeUnit::kMicro, false));
  EXPECT_EQ(c.batch.columns[1].Value<int64_t>(0), 1664585730123000);
  EXPECT_EQ(c.batch.columns[1].Value<int64_t>(1), -1000);
  EXPECT_TRUE(c.batch.columns[1].IsNull(2));
  // ns -> us rounds toward negative infinity.
  EXPECT_EQ(c.batch.columns[2].Value<int64_t>(0), 1);
  EXPECT_EQ(c.batch.columns[2].Value<int64_t>(1), -2);
  EXPECT_EQ(c.batch.columns[2].Value<int64_t>(2), -1);
  EXPECT_EQ(c.batch.columns[3].Value<int64_t>(2), 7);
}

TEST(ReconcileTest, MillisecondOverflowNamesTheRow) {
  auto table = TableSchema({Col(1, "ts", TypeKind::kTimestamp)});
  auto source = Batch({MakeField("ts", Timestamp(TimeUnit::kMilli, false))},
                      {Values<int64_t>(Timestamp(TimeUnit::kMilli, false), {0, INT64_MAX / 10})});
  auto result = ReconcileAndConform(table, source);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kOutOfRange);
  EXPECT_NE(result.status().message().find(std::string(kUri) + ": column ts: "), std::string::npos)
      << result.status().message();
  EXPECT_NE(result.status().message().find("at row 1"), std::string::npos) << result.status().message();
}

TEST(ReconcileTest, NewTimestampColumnsByFormatVersion) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong)});
  floe::Schema file = {MakeField("id", Int64()), MakeField("a", Timestamp(TimeUnit::kNano, false)),
                       MakeField("b", Timestamp(TimeUnit::kMilli, true))};
  ASSERT_OK_AND_ASSIGN(FileMapping v2, Reconcile(table, file, kUri, Options(IncompatiblePolicy::kFail, 2)));
  EXPECT_EQ(v2.evolution.added[0].type, PrimitiveType(TypeKind::kTimestamp));
  EXPECT_EQ(v2.evolution.added[1].type, PrimitiveType(TypeKind::kTimestampTz));
  ASSERT_OK_AND_ASSIGN(FileMapping v3, Reconcile(table, file, kUri, Options(IncompatiblePolicy::kFail, 3)));
  EXPECT_EQ(v3.evolution.added[0].type, PrimitiveType(TypeKind::kTimestampNs));

  // In v2 the new column holds microseconds: values are truncated.
  auto source =
      Batch({MakeField("id", Int64()), MakeField("a", Timestamp(TimeUnit::kNano, false))},
            {Values<int64_t>(Int64(), {1}), Values<int64_t>(Timestamp(TimeUnit::kNano, false), {123456789})});
  ASSERT_OK_AND_ASSIGN(Conformed c,
                       ReconcileAndConform(table, source, Options(IncompatiblePolicy::kFail, 2)));
  EXPECT_EQ(c.batch.columns[1].Value<int64_t>(0), 123456);
  ASSERT_OK_AND_ASSIGN(Conformed c3,
                       ReconcileAndConform(table, source, Options(IncompatiblePolicy::kFail, 3)));
  EXPECT_EQ(c3.batch.schema[1].type, Timestamp(TimeUnit::kNano, false));
  EXPECT_EQ(c3.batch.columns[1].Value<int64_t>(0), 123456789);
}

TEST(ReconcileTest, IncompatibleUnderQuarantineAndFailNamesFileColumnAndTypes) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), MakeNestedField(2, "amount", DecimalType(10, 2))});
  floe::Schema file = {MakeField("id", Int64()), MakeField("amount", String())};
  for (auto policy : {IncompatiblePolicy::kQuarantine, IncompatiblePolicy::kFail}) {
    auto result = Reconcile(table, file, kUri, Options(policy));
    ASSERT_FALSE(result.ok());
    EXPECT_EQ(result.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(result.status().message(),
              "s3://b/x/part-0.parquet: column amount: table type decimal(10,2), file type string");
  }
}

TEST(ReconcileTest, OtherIncompatiblePairs) {
  struct Case {
    iceberg::Type table;
    DataType file;
    std::string message_types;
  };
  std::vector<Case> cases = {
      {PrimitiveType(TypeKind::kString), Binary(), "table type string, file type binary"},
      {PrimitiveType(TypeKind::kBinary), String(), "table type binary, file type string"},
      {PrimitiveType(TypeKind::kLong), Int64(), ""},
      {PrimitiveType(TypeKind::kTimestamp), Timestamp(TimeUnit::kMicro, true),
       "table type timestamp, file type timestamp[us, utc]"},
      {PrimitiveType(TypeKind::kTimestamp), Date(), "table type timestamp, file type date"},
      {PrimitiveType(TypeKind::kDate), Timestamp(TimeUnit::kMicro, false),
       "table type date, file type timestamp[us]"},
      {PrimitiveType(TypeKind::kInt), Float32(), "table type int, file type float"},
      {DecimalType(10, 2), Decimal(10, 3), "table type decimal(10,2), file type decimal(10,3)"},
      {PrimitiveType(TypeKind::kLong), Decimal(18, 0), "table type long, file type decimal(18,0)"},
      {PrimitiveType(TypeKind::kLong), UInt64(), "table type long, file type uint64"},
  };
  for (const auto& tc : cases) {
    SCOPED_TRACE(tc.file.ToString());
    auto table = TableSchema({MakeNestedField(1, "v", tc.table)});
    auto result = Reconcile(table, {MakeField("v", tc.file)}, kUri, Options(IncompatiblePolicy::kFail));
    if (tc.message_types.empty()) {
      EXPECT_OK(result);
      continue;
    }
    ASSERT_FALSE(result.ok());
    std::string got = result.status().message();
    EXPECT_EQ(got.substr(0, std::string(kUri).size() + 11), std::string(kUri) + ": column v:") << got;
    EXPECT_NE(got.find(tc.message_types), std::string::npos) << got;
  }
}

TEST(ReconcileTest, ProtectedColumnsAreNeverRescued) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "gwcbi___operation", TypeKind::kInt)});
  auto result = Reconcile(table, {MakeField("id", String()), MakeField("gwcbi___operation", Int32())}, kUri,
                          Options(IncompatiblePolicy::kRescue));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "s3://b/x/part-0.parquet: column id: table type long, file type string (key/ordering/operation "
            "columns cannot be rescued)");
  // Matched case-insensitively, still protected.
  auto upper = Reconcile(table, {MakeField("ID", Int64()), MakeField("GWCBI___OPERATION", String())}, kUri,
                         Options(IncompatiblePolicy::kRescue));
  ASSERT_FALSE(upper.ok());
  EXPECT_EQ(upper.status().message(),
            "s3://b/x/part-0.parquet: column gwcbi___operation: table type int, file type string "
            "(key/ordering/operation columns cannot be rescued)");
  // Widening a protected column is fine.
  ASSERT_OK_AND_ASSIGN(
      FileMapping m,
      Reconcile(table, {MakeField("id", Int64()), MakeField("gwcbi___operation", Int64())}, kUri, Options()));
  EXPECT_EQ(m.evolution.promoted.size(), 1u);
}

TEST(ReconcileTest, RescueWritesJsonOfOffendingValues) {
  auto table =
      TableSchema({Col(1, "id", TypeKind::kLong), MakeNestedField(2, "amount", DecimalType(10, 2)),
                   Col(3, "count", TypeKind::kString), Col(4, "price", TypeKind::kLong),
                   Col(5, "at", TypeKind::kTimestamp),
                   MakeNestedField(6, "addr", iceberg::StructType({Col(7, "zip", TypeKind::kInt)}))});
  DataType addr_type = Struct({MakeField("zip", String()), MakeField("city", String())});
  Column addr = MakeEmptyColumn(addr_type);
  addr.children[0].AppendBytes("0150");
  addr.children[1].AppendBytes("Oslo");
  addr.AppendStructSlot();
  addr.AppendNull();
  addr.AppendNull();
  auto source = Batch(
      {MakeField("id", Int64()), MakeField("amount", String()), MakeField("count", Binary()),
       MakeField("price", Decimal(12, 3)), MakeField("at", Timestamp(TimeUnit::kMilli, true)),
       MakeField("addr", addr_type)},
      {Values<int64_t>(Int64(), {1, 2, 3}), Strings({"12.50x", "", "\"q\""}, {false, true, false}),
       [] {
         Column c(Binary());
         c.AppendBytes(std::string("\x01\xff", 2));
         c.AppendNull();
         c.AppendNull();
         return c;
       }(),
       Values<__int128>(Decimal(12, 3), {-12345, 0, 0}, {false, true, true}),
       Values<int64_t>(Timestamp(TimeUnit::kMilli, true), {1664585730123, 0, 0}, {false, true, true}), addr});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source, Options(IncompatiblePolicy::kRescue)));
  EXPECT_EQ(c.mapping.rescued, (std::vector<std::string>{"amount", "count", "price", "at", "addr"}));
  ASSERT_EQ(c.mapping.evolution.added.size(), 1u);
  EXPECT_EQ(c.mapping.evolution.added[0].name, kRescuedDataColumn);
  EXPECT_EQ(c.mapping.warnings.size(), 5u);
  ExpectValid(c.batch);
  int64_t rescued = FindColumn(c.batch, kRescuedDataColumn);
  ASSERT_EQ(rescued, 6);
  EXPECT_EQ(c.batch.schema[6].type, String());
  EXPECT_TRUE(c.batch.schema[6].nullable);
  const Column& json = c.batch.columns[6];
  EXPECT_EQ(
      json.StringAt(0),
      "{\"amount\":\"12.50x\",\"count\":\"01ff\",\"price\":\"-12.345\",\"at\":\"2022-10-01T00:55:30.123Z\","
      "\"addr\":{\"zip\":\"0150\",\"city\":\"Oslo\"}}");
  EXPECT_TRUE(json.IsNull(1));
  EXPECT_EQ(json.StringAt(2), "{\"amount\":\"\\\"q\\\"\"}");
  // Rescued table columns stay null.
  for (int k = 1; k <= 5; ++k) EXPECT_EQ(c.batch.columns[k].null_count, 3) << k;
  EXPECT_EQ(c.batch.columns[0].Value<int64_t>(2), 3);
}

TEST(ReconcileTest, RescueOfNestedMismatchNamesTheMember) {
  auto table =
      TableSchema({Col(1, "id", TypeKind::kLong),
                   MakeNestedField(2, "tags", iceberg::ListType(3, PrimitiveType(TypeKind::kInt), false))});
  floe::Schema file = {MakeField("id", Int64()), MakeField("tags", List(MakeField("element", String())))};
  auto failed = Reconcile(table, file, kUri, Options(IncompatiblePolicy::kQuarantine));
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.status().message(),
            "s3://b/x/part-0.parquet: column tags.element: table type int, file type string");
  ASSERT_OK_AND_ASSIGN(FileMapping m, Reconcile(table, file, kUri, Options(IncompatiblePolicy::kRescue)));
  EXPECT_EQ(m.rescued, (std::vector<std::string>{"tags"}));

  Column tags = MakeEmptyColumn(file[1].type);
  tags.children[0].AppendBytes("a");
  tags.children[0].AppendNull();
  tags.AppendListEnd();
  auto source = Batch(file, {Values<int64_t>(Int64(), {1}), tags});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source));
  EXPECT_EQ(c.batch.columns[2].StringAt(0), "{\"tags\":[\"a\",null]}");
  EXPECT_TRUE(c.batch.columns[1].IsNull(0));
}

TEST(ReconcileTest, RequiredTableColumnCannotBeRescued) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong), Col(2, "amount", TypeKind::kLong, true)});
  auto result = Reconcile(table, {MakeField("id", Int64()), MakeField("amount", String())}, kUri, Options());
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            "s3://b/x/part-0.parquet: column amount: table type long, file type string (the table requires "
            "column amount, so it cannot be rescued and the file cannot be written)");
}

TEST(ReconcileTest, RescuedDataAddedOnceAndReused) {
  auto table = TableSchema(
      {Col(1, "id", TypeKind::kLong), Col(2, "a", TypeKind::kLong), Col(3, "b", TypeKind::kLong)});
  ASSERT_OK_AND_ASSIGN(
      FileMapping first,
      Reconcile(table, {MakeField("id", Int64()), MakeField("a", String())}, "f1", Options()));
  ASSERT_OK_AND_ASSIGN(
      FileMapping second,
      Reconcile(table, {MakeField("id", Int64()), MakeField("b", Binary())}, "f2", Options()));
  ASSERT_OK_AND_ASSIGN(iceberg::Schema evolved,
                       EvolveSchema(table, 3, {first.evolution, second.evolution}, 2));
  ASSERT_EQ(evolved.fields.size(), 4u);
  EXPECT_EQ(evolved.fields[3].name, kRescuedDataColumn);
  EXPECT_EQ(evolved.fields[3].id, 4);
  EXPECT_EQ(evolved.fields[3].type, PrimitiveType(TypeKind::kString));
  // Once the table has it, rescuing adds nothing.
  ASSERT_OK_AND_ASSIGN(
      FileMapping third,
      Reconcile(evolved, {MakeField("id", Int64()), MakeField("a", String())}, "f3", Options()));
  EXPECT_TRUE(third.evolution.empty());
  EXPECT_EQ(third.rescued, (std::vector<std::string>{"a"}));
  // A non-string _rescued_data cannot take them.
  auto odd = TableSchema({Col(1, "a", TypeKind::kLong), Col(2, kRescuedDataColumn, TypeKind::kLong)});
  EXPECT_FALSE(Reconcile(odd, {MakeField("a", String())}, "f4", Options()).ok());
}

TEST(ReconcileTest, TwoFilesAddingTheSameColumn) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong)});
  ASSERT_OK_AND_ASSIGN(
      FileMapping narrow,
      Reconcile(table, {MakeField("id", Int64()), MakeField("n", Int32())}, "f1", Options()));
  ASSERT_OK_AND_ASSIGN(FileMapping wide, Reconcile(table, {MakeField("id", Int64()), MakeField("N", Int64())},
                                                   "f2", Options()));
  ASSERT_OK_AND_ASSIGN(iceberg::Schema evolved,
                       EvolveSchema(table, 1, {narrow.evolution, wide.evolution}, 2));
  ASSERT_EQ(evolved.fields.size(), 2u);
  EXPECT_EQ(evolved.fields[1].name, "n");
  EXPECT_EQ(evolved.fields[1].type, PrimitiveType(TypeKind::kLong));
  ASSERT_OK_AND_ASSIGN(iceberg::Schema reversed,
                       EvolveSchema(table, 1, {wide.evolution, narrow.evolution}, 2));
  EXPECT_EQ(reversed.fields[1].type, PrimitiveType(TypeKind::kLong));

  // Struct columns added by two files: members are merged.
  ASSERT_OK_AND_ASSIGN(
      FileMapping s1, Reconcile(table, {MakeField("s", Struct({MakeField("a", Int32())}))}, "f3", Options()));
  ASSERT_OK_AND_ASSIGN(FileMapping s2, Reconcile(table, {MakeField("s", Struct({MakeField("b", String())}))},
                                                 "f4", Options()));
  ASSERT_OK_AND_ASSIGN(iceberg::Schema merged, EvolveSchema(table, 1, {s1.evolution, s2.evolution}, 2));
  EXPECT_OK(merged.Validate());
  ASSERT_NE(merged.FindFieldByName("s.a"), nullptr);
  ASSERT_NE(merged.FindFieldByName("s.b"), nullptr);
  EXPECT_EQ(merged.HighestFieldId(), 4);

  ASSERT_OK_AND_ASSIGN(
      FileMapping text,
      Reconcile(table, {MakeField("id", Int64()), MakeField("n", String())}, "f5", Options()));
  auto clash = EvolveSchema(table, 1, {narrow.evolution, text.evolution}, 2);
  ASSERT_FALSE(clash.ok());
  EXPECT_EQ(clash.status().message(), "column n: files disagree on its type (int and string)");
}

TEST(ReconcileTest, CaseInsensitiveMatch) {
  auto table = TableSchema({Col(1, "Id", TypeKind::kLong), Col(2, "PublicID", TypeKind::kString)});
  auto source = Batch({MakeField("id", Int64()), MakeField("publicid", String())},
                      {Values<int64_t>(Int64(), {42}), Strings({"pc:1"})});
  ASSERT_OK_AND_ASSIGN(Conformed c, ReconcileAndConform(table, source));
  EXPECT_TRUE(c.mapping.evolution.empty());
  EXPECT_EQ(c.mapping.warnings.size(), 2u);
  EXPECT_EQ(c.batch.schema[0].name, "Id");
  EXPECT_EQ(c.batch.columns[0].Value<int64_t>(0), 42);
  EXPECT_EQ(c.batch.columns[1].StringAt(0), "pc:1");

  // Exact matches win; a second spelling of a taken column clashes.
  auto both = TableSchema({Col(1, "name", TypeKind::kString)});
  auto clash = Reconcile(both, {MakeField("NAME", String()), MakeField("name", String())}, kUri,
                         Options(IncompatiblePolicy::kFail));
  ASSERT_FALSE(clash.ok());
  EXPECT_NE(clash.status().message().find("column NAME: its name matches a table column only by case"),
            std::string::npos)
      << clash.status().message();
  EXPECT_FALSE(Reconcile(both, {MakeField("x", String()), MakeField("x", Int32())}, kUri, Options()).ok());
}

TEST(ReconcileTest, ListElementAndMapValuePromotion) {
  auto table =
      TableSchema({MakeNestedField(1, "l", iceberg::ListType(2, PrimitiveType(TypeKind::kInt), false)),
                   MakeNestedField(3, "m",
                                   iceberg::MapType(4, PrimitiveType(TypeKind::kInt), 5,
                                                    PrimitiveType(TypeKind::kFloat), false))});
  floe::Schema file = {MakeField("l", List(MakeField("item", Int64()))),
                       MakeField("m", Map(MakeField("key", Int32(), false), MakeField("value", Float64())))};
  ASSERT_OK_AND_ASSIGN(FileMapping m, Reconcile(table, file, kUri, Options(IncompatiblePolicy::kFail)));
  ASSERT_EQ(m.evolution.promoted.size(), 2u);
  EXPECT_EQ(m.evolution.promoted[0].name, "l.element");
  EXPECT_EQ(m.evolution.promoted[1].name, "m.value");
  ASSERT_OK_AND_ASSIGN(iceberg::Schema evolved, EvolveSchema(table, 5, {m.evolution}, 2));
  EXPECT_EQ(evolved.FindFieldByName("l.element")->type, PrimitiveType(TypeKind::kLong));
  EXPECT_EQ(evolved.FindFieldByName("m.value")->type, PrimitiveType(TypeKind::kDouble));

  Column l = MakeEmptyColumn(file[0].type);
  l.children[0].AppendValue<int64_t>(7);
  l.children[0].AppendValue<int64_t>(-8);
  l.AppendListEnd();
  l.AppendNull();
  Column mp = MakeEmptyColumn(file[1].type);
  mp.children[0].AppendValue<int32_t>(1);
  mp.children[1].AppendValue<double>(0.5);
  mp.AppendListEnd();
  mp.AppendListEnd();
  ASSERT_OK_AND_ASSIGN(RecordBatch out, ConformBatch(Batch(file, {l, mp}), m, evolved));
  ExpectValid(out);
  EXPECT_EQ(out.columns[0].children[0].Value<int64_t>(1), -8);
  EXPECT_TRUE(out.columns[0].IsNull(1));
  EXPECT_EQ(out.columns[1].children[1].Value<double>(0), 0.5);

  // A map key cannot be widened.
  floe::Schema wide_key = {
      MakeField("m", Map(MakeField("key", Int64(), false), MakeField("value", Float32())))};
  EXPECT_FALSE(Reconcile(table, wide_key, kUri, Options(IncompatiblePolicy::kFail)).ok());
}

TEST(EvolveSchemaTest, KeepsIdentifierFieldsAndValidates) {
  auto table = TableSchema({Col(1, "id", TypeKind::kLong, true), Col(2, "v", TypeKind::kInt)});
  table.identifier_field_ids = {1};
  SchemaEvolution evolution;
  evolution.promoted.push_back({"v", PrimitiveType(TypeKind::kInt), PrimitiveType(TypeKind::kLong)});
  evolution.added.push_back({"w", PrimitiveType(TypeKind::kString)});
  ASSERT_OK_AND_ASSIGN(iceberg::Schema evolved, EvolveSchema(table, 2, {evolution}, 2));
  EXPECT_EQ(evolved.identifier_field_ids, (std::vector<int32_t>{1}));
  EXPECT_EQ(evolved.fields[1].type, PrimitiveType(TypeKind::kLong));
  EXPECT_EQ(evolved.fields[2].id, 3);

  SchemaEvolution narrowing;
  narrowing.promoted.push_back({"v", PrimitiveType(TypeKind::kInt), PrimitiveType(TypeKind::kString)});
  EXPECT_FALSE(EvolveSchema(table, 2, {narrowing}, 2).ok());
  SchemaEvolution nowhere;
  nowhere.added.push_back({"x.y", PrimitiveType(TypeKind::kInt), {"x", "y"}});
  auto missing_parent = EvolveSchema(table, 2, {nowhere}, 2);
  ASSERT_FALSE(missing_parent.ok());
  EXPECT_EQ(missing_parent.status().message(), "column x.y: x is not in the table schema");
  SchemaEvolution v3_only;
  v3_only.added.push_back({"t", PrimitiveType(TypeKind::kTimestampNs)});
  EXPECT_FALSE(EvolveSchema(table, 2, {v3_only}, 2).ok());
  EXPECT_OK(EvolveSchema(table, 2, {v3_only}, 3));
}

}  // namespace
}  // namespace floe::ingest
