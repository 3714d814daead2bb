#include "formats/avro/schema.h"

#include <gtest/gtest.h>

#include "iceberg_schemas.h"
#include "test_util.h"

namespace floe::avro {
namespace {

void ExpectRoundTrip(const std::string& json) {
  ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(json));
  EXPECT_EQ(schema.ToJson(), json);
  ASSERT_OK_AND_ASSIGN(AvroSchema again, AvroSchema::Parse(schema.ToJson()));
  EXPECT_EQ(again.ToJson(), json);
}

TEST(AvroSchemaTest, IcebergManifestSchemasRoundTripExactly) {
  ExpectRoundTrip(testing::kManifestFileSchema);
  ExpectRoundTrip(testing::kManifestEntrySchema);
}

TEST(AvroSchemaTest, IcebergAttributesAreReadable) {
  ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(testing::kManifestEntrySchema));
  const AvroNode& root = schema.root();
  EXPECT_EQ(root.type, AvroType::kRecord);
  EXPECT_EQ(root.full_name, "manifest_entry");
  ASSERT_EQ(root.fields.size(), 5u);
  EXPECT_EQ(root.fields[0].field_id(), 0);
  EXPECT_EQ(root.fields[4].field_id(), 2);
  const AvroNode& data_file = *root.fields[4].type;
  EXPECT_EQ(data_file.full_name, "r2");
  const AvroField& column_sizes = data_file.fields[data_file.FieldIndex("column_sizes")];
  EXPECT_EQ(column_sizes.field_id(), 108);
  EXPECT_EQ(column_sizes.default_value, Json(nullptr));
  const AvroNode& optional = *column_sizes.type;
  ASSERT_EQ(optional.type, AvroType::kUnion);
  EXPECT_EQ(optional.NullBranch(), 0);
  const AvroNode& array = *optional.branches[1];
  EXPECT_EQ(array.type, AvroType::kArray);
  EXPECT_EQ(array.attributes.at("logicalType"), "map");
  EXPECT_EQ(array.logical_type, LogicalType::kNone);  // "map" is not an Avro logical type
  EXPECT_EQ(array.items->fields[0].field_id(), 117);
  const AvroNode& splits = *data_file.fields[data_file.FieldIndex("split_offsets")].type->branches[1];
  EXPECT_EQ(splits.IntAttribute("element-id"), 133);
  const AvroNode& partition = *data_file.fields[data_file.FieldIndex("partition")].type;
  EXPECT_EQ(partition.fields[1].type->branches[1]->logical_type, LogicalType::kDate);
  EXPECT_NE(schema.FindNamed("k117_v118"), nullptr);
}

TEST(AvroSchemaTest, PrimitivesWriteAsPlainStrings) {
  ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(R"({"type":"int"})"));
  EXPECT_EQ(schema.ToJson(), R"("int")");
  ASSERT_OK_AND_ASSIGN(
      AvroSchema ts,
      AvroSchema::Parse(R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true})"));
  EXPECT_EQ(ts.root().logical_type, LogicalType::kTimestampMicros);
  EXPECT_EQ(ts.ToJson(), R"({"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true})");
}

TEST(AvroSchemaTest, LogicalTypes) {
  struct Case {
    const char* json;
    LogicalType expected;
  };
  const Case cases[] = {
      {R"({"type":"fixed","name":"decimal_9_2","size":4,"logicalType":"decimal","precision":9,"scale":2})",
       LogicalType::kDecimal},
      {R"({"type":"bytes","logicalType":"decimal","precision":38,"scale":10})", LogicalType::kDecimal},
      {R"({"type":"fixed","name":"uuid_fixed","size":16,"logicalType":"uuid"})", LogicalType::kUuid},
      {R"({"type":"string","logicalType":"uuid"})", LogicalType::kUuid},
      {R"({"type":"int","logicalType":"date"})", LogicalType::kDate},
      {R"({"type":"int","logicalType":"time-millis"})", LogicalType::kTimeMillis},
      {R"({"type":"long","logicalType":"time-micros"})", LogicalType::kTimeMicros},
      {R"({"type":"long","logicalType":"timestamp-millis"})", LogicalType::kTimestampMillis},
      {R"({"type":"long","logicalType":"local-timestamp-millis"})", LogicalType::kLocalTimestampMillis},
      {R"({"type":"long","logicalType":"local-timestamp-micros"})", LogicalType::kLocalTimestampMicros},
      {R"({"type":"fixed","name":"d","size":12,"logicalType":"duration"})", LogicalType::kDuration},
      // Invalid or unknown ones are ignored, as the spec says, but kept as attributes.
      {R"({"type":"fixed","name":"small","size":2,"logicalType":"decimal","precision":9})",
       LogicalType::kNone},
      {R"({"type":"string","logicalType":"date"})", LogicalType::kNone},
      {R"({"type":"long","logicalType":"timestamp-nanos-someday"})", LogicalType::kNone},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.json);
    ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(c.json));
    EXPECT_EQ(schema.root().logical_type, c.expected);
    EXPECT_EQ(schema.ToJson(), c.json);
  }
  ASSERT_OK_AND_ASSIGN(AvroSchema decimal, AvroSchema::Parse(cases[0].json));
  EXPECT_EQ(decimal.root().precision, 9);
  EXPECT_EQ(decimal.root().scale, 2);
  EXPECT_EQ(decimal.root().fixed_size, 4);
}

TEST(AvroSchemaTest, NamedReferencesAndNamespaces) {
  const std::string json =
      R"({"type":"record","name":"Outer","namespace":"com.example","fields":[)"
      R"({"name":"a","type":{"type":"fixed","name":"Md5","size":16}},)"
      R"({"name":"b","type":"Md5"},)"
      R"({"name":"c","type":{"type":"enum","name":"Color","namespace":"other","symbols":["RED","GREEN"],"default":"RED"}},)"
      R"({"name":"d","type":["null","other.Color"],"default":null},)"
      R"({"name":"next","type":["null","Outer"],"default":null}]})";
  ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(json));
  const AvroNode& root = schema.root();
  EXPECT_EQ(root.full_name, "com.example.Outer");
  EXPECT_EQ(root.fields[0].type, root.fields[1].type);
  EXPECT_EQ(root.fields[0].type->full_name, "com.example.Md5");
  EXPECT_EQ(root.fields[2].type->full_name, "other.Color");
  EXPECT_EQ(root.fields[3].type->branches[1], root.fields[2].type);
  EXPECT_EQ(root.fields[4].type->branches[1], &root);  // recursive reference
  EXPECT_EQ(schema.FindNamed("com.example.Md5"), root.fields[0].type);
  EXPECT_EQ(schema.ToJson(), json);
}

TEST(AvroSchemaTest, FieldKeysAreWrittenInIcebergOrder) {
  ASSERT_OK_AND_ASSIGN(
      AvroSchema schema,
      AvroSchema::Parse(
          R"({"fields":[{"field-id":7,"default":null,"type":["null","string"],"name":"x","doc":"d"}],)"
          R"("name":"r","type":"record"})"));
  EXPECT_EQ(
      schema.ToJson(),
      R"({"type":"record","name":"r","fields":[{"name":"x","type":["null","string"],"doc":"d","default":null,"field-id":7}]})");
}

void ExpectCorrupt(const std::string& json, const std::string& needle) {
  SCOPED_TRACE(json);
  auto result = AvroSchema::Parse(json);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(result.status().message().find(needle), std::string::npos) << result.status().ToString();
}

TEST(AvroSchemaTest, RejectsMalformedSchemas) {
  ExpectCorrupt(R"("integer")", "unknown type 'integer'");
  ExpectCorrupt(R"({"type":"record","name":"r","fields":[{"name":"a","type":"Nope"}]})",
                "unknown type 'Nope'");
  ExpectCorrupt(R"({"type":"record","fields":[]})", "without a name");
  ExpectCorrupt(R"({"type":"record","name":"r"})", "fields");
  ExpectCorrupt(
      R"({"type":"record","name":"r","fields":[{"name":"a","type":"int"},{"name":"a","type":"int"}]})",
      "appears twice");
  ExpectCorrupt(R"({"type":"enum","name":"e","symbols":["A","A"]})", "appears twice");
  ExpectCorrupt(R"({"type":"enum","name":"e","symbols":["A"],"default":"B"})", "default");
  ExpectCorrupt(R"({"type":"fixed","name":"f","size":-1})", "size");
  ExpectCorrupt(R"({"type":"fixed","name":"f","size":4294967296})", "size");
  ExpectCorrupt(R"({"type":"array"})", "items");
  ExpectCorrupt(R"(["int",["long"]])", "union");
  ExpectCorrupt(R"(["int","int"])", "two branches");
  ExpectCorrupt(R"({"type":"fixed","name":"int","size":1})", "primitive");
  ExpectCorrupt(R"({"type":"fixed","name":"9lives","size":1})", "invalid type name");
  ExpectCorrupt(R"([{"type":"fixed","name":"f","size":1},{"type":"fixed","name":"f","size":2}])",
                "defined twice");
  ExpectCorrupt(R"({"type":)", "not valid JSON");
  ExpectCorrupt("42", "expected a type name");
}

TEST(AvroSchemaTest, DepthIsLimited) {
  std::string deep;
  for (int i = 0; i < 10000; ++i) deep += R"({"type":"array","items":)";
  deep += R"("int")";
  for (int i = 0; i < 10000; ++i) deep += "}";
  ExpectCorrupt(deep, "nested deeper");
  std::string unions(100000, '[');
  ExpectCorrupt(unions, "not valid JSON");
}

TEST(AvroSchemaTest, CopiesShareNodes) {
  const AvroNode* root = nullptr;
  AvroSchema copy = *AvroSchema::Parse(R"("null")");
  {
    ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::Parse(testing::kManifestFileSchema));
    root = &schema.root();
    copy = schema;
  }
  EXPECT_EQ(&copy.root(), root);
  EXPECT_EQ(copy.root().fields[0].name, "manifest_path");
}

// Parse memoizes by text (every manifest header repeats a few schemas).
TEST(AvroSchemaTest, TheSameTextParsesToOneSharedSchema) {
  ASSERT_OK_AND_ASSIGN(AvroSchema first, AvroSchema::Parse(testing::kManifestEntrySchema));
  ASSERT_OK_AND_ASSIGN(AvroSchema second, AvroSchema::Parse(testing::kManifestEntrySchema));
  EXPECT_EQ(&first.root(), &second.root());
  EXPECT_EQ(second.ToJson(), testing::kManifestEntrySchema);
}

// Errors are not memoized: the same bad text fails the same way every time.
TEST(AvroSchemaTest, ABadTextFailsTheSameWayEveryTime) {
  const std::string bad = R"({"type":"record","name":"r","fields":[{"name":"a","type":"nope"}]})";
  auto first = AvroSchema::Parse(bad);
  auto second = AvroSchema::Parse(bad);
  ASSERT_FALSE(first.ok());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(first.status().ToString(), second.status().ToString());
}

// ToJson keeps its text per parsed schema; schemas built from JSON values
// give the same text as their JSON.
TEST(AvroSchemaTest, ToJsonIsStableAcrossCallsAndCopies) {
  ASSERT_OK_AND_ASSIGN(AvroSchema schema, AvroSchema::FromJson(Json::parse(testing::kManifestFileSchema)));
  const std::string text = schema.ToJson();
  EXPECT_EQ(text, testing::kManifestFileSchema);
  AvroSchema copy = schema;
  EXPECT_EQ(copy.ToJson(), text);
  EXPECT_EQ(schema.ToJson(), schema.ToJsonValue().dump());
}

}  // namespace
}  // namespace floe::avro
