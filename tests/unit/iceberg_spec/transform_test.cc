// Transforms: parsing, applicability, result types, negatives, nulls and
// the human strings used in partition paths.
#include "iceberg/spec/transform.h"

#include <gtest/gtest.h>

#include "iceberg/spec/partition_spec.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

constexpr int64_t kMicrosPerHour = 3600LL * 1000000;
constexpr int64_t kMicrosPerDay = 24 * kMicrosPerHour;

Literal Apply(const Transform& t, const Literal& v) {
  auto result = t.Apply(v);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return result.ok() ? *result : Literal::Null();
}

TEST(Transform, ParseAndPrintRoundTrip) {
  for (const char* text :
       {"identity", "bucket[16]", "truncate[10]", "year", "month", "day", "hour", "void", "zorder"}) {
    ASSERT_OK_AND_ASSIGN(Transform t, Transform::Parse(text));
    EXPECT_EQ(t.ToString(), text);
  }
  ASSERT_OK_AND_ASSIGN(Transform bucket, Transform::Parse("bucket[16]"));
  EXPECT_EQ(bucket.kind(), Transform::Kind::kBucket);
  EXPECT_EQ(bucket.parameter(), 16);
  ASSERT_OK_AND_ASSIGN(Transform unknown, Transform::Parse("zorder"));
  EXPECT_EQ(unknown.kind(), Transform::Kind::kUnknown);
  EXPECT_FALSE(unknown.CanApply(PrimitiveType(TypeKind::kLong)));
}

TEST(Transform, ParseRejectsMalformedArguments) {
  for (const char* text : {"bucket[0]", "bucket[-3]", "bucket[x]", "bucket[]", "truncate[", "bucket[16"}) {
    auto t = Transform::Parse(text);
    EXPECT_FALSE(t.ok()) << text;
    if (!t.ok()) {
      EXPECT_EQ(t.status().kind(), ErrorKind::kCorruption) << text;
    }
  }
}

TEST(Transform, ResultTypesAndApplicability) {
  const Type ts = PrimitiveType(TypeKind::kTimestamp);
  const Type date = PrimitiveType(TypeKind::kDate);
  ASSERT_OK_AND_ASSIGN(Type day, Transform::Day().ResultType(ts));
  EXPECT_EQ(day.kind, TypeKind::kDate);
  ASSERT_OK_AND_ASSIGN(Type hour, Transform::Hour().ResultType(ts));
  EXPECT_EQ(hour.kind, TypeKind::kInt);
  ASSERT_OK_AND_ASSIGN(Type bucket, Transform::Bucket(8).ResultType(PrimitiveType(TypeKind::kString)));
  EXPECT_EQ(bucket.kind, TypeKind::kInt);
  ASSERT_OK_AND_ASSIGN(Type truncated, Transform::Truncate(4).ResultType(DecimalType(9, 2)));
  EXPECT_EQ(truncated, DecimalType(9, 2));
  EXPECT_FALSE(Transform::Hour().CanApply(date));
  EXPECT_TRUE(Transform::Month().CanApply(date));
  EXPECT_FALSE(Transform::Truncate(3).CanApply(PrimitiveType(TypeKind::kUuid)));
  EXPECT_FALSE(Transform::Identity().CanApply(StructType({})));
  EXPECT_TRUE(Transform::Void().CanApply(StructType({})));
  EXPECT_FALSE(Transform::Day().ResultType(PrimitiveType(TypeKind::kString)).ok());
}

TEST(Transform, TruncateIntegersFloorsNegatives) {
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Int(-1)), Literal::Int(-10));
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Int(1)), Literal::Int(0));
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Int(-10)), Literal::Int(-10));
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Int(-11)), Literal::Int(-20));
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Long(-1)), Literal::Long(-10));
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Long(123456789012LL)), Literal::Long(123456789010LL));
  // Decimal widths are in unscaled units: truncate(10) of 10.65 is 10.60, of -0.05 is -0.10.
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Decimal(1065, 2)), Literal::Decimal(1060, 2));
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::Decimal(-5, 2)), Literal::Decimal(-10, 2));
}

TEST(Transform, TruncateStringsByCodePoints) {
  EXPECT_EQ(Apply(Transform::Truncate(3), Literal::String("iceberg")), Literal::String("ice"));
  EXPECT_EQ(Apply(Transform::Truncate(10), Literal::String("ice")), Literal::String("ice"));
  // Two-, three- and four-byte UTF-8 sequences each count as one code point.
  EXPECT_EQ(Apply(Transform::Truncate(2), Literal::String("\u00e9t\u00e9")), Literal::String("\u00e9t"));
  EXPECT_EQ(Apply(Transform::Truncate(2), Literal::String("\u30e9\u30fc\u30e1\u30f3")),
            Literal::String("\u30e9\u30fc"));
  EXPECT_EQ(Apply(Transform::Truncate(1), Literal::String("\U0001F600\U0001F601")),
            Literal::String("\U0001F600"));
  EXPECT_EQ(Apply(Transform::Truncate(2), Literal::Binary(std::string("\x00\x01\x02", 3))),
            Literal::Binary(std::string("\x00\x01", 2)));
}

TEST(Transform, TimeTransformsFloorBeforeEpoch) {
  const Literal minus_one_micro = Literal::Timestamp(-1);
  EXPECT_EQ(Apply(Transform::Day(), minus_one_micro), Literal::Date(-1));
  EXPECT_EQ(Apply(Transform::Hour(), minus_one_micro), Literal::Int(-1));
  EXPECT_EQ(Apply(Transform::Month(), minus_one_micro), Literal::Int(-1));
  EXPECT_EQ(Apply(Transform::Year(), minus_one_micro), Literal::Int(-1));
  EXPECT_EQ(Apply(Transform::Day(), Literal::TimestampNs(-1)), Literal::Date(-1));
  EXPECT_EQ(Apply(Transform::Year(), Literal::Date(-1)), Literal::Int(-1));
  EXPECT_EQ(Apply(Transform::Month(), Literal::Date(-1)), Literal::Int(-1));
  EXPECT_EQ(Apply(Transform::Month(), Literal::Date(-31)), Literal::Int(-1));  // 1969-12-01
  EXPECT_EQ(Apply(Transform::Month(), Literal::Date(-32)), Literal::Int(-2));  // 1969-11-30
  EXPECT_EQ(Apply(Transform::Year(), Literal::Date(-365)), Literal::Int(-1));  // 1969-01-01
  EXPECT_EQ(Apply(Transform::Year(), Literal::Date(-366)), Literal::Int(-2));  // 1968-12-31
  EXPECT_EQ(Apply(Transform::Day(), Literal::Timestamp(-kMicrosPerDay)), Literal::Date(-1));
  EXPECT_EQ(Apply(Transform::Day(), Literal::Timestamp(-kMicrosPerDay - 1)), Literal::Date(-2));
  EXPECT_EQ(Apply(Transform::Hour(), Literal::Timestamp(0)), Literal::Int(0));
  EXPECT_EQ(Apply(Transform::Hour(), Literal::Timestamp(kMicrosPerHour - 1)), Literal::Int(0));
}

TEST(Transform, TimeTransformsAfterEpoch) {
  const int64_t day = DaysFromCivil(2017, 11, 16);
  const Literal ts = Literal::TimestampTz(day * kMicrosPerDay + 10 * kMicrosPerHour + 5);
  EXPECT_EQ(Apply(Transform::Year(), ts), Literal::Int(47));
  EXPECT_EQ(Apply(Transform::Month(), ts), Literal::Int(47 * 12 + 10));
  EXPECT_EQ(Apply(Transform::Day(), ts), Literal::Date(static_cast<int32_t>(day)));
  EXPECT_EQ(Apply(Transform::Hour(), ts), Literal::Int(static_cast<int32_t>(day * 24 + 10)));
  EXPECT_EQ(Apply(Transform::Year(), Literal::Date(static_cast<int32_t>(DaysFromCivil(2000, 2, 29)))),
            Literal::Int(30));
}

TEST(Transform, NullInNullOut) {
  for (const Transform& t :
       {Transform::Identity(), Transform::Bucket(4), Transform::Truncate(3), Transform::Year(),
        Transform::Month(), Transform::Day(), Transform::Hour(), Transform::Void()}) {
    ASSERT_OK_AND_ASSIGN(Literal out, t.Apply(Literal::Null()));
    EXPECT_TRUE(out.is_null()) << t.ToString();
    EXPECT_EQ(t.ToHumanString(out), "null");
  }
  ASSERT_OK_AND_ASSIGN(Literal voided, Transform::Void().Apply(Literal::Int(3)));
  EXPECT_TRUE(voided.is_null());
}

TEST(Transform, RejectsWrongValueKinds) {
  EXPECT_FALSE(Transform::Hour().Apply(Literal::Date(3)).ok());
  EXPECT_FALSE(Transform::Day().Apply(Literal::String("x")).ok());
  EXPECT_FALSE(Transform::Truncate(2).Apply(Literal::Double(1.5)).ok());
}

TEST(Transform, HumanStrings) {
  const int64_t day = DaysFromCivil(2017, 11, 16);
  EXPECT_EQ(Transform::Day().ToHumanString(Literal::Date(static_cast<int32_t>(day))), "2017-11-16");
  EXPECT_EQ(Transform::Hour().ToHumanString(Literal::Int(static_cast<int32_t>(day * 24 + 10))),
            "2017-11-16-10");
  EXPECT_EQ(Transform::Month().ToHumanString(Literal::Int(47 * 12 + 10)), "2017-11");
  EXPECT_EQ(Transform::Year().ToHumanString(Literal::Int(47)), "2017");
  EXPECT_EQ(Transform::Day().ToHumanString(Literal::Date(-1)), "1969-12-31");
  EXPECT_EQ(Transform::Hour().ToHumanString(Literal::Int(-1)), "1969-12-31-23");
  EXPECT_EQ(Transform::Month().ToHumanString(Literal::Int(-1)), "1969-12");
  EXPECT_EQ(Transform::Year().ToHumanString(Literal::Int(-1)), "1969");
  EXPECT_EQ(Transform::Bucket(16).ToHumanString(Literal::Int(7)), "7");
  EXPECT_EQ(Transform::Truncate(10).ToHumanString(Literal::Int(-10)), "-10");
  EXPECT_EQ(Transform::Truncate(10).ToHumanString(Literal::Decimal(-10, 2)), "-0.10");
}

TEST(Transform, IdentityHumanStringsMatchJava) {
  const int64_t micros = DaysFromCivil(2017, 11, 16) * kMicrosPerDay + 81068000000LL;
  EXPECT_EQ(LiteralToHumanString(Literal::Timestamp(micros)), "2017-11-16T22:31:08");
  EXPECT_EQ(LiteralToHumanString(Literal::TimestampTz(micros + 1)), "2017-11-16T22:31:08.000001Z");
  EXPECT_EQ(LiteralToHumanString(Literal::Timestamp(micros + 120000)), "2017-11-16T22:31:08.120");
  EXPECT_EQ(LiteralToHumanString(Literal::Timestamp(0)), "1970-01-01T00:00");
  EXPECT_EQ(LiteralToHumanString(Literal::Timestamp(-1)), "1969-12-31T23:59:59.999999");
  EXPECT_EQ(LiteralToHumanString(Literal::TimestampNs(1)), "1970-01-01T00:00:00.000000001");
  EXPECT_EQ(LiteralToHumanString(Literal::Time(81068000000LL)), "22:31:08");
  EXPECT_EQ(LiteralToHumanString(Literal::Decimal(1420, 2)), "14.20");
  EXPECT_EQ(LiteralToHumanString(Literal::Decimal(-5, 2)), "-0.05");
  EXPECT_EQ(LiteralToHumanString(Literal::Decimal(1, 10)), "1E-10");
  EXPECT_EQ(LiteralToHumanString(Literal::Binary(std::string("\x00\x01\x02\x03", 4))), "AAECAw==");
  EXPECT_EQ(LiteralToHumanString(Literal::Boolean(true)), "true");
  EXPECT_EQ(LiteralToHumanString(Literal::Double(1.0)), "1.0");
  EXPECT_EQ(LiteralToHumanString(Literal::Double(1234.5)), "1234.5");
  EXPECT_EQ(LiteralToHumanString(Literal::Double(0.001)), "0.001");
  EXPECT_EQ(LiteralToHumanString(Literal::Double(1e10)), "1.0E10");
  EXPECT_EQ(LiteralToHumanString(Literal::Double(-1.5e-5)), "-1.5E-5");
  EXPECT_EQ(LiteralToHumanString(Literal::Float(0.1f)), "0.1");
  EXPECT_EQ(LiteralToHumanString(Literal::Date(static_cast<int32_t>(DaysFromCivil(12017, 1, 2)))),
            "+12017-01-02");
}

TEST(Transform, PathEscapingFollowsUrlEncoder) {
  EXPECT_EQ(EscapePathComponent("a b/c=d"), "a+b%2Fc%3Dd");
  EXPECT_EQ(EscapePathComponent("keep.-*_AZaz09"), "keep.-*_AZaz09");
  EXPECT_EQ(EscapePathComponent("\u00e9"), "%C3%A9");
  EXPECT_EQ(EscapePathComponent("100%"), "100%25");
}

TEST(Transform, PartitionPath) {
  PartitionSpec spec;
  spec.fields.push_back(PartitionField{1, 1000, "event day", Transform::Day()});
  spec.fields.push_back(PartitionField{2, 1001, "name", Transform::Identity()});
  spec.fields.push_back(PartitionField{3, 1002, "id_bucket", Transform::Bucket(16)});
  ASSERT_OK_AND_ASSIGN(std::string path,
                       spec.PartitionPath({Literal::Date(-1), Literal::String("a/b c"), Literal::Null()}));
  EXPECT_EQ(path, "event+day=1969-12-31/name=a%2Fb+c/id_bucket=null");
  EXPECT_FALSE(spec.PartitionPath({Literal::Date(1)}).ok());
}

}  // namespace
}  // namespace floe::iceberg
