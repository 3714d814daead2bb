// Record assembly from definition/repetition levels into nested columns.
#include <gtest/gtest.h>

#include "formats/parquet/reader/record_assembler.h"
#include "formats/parquet/schema.h"
#include "test_util.h"

namespace floe::parquet {
namespace {

constexpr auto kRequired = FieldRepetitionType::REQUIRED;
constexpr auto kOptional = FieldRepetitionType::OPTIONAL;
constexpr auto kRepeated = FieldRepetitionType::REPEATED;

SchemaElement Element(std::string name, std::optional<Type> type, FieldRepetitionType rep, int children = 0,
                      std::optional<ConvertedType> converted = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = rep;
  if (!type) e.num_children = children;
  e.converted_type = converted;
  return e;
}

SchemaElement Root(int children) {
  SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}

LeafData Int32Leaf(std::vector<int16_t> defs, std::vector<int16_t> reps, std::vector<int32_t> values) {
  LeafData leaf;
  leaf.num_levels = static_cast<int64_t>(std::max(defs.size(), reps.size()));
  leaf.def_levels = std::move(defs);
  leaf.rep_levels = std::move(reps);
  leaf.values = Column(Int32());
  for (int32_t v : values) leaf.values.AppendValue(v);
  leaf.values.length = static_cast<int64_t>(values.size());
  return leaf;
}

TEST(RecordAssemblyTest, OptionalListOfOptionalInts) {
  ASSERT_OK_AND_ASSIGN(
      ParquetSchema schema,
      BuildParquetSchema({Root(1), Element("l", std::nullopt, kOptional, 1, ConvertedType::LIST),
                          Element("list", std::nullopt, kRepeated, 1),
                          Element("element", Type::INT32, kOptional)}));
  // Rows: [1, null], null, [], [3]
  std::vector<LeafData> leaves;
  leaves.push_back(Int32Leaf({3, 2, 0, 1, 3}, {0, 1, 0, 0, 0}, {1, 3}));
  ASSERT_OK_AND_ASSIGN(Column column, AssembleField(schema.schema[0], schema.assembly[0], &leaves, 0));
  EXPECT_EQ(column.Validate(), "");
  ASSERT_EQ(column.length, 4);
  EXPECT_EQ(column.offsets, (std::vector<int64_t>{0, 2, 2, 2, 3}));
  EXPECT_TRUE(column.IsValid(0));
  EXPECT_TRUE(column.IsNull(1));
  EXPECT_TRUE(column.IsValid(2));
  const Column& element = column.children[0];
  ASSERT_EQ(element.length, 3);
  EXPECT_EQ(element.Value<int32_t>(0), 1);
  EXPECT_TRUE(element.IsNull(1));
  EXPECT_EQ(element.Value<int32_t>(2), 3);
}

TEST(RecordAssemblyTest, OptionalStructWithNullsAtEveryLevel) {
  ASSERT_OK_AND_ASSIGN(
      ParquetSchema schema,
      BuildParquetSchema({Root(1), Element("s", std::nullopt, kOptional, 2),
                          Element("a", Type::INT32, kOptional), Element("b", Type::INT32, kRequired)}));
  // Rows: {a: 1, b: 2}, null, {a: null, b: 3}
  std::vector<LeafData> leaves;
  leaves.push_back(Int32Leaf({2, 0, 1}, {}, {1}));
  leaves.push_back(Int32Leaf({1, 0, 1}, {}, {2, 3}));
  ASSERT_OK_AND_ASSIGN(Column column, AssembleField(schema.schema[0], schema.assembly[0], &leaves, 0));
  EXPECT_EQ(column.Validate(), "");
  ASSERT_EQ(column.length, 3);
  EXPECT_EQ(column.null_count, 1);
  EXPECT_TRUE(column.IsNull(1));
  EXPECT_EQ(column.children[0].Value<int32_t>(0), 1);
  EXPECT_TRUE(column.children[0].IsNull(2));
  EXPECT_EQ(column.children[1].Value<int32_t>(0), 2);
  EXPECT_EQ(column.children[1].Value<int32_t>(2), 3);
}

TEST(RecordAssemblyTest, MapOfListValues) {
  // optional group m (MAP) { repeated group key_value { required int32 key;
  //   optional group value (LIST) { repeated group list { required int32 element; } } } }
  ASSERT_OK_AND_ASSIGN(
      ParquetSchema schema,
      BuildParquetSchema(
          {Root(1), Element("m", std::nullopt, kOptional, 1, ConvertedType::MAP),
           Element("key_value", std::nullopt, kRepeated, 2), Element("key", Type::INT32, kRequired),
           Element("value", std::nullopt, kOptional, 1, ConvertedType::LIST),
           Element("list", std::nullopt, kRepeated, 1), Element("element", Type::INT32, kRequired)}));
  ASSERT_EQ(schema.leaves[1].max_def_level, 4);
  ASSERT_EQ(schema.leaves[1].max_rep_level, 2);
  // Rows: {1: [10, 11], 2: null}, null, {}
  std::vector<LeafData> leaves;
  leaves.push_back(Int32Leaf({2, 2, 0, 1}, {0, 1, 0, 0}, {1, 2}));
  leaves.push_back(Int32Leaf({4, 4, 2, 0, 1}, {0, 2, 1, 0, 0}, {10, 11}));
  ASSERT_OK_AND_ASSIGN(Column column, AssembleField(schema.schema[0], schema.assembly[0], &leaves, 0));
  EXPECT_EQ(column.Validate(), "");
  EXPECT_EQ(column.offsets, (std::vector<int64_t>{0, 2, 2, 2}));
  EXPECT_TRUE(column.IsNull(1));
  const Column& values = column.children[1];
  EXPECT_EQ(values.offsets, (std::vector<int64_t>{0, 2, 2}));
  EXPECT_TRUE(values.IsNull(1));
  EXPECT_EQ(values.children[0].Value<int32_t>(1), 11);
}

TEST(RecordAssemblyTest, LeavesThatDisagreeAreCorruption) {
  ASSERT_OK_AND_ASSIGN(
      ParquetSchema schema,
      BuildParquetSchema({Root(1), Element("s", std::nullopt, kOptional, 2),
                          Element("a", Type::INT32, kOptional), Element("b", Type::INT32, kOptional)}));
  std::vector<LeafData> leaves;
  leaves.push_back(Int32Leaf({2, 2, 2}, {}, {1, 2, 3}));
  leaves.push_back(Int32Leaf({2, 2}, {}, {1, 2}));
  auto result = AssembleField(schema.schema[0], schema.assembly[0], &leaves, 0);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kCorruption);

  // Levels announcing more values than were decoded.
  ASSERT_OK_AND_ASSIGN(ParquetSchema flat,
                       BuildParquetSchema({Root(1), Element("x", Type::INT32, kOptional)}));
  std::vector<LeafData> short_values;
  short_values.push_back(Int32Leaf({1, 1, 1}, {}, {7}));
  EXPECT_EQ(AssembleField(flat.schema[0], flat.assembly[0], &short_values, 0).status().kind(),
            ErrorKind::kCorruption);

  // A list whose first level continues a list that never started.
  ASSERT_OK_AND_ASSIGN(ParquetSchema list,
                       BuildParquetSchema({Root(1), Element("r", Type::INT32, kRepeated)}));
  std::vector<LeafData> bad_start;
  bad_start.push_back(Int32Leaf({1, 1}, {1, 0}, {1, 2}));
  EXPECT_EQ(AssembleField(list.schema[0], list.assembly[0], &bad_start, 0).status().kind(),
            ErrorKind::kCorruption);
}

}  // namespace
}  // namespace floe::parquet
