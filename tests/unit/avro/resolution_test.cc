#include "formats/avro/resolution.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::avro {
namespace {

AvroSchema Schema(const std::string& json) {
  auto schema = AvroSchema::Parse(json);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  return *schema;
}

Result<AvroValue> Project(const std::string& writer, const std::string& reader, const AvroValue& value) {
  FLOE_ASSIGN_OR_RETURN(AvroProjection projection, AvroProjection::Make(Schema(writer), Schema(reader)));
  AvroValue out;
  FLOE_RETURN_IF_ERROR(projection.Project(value, &out));
  return out;
}

TEST(AvroProjectionTest, MatchesFieldsByIdAcrossReorderRenameAndPromotion) {
  const std::string writer = R"({"type":"record","name":"w","fields":[)"
                             R"({"name":"old_name","type":"int","field-id":1},)"
                             R"({"name":"count","type":"int","field-id":2},)"
                             R"({"name":"dropped","type":"string","field-id":3},)"
                             R"({"name":"ratio","type":"float","field-id":4}]})";
  const std::string reader = R"({"type":"record","name":"r","fields":[)"
                             R"({"name":"ratio","type":"double","field-id":4},)"
                             R"({"name":"count","type":"long","field-id":2},)"
                             R"({"name":"new_name","type":"int","field-id":1},)"
                             R"({"name":"added","type":["null","long"],"field-id":5},)"
                             R"({"name":"with_default","type":"string","default":"x","field-id":6}]})";
  const AvroValue written = AvroValue::Record(
      {AvroValue::Int(7), AvroValue::Int(-3), AvroValue::String("gone"), AvroValue::Float(0.5f)});
  ASSERT_OK_AND_ASSIGN(AvroValue projected, Project(writer, reader, written));
  EXPECT_EQ(projected, AvroValue::Record({AvroValue::Double(0.5), AvroValue::Long(-3), AvroValue::Int(7),
                                          AvroValue::Union(0, AvroValue::Null()), AvroValue::String("x")}));
}

TEST(AvroProjectionTest, DifferentIdsDoNotMatchBySameName) {
  // Field "a" was dropped (id 1) and a new "a" added (id 9): the old data must not show through.
  ASSERT_OK_AND_ASSIGN(
      AvroValue projected,
      Project(R"({"type":"record","name":"w","fields":[{"name":"a","type":"int","field-id":1}]})",
              R"({"type":"record","name":"r","fields":[{"name":"a","type":["null","int"],"field-id":9}]})",
              AvroValue::Record({AvroValue::Int(5)})));
  EXPECT_EQ(projected, AvroValue::Record({AvroValue::Union(0, AvroValue::Null())}));
}

TEST(AvroProjectionTest, MatchesByNameWithoutIds) {
  ASSERT_OK_AND_ASSIGN(
      AvroValue projected,
      Project(
          R"({"type":"record","name":"w","fields":[{"name":"a","type":"int"},{"name":"b","type":"string"}]})",
          R"({"type":"record","name":"r","fields":[{"name":"b","type":"bytes"},{"name":"z","type":"int","aliases":["a"]}]})",
          AvroValue::Record({AvroValue::Int(1), AvroValue::String("s")})));
  EXPECT_EQ(projected, AvroValue::Record({AvroValue::Bytes("s"), AvroValue::Int(1)}));
}

TEST(AvroProjectionTest, MissingRequiredFieldIsSchemaMismatch) {
  auto result = AvroProjection::Make(
      Schema(R"({"type":"record","name":"w","fields":[{"name":"a","type":"int","field-id":1}]})"),
      Schema(R"({"type":"record","name":"r","fields":[{"name":"b","type":"long","field-id":2}]})"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kSchemaMismatch);
  EXPECT_NE(result.status().message().find("reader field b (field-id 2)"), std::string::npos)
      << result.status().ToString();
}

TEST(AvroProjectionTest, DuplicateFieldIdsAreRejected) {
  auto result = AvroProjection::Make(
      Schema(
          R"({"type":"record","name":"w","fields":[{"name":"a","type":"int","field-id":1},{"name":"b","type":"string","field-id":1}]})"),
      Schema(R"({"type":"record","name":"r","fields":[{"name":"a","type":"int","field-id":1}]})"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kSchemaMismatch);
  EXPECT_NE(result.status().message().find("gives field-id 1 to both a and b"), std::string::npos)
      << result.status().ToString();
}

TEST(AvroProjectionTest, UnionsResolvePerBranch) {
  // Writer optional long, reader optional long with the branches swapped.
  const std::string writer =
      R"({"type":"record","name":"w","fields":[{"name":"a","type":["null","int"],"field-id":1}]})";
  const std::string reader =
      R"({"type":"record","name":"r","fields":[{"name":"a","type":["long","null"],"field-id":1}]})";
  ASSERT_OK_AND_ASSIGN(AvroValue some,
                       Project(writer, reader, AvroValue::Record({AvroValue::Union(1, AvroValue::Int(4))})));
  EXPECT_EQ(some, AvroValue::Record({AvroValue::Union(0, AvroValue::Long(4))}));
  ASSERT_OK_AND_ASSIGN(AvroValue none,
                       Project(writer, reader, AvroValue::Record({AvroValue::Union(0, AvroValue::Null())})));
  EXPECT_EQ(none, AvroValue::Record({AvroValue::Union(1, AvroValue::Null())}));

  // Writer optional, reader required: fine until a null shows up.
  const std::string required =
      R"({"type":"record","name":"r","fields":[{"name":"a","type":"long","field-id":1}]})";
  ASSERT_OK_AND_ASSIGN(
      AvroValue present,
      Project(writer, required, AvroValue::Record({AvroValue::Union(1, AvroValue::Int(4))})));
  EXPECT_EQ(present, AvroValue::Record({AvroValue::Long(4)}));
  auto missing = Project(writer, required, AvroValue::Record({AvroValue::Union(0, AvroValue::Null())}));
  EXPECT_EQ(missing.status().kind(), ErrorKind::kSchemaMismatch);

  // Writer required record, reader optional record with another name (Iceberg writers differ on names).
  ASSERT_OK_AND_ASSIGN(
      AvroValue nested,
      Project(
          R"({"type":"record","name":"w","fields":[{"name":"p","type":{"type":"record","name":"r102","fields":[{"name":"x","type":"int","field-id":1000}]},"field-id":102}]})",
          R"({"type":"record","name":"r","fields":[{"name":"p","type":["null",{"type":"record","name":"partition","fields":[{"name":"x","type":"long","field-id":1000}]}],"field-id":102}]})",
          AvroValue::Record({AvroValue::Record({AvroValue::Int(9)})})));
  EXPECT_EQ(nested, AvroValue::Record({AvroValue::Union(1, AvroValue::Record({AvroValue::Long(9)}))}));
}

TEST(AvroProjectionTest, IcebergMapArraysAndEnums) {
  const std::string writer =
      R"({"type":"record","name":"w","fields":[{"name":"sizes","type":{"type":"array","items":{"type":"record","name":"k117_v118","fields":[)"
      R"({"name":"key","type":"int","field-id":117},{"name":"value","type":"int","field-id":118}]},"logicalType":"map"},"field-id":108},)"
      R"({"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}}]})";
  const std::string reader =
      R"({"type":"record","name":"r","fields":[{"name":"sizes","type":{"type":"array","items":{"type":"record","name":"kv","fields":[)"
      R"({"name":"value","type":"long","field-id":118},{"name":"key","type":"int","field-id":117}]},"logicalType":"map"},"field-id":108},)"
      R"({"name":"e","type":{"type":"enum","name":"E2","symbols":["C","A","Z"],"default":"Z"}}]})";
  ASSERT_OK_AND_ASSIGN(
      AvroValue projected,
      Project(
          writer, reader,
          AvroValue::Record({AvroValue::Array({AvroValue::Record({AvroValue::Int(1), AvroValue::Int(10)})}),
                             AvroValue::Enum(1, "B")})));
  EXPECT_EQ(projected, AvroValue::Record(
                           {AvroValue::Array({AvroValue::Record({AvroValue::Long(10), AvroValue::Int(1)})}),
                            AvroValue::Enum(2, "Z")}));
}

TEST(AvroProjectionTest, IncompatibleTypesFailOnlyWhenUsed) {
  auto result = Project(R"("string")", R"("int")", AvroValue::String("x"));
  EXPECT_EQ(result.status().kind(), ErrorKind::kSchemaMismatch);
  EXPECT_NE(result.status().message().find("cannot be read as int"), std::string::npos);
  auto fixed = Project(R"({"type":"fixed","name":"f","size":4})", R"({"type":"fixed","name":"f","size":8})",
                       AvroValue::Fixed({1, 2, 3, 4}));
  EXPECT_EQ(fixed.status().kind(), ErrorKind::kSchemaMismatch);
}

TEST(AvroProjectionTest, RecursiveSchemasProject) {
  const std::string schema =
      R"({"type":"record","name":"L","fields":[{"name":"v","type":"int"},{"name":"next","type":["null","L"]}]})";
  const std::string reader =
      R"({"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]},{"name":"v","type":"long"}]})";
  const AvroValue list = AvroValue::Record(
      {AvroValue::Int(1),
       AvroValue::Union(1, AvroValue::Record({AvroValue::Int(2), AvroValue::Union(0, AvroValue::Null())}))});
  ASSERT_OK_AND_ASSIGN(AvroValue projected, Project(schema, reader, list));
  EXPECT_EQ(projected,
            AvroValue::Record({AvroValue::Union(1, AvroValue::Record({AvroValue::Union(0, AvroValue::Null()),
                                                                      AvroValue::Long(2)})),
                               AvroValue::Long(1)}));
}

TEST(AvroProjectionTest, JsonDefaults) {
  const AvroSchema schema = Schema(
      R"({"type":"record","name":"r","fields":[{"name":"b","type":"bytes"},{"name":"m","type":{"type":"map","values":"int"}},)"
      R"({"name":"u","type":["string","null"]},{"name":"d","type":"double"}]})");
  ASSERT_OK_AND_ASSIGN(
      AvroValue value,
      AvroValueFromJsonDefault(schema.root(),
                               Json::parse(R"({"b":"\u00ff\u0001","m":{"k":3},"u":"s","d":"NaN"})")));
  EXPECT_EQ(value.children()[0], AvroValue::Bytes(std::vector<uint8_t>{0xff, 0x01}));
  EXPECT_EQ(value.children()[1], AvroValue::Map({{"k", AvroValue::Int(3)}}));
  EXPECT_EQ(value.children()[2], AvroValue::Union(0, AvroValue::String("s")));
  EXPECT_FALSE(AvroValueFromJsonDefault(schema.root(), Json::parse(R"({"b":1})")).ok());
}

}  // namespace
}  // namespace floe::avro
