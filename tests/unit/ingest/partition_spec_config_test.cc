// The [target] partition_by parser: every transform spelling, Java's field
// names, and errors that name the entry.
#include "ingest/partition_spec_config.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::ingest {
namespace {

using iceberg::MakeNestedField;
using iceberg::PrimitiveType;
using iceberg::Transform;
using iceberg::TypeKind;

iceberg::Schema TestSchema() {
  iceberg::Schema schema;
  schema.fields.push_back(MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong)));
  schema.fields.push_back(MakeNestedField(2, "createtime", PrimitiveType(TypeKind::kTimestamp)));
  schema.fields.push_back(MakeNestedField(3, "region", PrimitiveType(TypeKind::kString)));
  schema.fields.push_back(MakeNestedField(
      4, "address", iceberg::StructType({MakeNestedField(5, "zip", PrimitiveType(TypeKind::kString))})));
  return schema;
}

TEST(PartitionSpecConfigTest, ParsesEveryTransform) {
  ASSERT_OK_AND_ASSIGN(iceberg::PartitionSpec spec,
                       ParsePartitionSpec({"region", "identity(id)", "year(createtime)",
                                           "MONTH( createtime )", "day(createtime)", "hour(createtime)",
                                           "bucket(16, id)", "truncate(4,region)", "address.zip"},
                                          TestSchema()));
  ASSERT_EQ(spec.fields.size(), 9u);
  const std::vector<std::pair<std::string, Transform>> expected = {
      {"region", Transform::Identity()},      {"id", Transform::Identity()},
      {"createtime_year", Transform::Year()}, {"createtime_month", Transform::Month()},
      {"createtime_day", Transform::Day()},   {"createtime_hour", Transform::Hour()},
      {"id_bucket", Transform::Bucket(16)},   {"region_trunc", Transform::Truncate(4)},
      {"address.zip", Transform::Identity()}};
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(spec.fields[i].name, expected[i].first) << i;
    EXPECT_EQ(spec.fields[i].transform, expected[i].second) << i;
    EXPECT_EQ(spec.fields[i].field_id, 1000 + static_cast<int32_t>(i));
  }
  EXPECT_EQ(spec.fields[0].source_id, 3);
  EXPECT_EQ(spec.fields[6].source_id, 1);
  EXPECT_EQ(spec.fields[8].source_id, 5);
}

TEST(PartitionSpecConfigTest, EmptyListIsUnpartitioned) {
  ASSERT_OK_AND_ASSIGN(iceberg::PartitionSpec spec, ParsePartitionSpec({}, TestSchema()));
  EXPECT_TRUE(spec.is_unpartitioned());
}

TEST(PartitionSpecConfigTest, ErrorsNameTheEntry) {
  struct Case {
    std::string entry;
    std::string message_part;
  };
  const std::vector<Case> cases = {
      {"day(nosuch)", "no column nosuch"},
      {"day(id)", "does not apply to column id"},
      {"bucket(id)", "bucket takes (N, column)"},
      {"bucket(0, id)", "positive integer"},
      {"bucket(x, id)", "positive integer"},
      {"truncate(-3, region)", "positive integer"},
      {"wobble(id)", "unknown transform"},
      {"day(createtime", "expected transform(arguments)"},
      {"day(createtime))", "expected transform(arguments)"},
      {"day(a(b))", "expected transform(arguments)"},
      {"day()", "empty argument"},
      {"", "empty entry"},
      {"a,b", "expected column"},
  };
  for (const Case& c : cases) {
    auto spec = ParsePartitionSpec({c.entry}, TestSchema());
    ASSERT_FALSE(spec.ok()) << c.entry;
    EXPECT_EQ(spec.status().kind(), ErrorKind::kInvalidArgument) << c.entry;
    EXPECT_NE(spec.status().message().find("\"" + c.entry + "\""), std::string::npos)
        << spec.status().ToString();
    EXPECT_NE(spec.status().message().find(c.message_part), std::string::npos) << spec.status().ToString();
  }
}

TEST(PartitionSpecConfigTest, DuplicateFieldIsRefused) {
  auto spec = ParsePartitionSpec({"day(createtime)", "days(createtime)"}, TestSchema());
  ASSERT_FALSE(spec.ok());
  EXPECT_NE(spec.status().message().find("createtime_day"), std::string::npos) << spec.status().ToString();
}

}  // namespace
}  // namespace floe::ingest
