// Appendix B hash vectors and the bucket transform built on them.
#include "iceberg/spec/murmur3.h"

#include <gtest/gtest.h>

#include "iceberg/spec/transform.h"
#include "test_util.h"

namespace floe::iceberg {
namespace {

constexpr int64_t kDate20171116 = 17486;
constexpr int64_t kMicros20171116T223108 = kDate20171116 * 86400000000LL + 81068000000LL;

int32_t Hash(const Literal& value) {
  auto hash = HashLiteral(value);
  EXPECT_TRUE(hash.ok()) << hash.status().ToString();
  return hash.ok() ? *hash : 0;
}

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

TEST(Murmur3, CivilDateOfVectors) {
  EXPECT_EQ(DaysFromCivil(2017, 11, 16), kDate20171116);
}

TEST(Murmur3, SpecVectors) {
  EXPECT_EQ(Hash(Literal::Int(34)), 2017239379);
  EXPECT_EQ(Hash(Literal::Long(34)), 2017239379);
  EXPECT_EQ(Hash(Literal::Decimal(1420, 2)), -500754589);
  EXPECT_EQ(Hash(Literal::Date(kDate20171116)), -653330422);
  EXPECT_EQ(Hash(Literal::Time(81068000000LL)), -662762989);
  EXPECT_EQ(Hash(Literal::Timestamp(kMicros20171116T223108)), -2047944441);
  EXPECT_EQ(Hash(Literal::Timestamp(kMicros20171116T223108 + 1)), -1207196810);
  EXPECT_EQ(Hash(Literal::TimestampTz(kMicros20171116T223108)), -2047944441);
  EXPECT_EQ(Hash(Literal::TimestampTz(kMicros20171116T223108 + 1)), -1207196810);
  EXPECT_EQ(Hash(Literal::TimestampNs(kMicros20171116T223108 * 1000)), -2047944441);
  EXPECT_EQ(Hash(Literal::TimestampNs(kMicros20171116T223108 * 1000 + 1001)), -1207196810);
  EXPECT_EQ(Hash(Literal::TimestampTzNs(kMicros20171116T223108 * 1000 + 1001)), -1207196810);
  EXPECT_EQ(Hash(Literal::String("iceberg")), 1210000089);
  ASSERT_OK_AND_ASSIGN(std::string uuid, ParseUuid("f79c3e09-677c-4bbd-a479-3f349cb785e7"));
  EXPECT_EQ(uuid, Bytes({0xF7, 0x9C, 0x3E, 0x09, 0x67, 0x7C, 0x4B, 0xBD, 0xA4, 0x79, 0x3F, 0x34, 0x9C, 0xB7,
                         0x85, 0xE7}));
  EXPECT_EQ(Hash(Literal::Uuid(uuid)), 1488055340);
  EXPECT_EQ(Hash(Literal::Fixed(Bytes({0, 1, 2, 3}))), -188683207);
  EXPECT_EQ(Hash(Literal::Binary(Bytes({0, 1, 2, 3}))), -188683207);
}

TEST(Murmur3, NonBucketableTypeVectors) {
  EXPECT_EQ(Hash(Literal::Boolean(true)), 1392991556);
  EXPECT_EQ(Hash(Literal::Float(1.0f)), -142385009);
  EXPECT_EQ(Hash(Literal::Double(1.0)), -142385009);
  EXPECT_EQ(Hash(Literal::Double(0.0)), 1669671676);
  EXPECT_EQ(Hash(Literal::Double(-0.0)), 1669671676);
  EXPECT_EQ(Hash(Literal::Float(-0.0f)), 1669671676);
  EXPECT_FALSE(HashLiteral(Literal::Null()).ok());
}

TEST(Murmur3, RawBytesAllTailLengths) {
  // Reference values of MurmurHash3_x86_32 with seed 0.
  EXPECT_EQ(Murmur3Hash32(""), 0);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3Hash32("hello")), 0x248bfa47u);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3Hash32("The quick brown fox jumps over the lazy dog")), 0x2e4ff723u);
  EXPECT_EQ(static_cast<uint32_t>(Murmur3Hash32("", 1)), 0x514e28b7u);
}

TEST(Murmur3, DecimalHashIgnoresScaleAndUsesMinimalBytes) {
  EXPECT_EQ(Hash(Literal::Decimal(1420, 2)), Hash(Literal::Decimal(1420, 5)));
  EXPECT_EQ(Hash(Literal::Decimal(1420, 2)), Murmur3Hash32(Bytes({0x05, 0x8c})));
  EXPECT_EQ(Hash(Literal::Decimal(-1, 0)), Murmur3Hash32(Bytes({0xff})));
}

TEST(Bucket, AppliesMaskAndModulo) {
  Transform bucket = Transform::Bucket(100);
  ASSERT_OK_AND_ASSIGN(Literal result, bucket.Apply(Literal::Int(34)));
  EXPECT_EQ(result, Literal::Int(2017239379 % 100));
  // Negative hashes are masked with Integer.MAX_VALUE before the modulo.
  ASSERT_OK_AND_ASSIGN(Literal negative, Transform::Bucket(16).Apply(Literal::Decimal(1420, 2)));
  EXPECT_EQ(negative, Literal::Int((-500754589 & 0x7fffffff) % 16));
  ASSERT_OK_AND_ASSIGN(Literal text, Transform::Bucket(4).Apply(Literal::String("iceberg")));
  EXPECT_EQ(text, Literal::Int(1210000089 % 4));
  ASSERT_OK_AND_ASSIGN(Literal null_result, bucket.Apply(Literal::Null()));
  EXPECT_TRUE(null_result.is_null());
}

TEST(Bucket, IntAndLongAgreeSoPromotionKeepsBuckets) {
  for (int32_t v : {0, 1, -1, 34, 2147483647, -2147483647 - 1}) {
    ASSERT_OK_AND_ASSIGN(Literal a, Transform::Bucket(1000).Apply(Literal::Int(v)));
    ASSERT_OK_AND_ASSIGN(Literal b, Transform::Bucket(1000).Apply(Literal::Long(v)));
    EXPECT_EQ(a, b) << v;
  }
}

TEST(Bucket, RejectsFloatingAndBoolean) {
  EXPECT_FALSE(Transform::Bucket(4).Apply(Literal::Double(1.0)).ok());
  EXPECT_FALSE(Transform::Bucket(4).Apply(Literal::Float(1.0f)).ok());
  EXPECT_FALSE(Transform::Bucket(4).Apply(Literal::Boolean(true)).ok());
  EXPECT_FALSE(Transform::Bucket(4).CanApply(PrimitiveType(TypeKind::kDouble)));
  EXPECT_FALSE(Transform::Bucket(4).CanApply(PrimitiveType(TypeKind::kBoolean)));
}

}  // namespace
}  // namespace floe::iceberg
