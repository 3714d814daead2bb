// Iceberg types: Appendix C JSON, floe conversion and promotion rules.
#include "iceberg/spec/types.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::iceberg {
namespace {

Type Parse(const std::string& json_text) {
  auto json = ParseJson(json_text);
  EXPECT_TRUE(json.ok()) << json.status().ToString();
  auto type = TypeFromJson(*json);
  EXPECT_TRUE(type.ok()) << type.status().ToString();
  return type.ok() ? *type : Type();
}

TEST(Types, PrimitiveNames) {
  for (const char* name : {"boolean", "int", "long", "float", "double", "date", "time", "timestamp",
                           "timestamptz", "timestamp_ns", "timestamptz_ns", "string", "uuid", "binary",
                           "unknown", "decimal(9,2)", "fixed[16]"}) {
    ASSERT_OK_AND_ASSIGN(Type t, ParsePrimitiveType(name));
    EXPECT_EQ(t.ToString(), name);
    EXPECT_EQ(TypeToJson(t), OrderedJson(name));
  }
  ASSERT_OK_AND_ASSIGN(Type spaced, ParsePrimitiveType("decimal(10, 2)"));
  EXPECT_EQ(spaced, DecimalType(10, 2));
  ASSERT_OK_AND_ASSIGN(Type upper, ParsePrimitiveType("LONG"));
  EXPECT_EQ(upper.kind, TypeKind::kLong);
}

TEST(Types, BadPrimitiveNames) {
  for (const char* name : {"integer", "decimal(0,0)", "decimal(39,2)", "decimal(9)", "decimal(a,b)",
                           "fixed[0]", "fixed[]", "fixed[-1]", "", "list"}) {
    auto t = ParsePrimitiveType(name);
    EXPECT_FALSE(t.ok()) << name;
    EXPECT_EQ(t.status().kind(), ErrorKind::kCorruption) << name;
  }
}

TEST(Types, NestedJsonRoundTrip) {
  const std::string text = R"json({
    "type": "struct",
    "fields": [
      {"id": 1, "name": "id", "required": true, "type": "uuid",
       "initial-default": "0db3e2a8-9d1d-42b9-aa7b-74ebe558dceb", "doc": "key"},
      {"id": 2, "name": "tags", "required": false,
       "type": {"type": "list", "element-id": 3, "element-required": true, "element": "string"}},
      {"id": 4, "name": "props", "required": false,
       "type": {"type": "map", "key-id": 5, "key": "string", "value-id": 6, "value-required": false,
                "value": {"type": "struct", "fields": [{"id": 7, "name": "x", "required": false, "type": "decimal(9, 2)"}]}}}
    ]})json";
  Type t = Parse(text);
  ASSERT_EQ(t.kind, TypeKind::kStruct);
  ASSERT_EQ(t.fields.size(), 3u);
  EXPECT_EQ(t.fields[0].doc, "key");
  ASSERT_TRUE(t.fields[0].initial_default.has_value());
  EXPECT_EQ(*t.fields[0].initial_default, Json("0db3e2a8-9d1d-42b9-aa7b-74ebe558dceb"));
  const Type& list = t.fields[1].type;
  EXPECT_EQ(list.kind, TypeKind::kList);
  EXPECT_EQ(list.element().id, 3);
  EXPECT_TRUE(list.element().required);
  const Type& map = t.fields[2].type;
  EXPECT_EQ(map.key().id, 5);
  EXPECT_TRUE(map.key().required);
  EXPECT_EQ(map.value().id, 6);
  EXPECT_FALSE(map.value().required);
  EXPECT_EQ(map.value().type.fields[0].type, DecimalType(9, 2));
  // Serialize and parse again: same type, and the JSON uses Appendix C member names.
  Json written = TypeToJson(t);
  EXPECT_EQ(written["fields"][1]["type"]["element-id"], 3);
  EXPECT_EQ(written["fields"][2]["type"]["value-required"], false);
  EXPECT_EQ(written["fields"][2]["type"]["value"]["fields"][0]["type"], "decimal(9,2)");
  ASSERT_OK_AND_ASSIGN(Type again, TypeFromJson(written));
  EXPECT_EQ(again, t);
  EXPECT_EQ(MinFormatVersion(t), 3);  // because of the default value
}

TEST(Types, JsonErrorsNameTheProblem) {
  auto missing = TypeFromJson(Json::parse(R"({"type":"list","element":"int","element-required":true})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("element-id"), std::string::npos);
  auto bad_field = TypeFromJson(
      Json::parse(R"({"type":"struct","fields":[{"id":1,"name":"a","required":"yes","type":"int"}]})"));
  ASSERT_FALSE(bad_field.ok());
  EXPECT_NE(bad_field.status().message().find("'a'"), std::string::npos);
  EXPECT_NE(bad_field.status().message().find("required"), std::string::npos);
  EXPECT_FALSE(TypeFromJson(Json::parse(R"({"type":"variantish"})")).ok());
  EXPECT_FALSE(TypeFromJson(Json::parse("42")).ok());
  EXPECT_FALSE(
      TypeFromJson(
          Json::parse(R"({"type":"struct","fields":[{"id":1.5,"name":"a","required":true,"type":"int"}]})"))
          .ok());
}

TEST(Types, DeepNestingIsRejectedNotRecursedForever) {
  std::string text = "\"int\"";
  for (int i = 0; i < 200; ++i) {
    text = R"({"type":"list","element-id":1,"element-required":true,"element":)" + text + "}";
  }
  auto t = TypeFromJson(Json::parse(text));
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("deeper"), std::string::npos);
}

TEST(Types, DeeplyNestedDefaultValueIsRejected) {
  std::string deep(10000, '[');
  deep += std::string(10000, ']');
  auto json =
      ParseJson(R"({"id":1,"name":"a","required":false,"type":"int","initial-default":)" + deep + "}");
  ASSERT_OK(json);
  auto field = NestedFieldFromJson(*json);
  ASSERT_FALSE(field.ok());
  EXPECT_NE(field.status().message().find("initial-default"), std::string::npos);
}

TEST(Types, ToFloeKeepsIdsAndUnits) {
  Type t = StructType(
      {MakeNestedField(1, "ts", PrimitiveType(TypeKind::kTimestampTz), true),
       MakeNestedField(2, "tags", ListType(3, PrimitiveType(TypeKind::kString), false)),
       MakeNestedField(4, "m", MapType(5, PrimitiveType(TypeKind::kInt), 6, DecimalType(10, 2), true)),
       MakeNestedField(7, "u", PrimitiveType(TypeKind::kUuid)), MakeNestedField(8, "f", FixedType(3)),
       MakeNestedField(9, "nanos", PrimitiveType(TypeKind::kTimestampNs))});
  ASSERT_OK_AND_ASSIGN(DataType floe, ToFloeType(t));
  ASSERT_EQ(floe.children.size(), 6u);
  EXPECT_EQ(floe.children[0].type, Timestamp(TimeUnit::kMicro, true));
  EXPECT_FALSE(floe.children[0].nullable);
  EXPECT_EQ(floe.children[0].field_id, 1);
  EXPECT_EQ(floe.children[1].type.children[0].field_id, 3);
  EXPECT_TRUE(floe.children[1].type.children[0].nullable);
  EXPECT_EQ(floe.children[2].type.children[0].field_id, 5);
  EXPECT_EQ(floe.children[2].type.children[1].type, Decimal(10, 2));
  EXPECT_FALSE(floe.children[2].type.children[1].nullable);
  EXPECT_EQ(floe.children[3].type.id, TypeId::kUuid);
  EXPECT_EQ(floe.children[4].type, FixedBinary(3));
  EXPECT_EQ(floe.children[5].type, Timestamp(TimeUnit::kNano, false));

  ASSERT_OK_AND_ASSIGN(Type back, FromFloeType(floe, 3));
  EXPECT_EQ(back, t);
  EXPECT_EQ(ToFloeType(PrimitiveType(TypeKind::kUnknown)).status().kind(), ErrorKind::kNotSupported);
}

TEST(Types, FromFloeWidensAndChecks) {
  ASSERT_OK_AND_ASSIGN(Type i16, FromFloeType(Int16(), 2));
  EXPECT_EQ(i16.kind, TypeKind::kInt);
  ASSERT_OK_AND_ASSIGN(Type u32, FromFloeType(UInt32(), 2));
  EXPECT_EQ(u32.kind, TypeKind::kLong);
  ASSERT_OK_AND_ASSIGN(Type millis, FromFloeType(Timestamp(TimeUnit::kMilli, false), 2));
  EXPECT_EQ(millis.kind, TypeKind::kTimestamp);
  EXPECT_EQ(FromFloeType(Timestamp(TimeUnit::kNano, true), 2).status().kind(), ErrorKind::kNotSupported);
  EXPECT_EQ(FromFloeType(UInt64(), 2).status().kind(), ErrorKind::kNotSupported);
  // Nested fields need ids unless a counter is given.
  DataType list = List(MakeField("element", String()));
  EXPECT_EQ(FromFloeType(list, 2).status().kind(), ErrorKind::kInvalidArgument);
  int32_t next_id = 10;
  ASSERT_OK_AND_ASSIGN(Type with_ids, FromFloeType(list, 2, &next_id));
  EXPECT_EQ(with_ids.element().id, 10);
  EXPECT_EQ(next_id, 11);
}

TEST(Types, Promotion) {
  const Type int_t = PrimitiveType(TypeKind::kInt);
  const Type long_t = PrimitiveType(TypeKind::kLong);
  EXPECT_TRUE(CanPromote(int_t, long_t));
  EXPECT_FALSE(CanPromote(long_t, int_t));
  EXPECT_TRUE(CanPromote(PrimitiveType(TypeKind::kFloat), PrimitiveType(TypeKind::kDouble)));
  EXPECT_FALSE(CanPromote(PrimitiveType(TypeKind::kDouble), PrimitiveType(TypeKind::kFloat)));
  EXPECT_TRUE(CanPromote(DecimalType(9, 2), DecimalType(18, 2)));
  EXPECT_FALSE(CanPromote(DecimalType(9, 2), DecimalType(18, 3)));
  EXPECT_FALSE(CanPromote(DecimalType(18, 2), DecimalType(9, 2)));
  EXPECT_FALSE(CanPromote(PrimitiveType(TypeKind::kDate), PrimitiveType(TypeKind::kTimestamp), 2));
  EXPECT_TRUE(CanPromote(PrimitiveType(TypeKind::kDate), PrimitiveType(TypeKind::kTimestamp), 3));
  EXPECT_TRUE(CanPromote(PrimitiveType(TypeKind::kDate), PrimitiveType(TypeKind::kTimestampNs), 3));
  EXPECT_FALSE(CanPromote(PrimitiveType(TypeKind::kDate), PrimitiveType(TypeKind::kTimestampTz), 3));
  EXPECT_TRUE(CanPromote(long_t, long_t));
  EXPECT_FALSE(CanPromote(int_t, PrimitiveType(TypeKind::kString)));
}

}  // namespace
}  // namespace floe::iceberg
