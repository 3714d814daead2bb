// Schema lookups, validation and JSON.
#include "iceberg/spec/schema.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::iceberg {
namespace {

Schema NestedSchema() {
  Schema s;
  s.schema_id = 3;
  s.identifier_field_ids = {1};
  s.fields = {
      MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true),
      MakeNestedField(2, "location",
                      StructType({MakeNestedField(5, "lat", PrimitiveType(TypeKind::kDouble)),
                                  MakeNestedField(6, "long", PrimitiveType(TypeKind::kDouble))})),
      MakeNestedField(3, "tags", ListType(7, PrimitiveType(TypeKind::kString), true)),
      MakeNestedField(4, "props",
                      MapType(8, PrimitiveType(TypeKind::kString), 9, PrimitiveType(TypeKind::kInt), false)),
      MakeNestedField(10, "a.b", PrimitiveType(TypeKind::kString)),
  };
  return s;
}

TEST(Schema, FindById) {
  Schema s = NestedSchema();
  ASSERT_NE(s.FindFieldById(6), nullptr);
  EXPECT_EQ(s.FindFieldById(6)->name, "long");
  EXPECT_EQ(s.FindFieldById(7)->name, "element");
  EXPECT_EQ(s.FindFieldById(99), nullptr);
  EXPECT_EQ(s.FindNameById(6), "location.long");
  EXPECT_EQ(s.FindNameById(9), "props.value");
  EXPECT_EQ(s.HighestFieldId(), 10);
  EXPECT_EQ(s.IndexById().size(), 10u);
  EXPECT_EQ(s.IndexByName().count("tags.element"), 1u);
}

TEST(Schema, FindByDottedName) {
  Schema s = NestedSchema();
  ASSERT_NE(s.FindFieldByName("location.lat"), nullptr);
  EXPECT_EQ(s.FindFieldByName("location.lat")->id, 5);
  EXPECT_EQ(s.FindFieldByName("tags.element")->id, 7);
  EXPECT_EQ(s.FindFieldByName("props.key")->id, 8);
  EXPECT_EQ(s.FindFieldByName("a.b")->id, 10);  // a top-level name containing a dot
  EXPECT_EQ(s.FindFieldByName("id")->id, 1);
  EXPECT_EQ(s.FindFieldByName("location.alt"), nullptr);
  EXPECT_EQ(s.FindFieldByName("loc"), nullptr);
  EXPECT_EQ(s.FindFieldByName(""), nullptr);
}

TEST(Schema, FindByShortNameThroughListAndMapStructs) {
  Schema s;
  s.fields = {
      MakeNestedField(
          1, "points",
          ListType(2, StructType({MakeNestedField(3, "x", PrimitiveType(TypeKind::kInt))}), true)),
      MakeNestedField(4, "by_name",
                      MapType(5, PrimitiveType(TypeKind::kString), 6,
                              StructType({MakeNestedField(7, "y", PrimitiveType(TypeKind::kInt))}), true)),
  };
  ASSERT_OK(s.Validate());
  EXPECT_EQ(s.FindFieldByName("points.element.x")->id, 3);
  EXPECT_EQ(s.FindFieldByName("points.x")->id, 3);
  EXPECT_EQ(s.FindFieldByName("by_name.value.y")->id, 7);
  EXPECT_EQ(s.FindFieldByName("by_name.y")->id, 7);
  EXPECT_EQ(s.FindFieldByName("points.z"), nullptr);
}

TEST(Schema, ValidationCatchesDuplicates) {
  EXPECT_OK(NestedSchema().Validate());
  Schema dup_id = NestedSchema();
  dup_id.fields[4].id = 5;
  EXPECT_EQ(dup_id.Validate().kind(), ErrorKind::kCorruption);
  EXPECT_NE(dup_id.Validate().message().find("field id 5"), std::string::npos);
  Schema dup_name = NestedSchema();
  dup_name.fields[4].name = "id";
  EXPECT_NE(dup_name.Validate().message().find("duplicate field name 'id'"), std::string::npos);
  // The same name under different parents is fine.
  Schema nested_same = NestedSchema();
  nested_same.fields[1].type.fields[0].name = "id";
  EXPECT_OK(nested_same.Validate());
  Schema bad_identifier = NestedSchema();
  bad_identifier.identifier_field_ids = {5};  // optional double
  EXPECT_FALSE(bad_identifier.Validate().ok());
  bad_identifier.identifier_field_ids = {42};
  EXPECT_FALSE(bad_identifier.Validate().ok());
}

TEST(Schema, JsonRoundTrip) {
  Schema s = NestedSchema();
  Json json = SchemaToJson(s);
  EXPECT_EQ(json["schema-id"], 3);
  EXPECT_EQ(json["type"], "struct");
  EXPECT_EQ(json["identifier-field-ids"], Json::array({1}));
  ASSERT_OK_AND_ASSIGN(Schema back, SchemaFromJson(json));
  EXPECT_EQ(back, s);
}

TEST(Schema, JsonErrors) {
  auto dup = SchemaFromJson(Json::parse(
      R"({"type":"struct","schema-id":0,"fields":[{"id":1,"name":"a","required":true,"type":"int"},
                                                  {"id":1,"name":"b","required":true,"type":"int"}]})"));
  EXPECT_EQ(dup.status().kind(), ErrorKind::kCorruption);
  auto missing = SchemaFromJson(Json::parse(R"({"type":"struct","schema-id":0})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("fields"), std::string::npos);
  EXPECT_FALSE(SchemaFromJson(Json::parse(R"({"type":"list","fields":[]})")).ok());
  EXPECT_FALSE(SchemaFromJson(Json::parse("[]")).ok());
}

TEST(Schema, FloeRoundTrip) {
  Schema s = NestedSchema();
  ASSERT_OK_AND_ASSIGN(floe::Schema floe, ToFloeSchema(s));
  ASSERT_EQ(floe.size(), 5u);
  EXPECT_EQ(floe[1].type.children[1].field_id, 6);
  ASSERT_OK_AND_ASSIGN(Schema back, FromFloeSchema(floe, 2));
  EXPECT_EQ(back.fields, s.fields);
}

}  // namespace
}  // namespace floe::iceberg
