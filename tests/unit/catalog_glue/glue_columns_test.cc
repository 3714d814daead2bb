// The Glue column list of an Iceberg schema, typed as Apache Iceberg's
// GlueCatalog (IcebergToGlueConverter) types it.
#include "catalog/glue/glue_columns.h"

#include <gtest/gtest.h>

#include "catalog/glue/glue_options.h"
#include "test_util.h"

namespace floe::catalog::glue {
namespace {

using iceberg::MakeNestedField;
using iceberg::PrimitiveType;
using iceberg::TypeKind;

TEST(GlueColumnsTest, TypesFollowIcebergGlueCatalog) {
  const std::vector<std::pair<iceberg::Type, std::string>> cases = {
      {PrimitiveType(TypeKind::kBoolean), "boolean"},
      {PrimitiveType(TypeKind::kInt), "int"},
      {PrimitiveType(TypeKind::kLong), "bigint"},
      {PrimitiveType(TypeKind::kFloat), "float"},
      {PrimitiveType(TypeKind::kDouble), "double"},
      {PrimitiveType(TypeKind::kDate), "date"},
      {PrimitiveType(TypeKind::kTime), "string"},
      {PrimitiveType(TypeKind::kString), "string"},
      {PrimitiveType(TypeKind::kUuid), "string"},
      {PrimitiveType(TypeKind::kTimestamp), "timestamp"},
      {PrimitiveType(TypeKind::kTimestampTz), "timestamp"},
      {PrimitiveType(TypeKind::kTimestampNs), "timestamp_nano"},
      {PrimitiveType(TypeKind::kTimestampTzNs), "timestamp_nano"},
      {PrimitiveType(TypeKind::kBinary), "binary"},
      {iceberg::FixedType(16), "binary"},
      {iceberg::DecimalType(38, 10), "decimal(38,10)"},
      {PrimitiveType(TypeKind::kUnknown), "unknown"},
      {iceberg::ListType(3, PrimitiveType(TypeKind::kLong), true), "array<bigint>"},
      {iceberg::MapType(4, PrimitiveType(TypeKind::kString), 5, iceberg::DecimalType(9, 2), false),
       "map<string,decimal(9,2)>"},
      {iceberg::StructType(
           {MakeNestedField(6, "a", PrimitiveType(TypeKind::kInt)),
            MakeNestedField(7, "b", iceberg::ListType(8, PrimitiveType(TypeKind::kUuid), false))}),
       "struct<a:int,b:array<string>>"},
  };
  for (const auto& [type, expected] : cases) EXPECT_EQ(GlueTypeString(type), expected) << type.ToString();
}

TEST(GlueColumnsTest, CurrentColumnsFirstThenOlderSchemasOnceByName) {
  iceberg::TableMetadata metadata;
  iceberg::Schema old_schema;
  old_schema.schema_id = 0;
  old_schema.fields = {MakeNestedField(1, "id", PrimitiveType(TypeKind::kInt), true),
                       MakeNestedField(2, "gone", PrimitiveType(TypeKind::kString))};
  iceberg::Schema current;
  current.schema_id = 1;
  current.fields = {MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true),
                    MakeNestedField(3, "note", PrimitiveType(TypeKind::kString))};
  current.fields[1].doc = "from the doc";
  metadata.schemas = {old_schema, current};
  metadata.current_schema_id = 1;
  const json::Json columns = GlueColumns(metadata, {{"id", "kept comment"}, {"note", "replaced by the doc"}});
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[0]["Name"], "id");
  EXPECT_EQ(columns[0]["Type"], "bigint");
  EXPECT_EQ(columns[0]["Comment"], "kept comment");
  EXPECT_EQ(columns[0]["Parameters"]["iceberg.field.optional"], "false");
  EXPECT_EQ(columns[0]["Parameters"]["iceberg.field.current"], "true");
  EXPECT_EQ(columns[1]["Name"], "note");
  EXPECT_EQ(columns[1]["Comment"], "from the doc");
  EXPECT_EQ(columns[2]["Name"], "gone");
  EXPECT_EQ(columns[2]["Parameters"]["iceberg.field.id"], "2");
  EXPECT_EQ(columns[2]["Parameters"]["iceberg.field.current"], "false");
}

TEST(GlueOptionsTest, UriFormAndContradictions) {
  GlueCatalogOptions options;
  ASSERT_OK(ParseGlueCatalogUri("glue://123456789012?region=eu-west-1&endpoint=http%3A%2F%2F127.0.0.1%3A5000",
                                &options));
  EXPECT_EQ(options.catalog_id, "123456789012");
  EXPECT_EQ(options.region, "eu-west-1");
  EXPECT_EQ(options.endpoint, "http://127.0.0.1:5000");
  GlueCatalogOptions empty;
  ASSERT_OK(ParseGlueCatalogUri("glue://", &empty));
  EXPECT_EQ(empty.catalog_id, "");
  GlueCatalogOptions set;
  set.region = "us-east-1";
  EXPECT_EQ(ParseGlueCatalogUri("glue://1?region=eu-west-1", &set).kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(ParseGlueCatalogUri("glue://1?colour=red", &empty).kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(ParseGlueCatalogUri("glue://1/x", &empty).kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(ParseGlueCatalogUri("rest://x", &empty).kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace floe::catalog::glue
