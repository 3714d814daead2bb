// Filters: parsing and binding predicates, literal text, value order, and the
// inclusive pruning of partitions, manifests and data files.
#include <gtest/gtest.h>

#include <cmath>

#include "iceberg/scan/predicate.h"
#include "iceberg/scan/pruning.h"
#include "iceberg/spec/single_value.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

Schema TestSchema() {
  Schema schema;
  schema.fields = {MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true),
                   MakeNestedField(2, "Breed Name", PrimitiveType(TypeKind::kString)),
                   MakeNestedField(3, "ts", PrimitiveType(TypeKind::kTimestamp)),
                   MakeNestedField(4, "price", DecimalType(9, 2)),
                   MakeNestedField(5, "w", PrimitiveType(TypeKind::kDouble))};
  return schema;
}

BoundPredicate Bind(const std::string& text) {
  auto parsed = ParsePredicate(text);
  EXPECT_OK(parsed.status());
  auto bound = BindPredicate(*parsed, TestSchema());
  EXPECT_OK(bound.status());
  return *bound;
}

TEST(PredicateTest, ParsesOperatorsNamesWithSpacesAndQuotes) {
  ASSERT_OK_AND_ASSIGN(Predicate p, ParsePredicate("Breed Name = 'Holland Lop'"));
  EXPECT_EQ(p.column, "Breed Name");
  EXPECT_EQ(p.op, PredicateOp::kEq);
  EXPECT_EQ(p.value, "Holland Lop");
  ASSERT_OK_AND_ASSIGN(p, ParsePredicate("id>=10"));
  EXPECT_EQ(p.op, PredicateOp::kGtEq);
  EXPECT_EQ(p.value, "10");
  ASSERT_OK_AND_ASSIGN(p, ParsePredicate("id != 3"));
  EXPECT_EQ(p.op, PredicateOp::kNotEq);
  ASSERT_OK_AND_ASSIGN(p, ParsePredicate("id < 3"));
  EXPECT_EQ(p.op, PredicateOp::kLt);
  ASSERT_OK_AND_ASSIGN(p, ParsePredicate("Breed Name IS NOT NULL"));
  EXPECT_EQ(p.op, PredicateOp::kNotNull);
  EXPECT_EQ(p.column, "Breed Name");
  ASSERT_OK_AND_ASSIGN(p, ParsePredicate("ts is null"));
  EXPECT_EQ(p.op, PredicateOp::kIsNull);
  EXPECT_EQ(ParsePredicate("id").status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(ParsePredicate("= 3").status().kind(), ErrorKind::kInvalidArgument);
}

TEST(PredicateTest, BindsByNameAndParsesTypedValues) {
  BoundPredicate b = Bind("price <= 12.3");
  EXPECT_EQ(b.field_id, 4);
  EXPECT_EQ(b.value, Literal::Decimal(1230, 2));
  b = Bind("ts > 2024-01-31T12:30:00.5");
  EXPECT_EQ(b.value.int_value, (int64_t{19753} * 86400 + 12 * 3600 + 30 * 60) * 1000000 + 500000);
  EXPECT_EQ(ParsePredicate("nope = 1").status().kind(), ErrorKind::kOk);
  EXPECT_EQ(BindPredicate(*ParsePredicate("nope = 1"), TestSchema()).status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(BindPredicate(*ParsePredicate("id = x"), TestSchema()).status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(BindPredicate(*ParsePredicate("price = 1.234"), TestSchema()).status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(ParseLiteral("99999999999", DecimalType(9, 2)).status().kind(), ErrorKind::kOutOfRange);
  EXPECT_EQ(ParseLiteral("2024-13-01", PrimitiveType(TypeKind::kDate)).status().kind(),
            ErrorKind::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(Literal hex, ParseLiteral("00ff", PrimitiveType(TypeKind::kBinary)));
  EXPECT_EQ(hex.bytes, std::string("\x00\xff", 2));
}

TEST(PredicateTest, ComparesInIcebergOrder) {
  EXPECT_LT(*CompareValues(Literal::String("a"), Literal::String("\xc3\xa9")), 0);  // bytes unsigned
  EXPECT_LT(*CompareValues(Literal::String("ab"), Literal::String("abc")), 0);
  EXPECT_GT(*CompareValues(Literal::Long(5), Literal::Int(4)), 0);
  EXPECT_EQ(CompareValues(Literal::Decimal(1, 2), Literal::Decimal(1, 3)), std::nullopt);
  EXPECT_EQ(CompareValues(Literal::Double(std::nan("")), Literal::Double(1)), std::nullopt);
  EXPECT_FALSE(EvaluateOn(PredicateOp::kEq, Literal::Null(), Literal::Long(1)));
  EXPECT_FALSE(EvaluateOn(PredicateOp::kNotEq, Literal::Null(), Literal::Long(1)));
  EXPECT_TRUE(EvaluateOn(PredicateOp::kIsNull, Literal::Null(), Literal::Null()));
  EXPECT_TRUE(EvaluateOn(PredicateOp::kNotEq, Literal::Double(std::nan("")), Literal::Double(1)));
  EXPECT_FALSE(EvaluateOn(PredicateOp::kLt, Literal::Double(std::nan("")), Literal::Double(1)));
}

PartitionSpec SpecOf(std::vector<PartitionField> fields) {
  PartitionSpec spec;
  spec.fields = std::move(fields);
  return spec;
}

TEST(PruningTest, IdentityKeepsEveryOperator) {
  const PartitionSpec spec = SpecOf({{2, 1000, "breed", Transform::Identity()}});
  auto projected = ProjectFilterToPartition({Bind("Breed Name < m")}, spec, TestSchema());
  ASSERT_EQ(projected.size(), 1u);
  EXPECT_TRUE(PartitionMayMatch(projected, {Literal::String("lop")}));
  EXPECT_FALSE(PartitionMayMatch(projected, {Literal::String("rex")}));
  EXPECT_FALSE(PartitionMayMatch(projected, {Literal::Null()}));
  projected = ProjectFilterToPartition({Bind("Breed Name is null")}, spec, TestSchema());
  EXPECT_TRUE(PartitionMayMatch(projected, {Literal::Null()}));
  EXPECT_FALSE(PartitionMayMatch(projected, {Literal::String("rex")}));
}

TEST(PruningTest, BucketProjectsOnlyEquality) {
  const PartitionSpec spec = SpecOf({{1, 1000, "id_bucket", Transform::Bucket(4)}});
  ASSERT_OK_AND_ASSIGN(Literal bucket_of_7, Transform::Bucket(4).Apply(Literal::Long(7)));
  auto projected = ProjectFilterToPartition({Bind("id = 7")}, spec, TestSchema());
  ASSERT_EQ(projected.size(), 1u);
  EXPECT_TRUE(PartitionMayMatch(projected, {bucket_of_7}));
  EXPECT_FALSE(
      PartitionMayMatch(projected, {Literal::Int(static_cast<int32_t>((bucket_of_7.int_value + 1) % 4))}));
  EXPECT_TRUE(ProjectFilterToPartition({Bind("id < 7")}, spec, TestSchema()).empty());
  EXPECT_TRUE(ProjectFilterToPartition({Bind("id != 7")}, spec, TestSchema()).empty());
}

TEST(PruningTest, TemporalAndTruncateRelaxStrictBounds) {
  const PartitionSpec day = SpecOf({{3, 1000, "ts_day", Transform::Day()}});
  // ts < 2024-01-02T00:00:00 may still hold rows of day 2024-01-01 and never of 2024-01-02.
  auto projected = ProjectFilterToPartition({Bind("ts < 2024-01-02T00:00:00")}, day, TestSchema());
  ASSERT_EQ(projected.size(), 1u);
  EXPECT_EQ(projected[0].op, PredicateOp::kLtEq);
  const int32_t jan1 = 19723;
  EXPECT_TRUE(PartitionMayMatch(projected, {Literal::Date(jan1)}));
  EXPECT_TRUE(PartitionMayMatch(projected, {Literal::Date(jan1 + 1)}));  // inclusive: cannot tell
  EXPECT_FALSE(PartitionMayMatch(projected, {Literal::Date(jan1 + 2)}));
  const PartitionSpec truncate = SpecOf({{2, 1000, "b", Transform::Truncate(2)}});
  projected = ProjectFilterToPartition({Bind("Breed Name > holland")}, truncate, TestSchema());
  ASSERT_EQ(projected.size(), 1u);
  EXPECT_TRUE(PartitionMayMatch(projected, {Literal::String("ho")}));
  EXPECT_FALSE(PartitionMayMatch(projected, {Literal::String("ha")}));
}

TEST(PruningTest, ManifestSummariesPruneByBoundsAndNulls) {
  const PartitionSpec spec = SpecOf({{1, 1000, "id", Transform::Identity()}});
  ManifestFile manifest;
  PartitionFieldSummary summary;
  summary.contains_null = false;
  summary.contains_nan = false;
  summary.lower_bound = *SerializeSingleValue(Literal::Long(10), PrimitiveType(TypeKind::kLong));
  summary.upper_bound = *SerializeSingleValue(Literal::Long(20), PrimitiveType(TypeKind::kLong));
  manifest.partitions = {summary};
  auto may = [&](const std::string& text) {
    return ManifestMayMatch(ProjectFilterToPartition({Bind(text)}, spec, TestSchema()), manifest);
  };
  EXPECT_TRUE(may("id = 15"));
  EXPECT_FALSE(may("id = 21"));
  EXPECT_FALSE(may("id < 10"));
  EXPECT_TRUE(may("id <= 10"));
  EXPECT_FALSE(may("id > 20"));
  EXPECT_TRUE(may("id >= 20"));
  EXPECT_FALSE(may("id is null"));
  EXPECT_TRUE(may("id != 15"));
  manifest.partitions[0].lower_bound.reset();
  manifest.partitions[0].upper_bound.reset();
  manifest.partitions[0].contains_null = true;
  EXPECT_FALSE(may("id = 15"));  // only nulls
  EXPECT_TRUE(may("id is null"));
  manifest.partitions.clear();  // no summaries: cannot tell
  EXPECT_TRUE(may("id = 15"));
}

TEST(PruningTest, MetricsPruneByBoundsAndCounts) {
  DataFile file;
  file.value_counts = {{1, 10}, {5, 10}};
  file.null_value_counts = {{1, 0}, {5, 10}};
  file.lower_bounds[1] = *SerializeSingleValue(Literal::Long(100), PrimitiveType(TypeKind::kLong));
  file.upper_bounds[1] = *SerializeSingleValue(Literal::Long(200), PrimitiveType(TypeKind::kLong));
  EXPECT_TRUE(MetricsMayMatch({Bind("id = 150")}, file));
  EXPECT_FALSE(MetricsMayMatch({Bind("id = 99")}, file));
  EXPECT_FALSE(MetricsMayMatch({Bind("id > 200")}, file));
  EXPECT_FALSE(MetricsMayMatch({Bind("id is null")}, file));
  EXPECT_FALSE(MetricsMayMatch({Bind("w = 1")}, file));  // all null
  EXPECT_FALSE(MetricsMayMatch({Bind("w is not null")}, file));
  EXPECT_TRUE(MetricsMayMatch({Bind("w is null")}, file));
  EXPECT_FALSE(MetricsMayMatch({Bind("id = 150"), Bind("w = 1")}, file));  // AND
  // A 4-byte bound of a column promoted from int to long still prunes.
  file.lower_bounds[1] = *SerializeSingleValue(Literal::Int(100), PrimitiveType(TypeKind::kInt));
  EXPECT_FALSE(MetricsMayMatch({Bind("id < 100")}, file));
  // Unknown columns and undecodable bounds never prune.
  file.lower_bounds[1] = "xyz";
  EXPECT_TRUE(MetricsMayMatch({Bind("id < 100")}, file));
  EXPECT_TRUE(MetricsMayMatch({Bind("price = 1")}, file));
}

}  // namespace
}  // namespace floe::iceberg
