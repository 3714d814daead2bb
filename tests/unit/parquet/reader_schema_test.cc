// Schema mapping: Parquet schema trees to floe schemas and level plans,
// including the LIST/MAP backward-compatibility rules of LogicalTypes.md.
#include <gtest/gtest.h>

#include "formats/parquet/schema.h"
#include "test_util.h"

namespace floe::parquet {
namespace {

SchemaElement Group(std::string name, int children, FieldRepetitionType rep = FieldRepetitionType::OPTIONAL,
                    std::optional<ConvertedType> converted = std::nullopt) {
  SchemaElement e;
  e.name = std::move(name);
  e.num_children = children;
  e.repetition_type = rep;
  e.converted_type = converted;
  return e;
}

SchemaElement Leaf(std::string name, Type type, FieldRepetitionType rep = FieldRepetitionType::OPTIONAL) {
  SchemaElement e;
  e.name = std::move(name);
  e.type = type;
  e.repetition_type = rep;
  return e;
}

SchemaElement Root(int children) {
  SchemaElement e;
  e.name = "schema";
  e.num_children = children;
  return e;
}

constexpr auto kRequired = FieldRepetitionType::REQUIRED;
constexpr auto kOptional = FieldRepetitionType::OPTIONAL;
constexpr auto kRepeated = FieldRepetitionType::REPEATED;

TEST(ParquetSchemaTest, PrimitiveAnnotationsMapToFloeTypes) {
  std::vector<SchemaElement> elements = {Root(8)};
  auto add = [&](SchemaElement e) { elements.push_back(std::move(e)); };
  SchemaElement i8 = Leaf("i8", Type::INT32);
  i8.converted_type = ConvertedType::INT_8;
  add(i8);
  SchemaElement u64 = Leaf("u64", Type::INT64, kRequired);
  u64.logical_type = LogicalType{};
  u64.logical_type->kind = LogicalType::INTEGER;
  u64.logical_type->bit_width = 64;
  u64.logical_type->is_signed = false;
  add(u64);
  SchemaElement dec = Leaf("dec", Type::FIXED_LEN_BYTE_ARRAY);
  dec.type_length = 9;
  dec.converted_type = ConvertedType::DECIMAL;
  dec.precision = 20;
  dec.scale = 2;
  add(dec);
  SchemaElement ts = Leaf("ts", Type::INT64);
  ts.converted_type = ConvertedType::TIMESTAMP_MILLIS;
  add(ts);
  add(Leaf("legacy", Type::INT96));
  SchemaElement str = Leaf("s", Type::BYTE_ARRAY);
  str.converted_type = ConvertedType::UTF8;
  add(str);
  SchemaElement uuid = Leaf("u", Type::FIXED_LEN_BYTE_ARRAY);
  uuid.type_length = 16;
  uuid.logical_type = LogicalType{};
  uuid.logical_type->kind = LogicalType::UUID;
  add(uuid);
  SchemaElement unknown = Leaf("future", Type::BYTE_ARRAY);
  unknown.logical_type = LogicalType{};
  unknown.logical_type->kind = 99;  // a logical type this version does not know
  add(unknown);

  ASSERT_OK_AND_ASSIGN(ParquetSchema schema, BuildParquetSchema(elements));
  ASSERT_EQ(schema.schema.size(), 8u);
  EXPECT_EQ(schema.schema[0].type, Int8());
  EXPECT_EQ(schema.schema[1].type, UInt64());
  EXPECT_FALSE(schema.schema[1].nullable);
  EXPECT_EQ(schema.schema[2].type, Decimal(20, 2));
  EXPECT_EQ(schema.schema[3].type, Timestamp(TimeUnit::kMilli, true));
  EXPECT_EQ(schema.schema[4].type.id, TypeId::kTimestamp);
  EXPECT_EQ(schema.schema[4].type.annotation, DataType::Annotation::kInt96);
  EXPECT_EQ(schema.schema[5].type, String());
  EXPECT_EQ(schema.schema[6].type, Uuid());
  EXPECT_EQ(schema.schema[7].type, Binary());
  EXPECT_EQ(schema.leaves[0].max_def_level, 1);
  EXPECT_EQ(schema.leaves[1].max_def_level, 0);
}

TEST(ParquetSchemaTest, UnsupportedTypesNameTheColumn) {
  SchemaElement dec = Leaf("wide", Type::FIXED_LEN_BYTE_ARRAY);
  dec.type_length = 20;
  dec.converted_type = ConvertedType::DECIMAL;
  dec.precision = 45;
  auto result = BuildParquetSchema({Root(1), dec});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kNotSupported);
  EXPECT_NE(result.status().message().find("wide"), std::string::npos);

  SchemaElement geo = Leaf("shape", Type::BYTE_ARRAY);
  geo.logical_type = LogicalType{};
  geo.logical_type->kind = LogicalType::GEOMETRY;
  result = BuildParquetSchema({Root(1), geo});
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("not supported: variant/geospatial"), std::string::npos);
}

TEST(ParquetSchemaTest, StandardThreeLevelList) {
  // optional group l (LIST) { repeated group list { optional int32 element; } }
  auto result = BuildParquetSchema({Root(1), Group("l", 1, kOptional, ConvertedType::LIST),
                                    Group("list", 1, kRepeated), Leaf("element", Type::INT32, kOptional)});
  ASSERT_OK(result.status());
  const ParquetSchema& schema = *result;
  EXPECT_EQ(schema.schema[0].type, List(MakeField("element", Int32(), true)));
  EXPECT_EQ(schema.leaves[0].max_def_level, 3);
  EXPECT_EQ(schema.leaves[0].max_rep_level, 1);
  const LevelNode& list = schema.assembly[0];
  EXPECT_EQ(list.kind, LevelNode::Kind::kList);
  EXPECT_EQ(list.valid_def, 1);
  EXPECT_EQ(list.children[0].slot_def, 2);
  EXPECT_EQ(list.children[0].rep_level, 1);
  EXPECT_EQ(list.children[0].valid_def, 3);
}

TEST(ParquetSchemaTest, LegacyListsFollowBackwardCompatibilityRules) {
  // Rule 1: repeated primitive inside a LIST group: required elements.
  auto two_level = BuildParquetSchema(
      {Root(1), Group("l", 1, kOptional, ConvertedType::LIST), Leaf("element", Type::INT32, kRepeated)});
  ASSERT_OK(two_level.status());
  EXPECT_EQ(two_level->schema[0].type, List(MakeField("element", Int32(), false)));
  EXPECT_EQ(two_level->leaves[0].max_def_level, 2);

  // Rule 2: repeated group with two fields is the element (a struct).
  auto multi =
      BuildParquetSchema({Root(1), Group("l", 1, kOptional, ConvertedType::LIST), Group("pair", 2, kRepeated),
                          Leaf("a", Type::INT32, kRequired), Leaf("b", Type::INT32, kOptional)});
  ASSERT_OK(multi.status());
  ASSERT_EQ(multi->schema[0].type.id, TypeId::kList);
  EXPECT_EQ(multi->schema[0].type.children[0].type.id, TypeId::kStruct);
  EXPECT_FALSE(multi->schema[0].type.children[0].nullable);

  // Rule 3: a one-field repeated group named "array" or "<name>_tuple" is the element.
  for (const char* name : {"array", "l_tuple"}) {
    auto named = BuildParquetSchema({Root(1), Group("l", 1, kOptional, ConvertedType::LIST),
                                     Group(name, 1, kRepeated), Leaf("x", Type::INT32, kRequired)});
    ASSERT_OK(named.status());
    const DataType& element = named->schema[0].type.children[0].type;
    EXPECT_EQ(element.id, TypeId::kStruct) << name;
  }

  // A repeated field outside any LIST: a required list of required elements.
  auto bare = BuildParquetSchema({Root(1), Leaf("r", Type::INT64, kRepeated)});
  ASSERT_OK(bare.status());
  EXPECT_EQ(bare->schema[0].type, List(MakeField("element", Int64(), false)));
  EXPECT_FALSE(bare->schema[0].nullable);
  EXPECT_EQ(bare->leaves[0].max_def_level, 1);
  EXPECT_EQ(bare->leaves[0].max_rep_level, 1);
}

TEST(ParquetSchemaTest, MapsIncludingLegacyAnnotationAndMissingValues) {
  auto map = BuildParquetSchema({Root(1), Group("m", 1, kOptional, ConvertedType::MAP),
                                 Group("key_value", 2, kRepeated, ConvertedType::MAP_KEY_VALUE),
                                 Leaf("key", Type::INT32, kRequired), Leaf("value", Type::INT32, kOptional)});
  ASSERT_OK(map.status());
  EXPECT_EQ(map->schema[0].type, Map(MakeField("key", Int32(), false), MakeField("value", Int32(), true)));
  EXPECT_EQ(map->assembly[0].kind, LevelNode::Kind::kMap);

  // Only the repeated group carries MAP_KEY_VALUE (legacy writers).
  auto legacy = BuildParquetSchema(
      {Root(1), Group("m", 1, kOptional), Group("map", 2, kRepeated, ConvertedType::MAP_KEY_VALUE),
       Leaf("key", Type::INT32, kRequired), Leaf("value", Type::INT32, kOptional)});
  ASSERT_OK(legacy.status());
  EXPECT_EQ(legacy->schema[0].type.id, TypeId::kMap);

  // A map without values reads as the list of its keys.
  auto keys_only =
      BuildParquetSchema({Root(1), Group("m", 1, kRequired, ConvertedType::MAP),
                          Group("key_value", 1, kRepeated), Leaf("key", Type::INT32, kRequired)});
  ASSERT_OK(keys_only.status());
  EXPECT_EQ(keys_only->schema[0].type, List(MakeField("key", Int32(), false)));
}

TEST(ParquetSchemaTest, MalformedTreesAreCorruption) {
  EXPECT_EQ(BuildParquetSchema({}).status().kind(), ErrorKind::kCorruption);
  // The root claims more children than there are elements.
  EXPECT_EQ(BuildParquetSchema({Root(3), Leaf("a", Type::INT32)}).status().kind(), ErrorKind::kCorruption);
  // Elements left over after the root's children.
  EXPECT_EQ(BuildParquetSchema({Root(1), Leaf("a", Type::INT32), Leaf("b", Type::INT32)}).status().kind(),
            ErrorKind::kCorruption);
  // A LIST group whose child is not repeated.
  EXPECT_EQ(BuildParquetSchema({Root(1), Group("l", 1, kOptional, ConvertedType::LIST),
                                Leaf("element", Type::INT32, kOptional)})
                .status()
                .kind(),
            ErrorKind::kCorruption);
  // Nesting deeper than the limit does not recurse without bound.
  std::vector<SchemaElement> deep = {Root(1)};
  for (int i = 0; i < 1000; ++i) deep.push_back(Group("g", 1));
  deep.push_back(Leaf("x", Type::INT32));
  EXPECT_EQ(BuildParquetSchema(deep).status().kind(), ErrorKind::kCorruption);
}

}  // namespace
}  // namespace floe::parquet
