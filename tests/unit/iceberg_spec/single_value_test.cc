// Appendix D binary single-value serialization.
#include "iceberg/spec/single_value.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "test_util.h"

namespace floe::iceberg {
namespace {

std::string Bytes(std::initializer_list<int> bytes) {
  std::string out;
  for (int b : bytes) out.push_back(static_cast<char>(b));
  return out;
}

void ExpectRoundTrip(const Literal& value, const Type& type, const std::string& expected_bytes) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, SerializeSingleValue(value, type));
  EXPECT_EQ(bytes, expected_bytes) << value.ToString();
  ASSERT_OK_AND_ASSIGN(Literal back, DeserializeSingleValue(bytes, type));
  EXPECT_EQ(back, value) << value.ToString();
}

TEST(SingleValue, ExactBytesAndRoundTrips) {
  ExpectRoundTrip(Literal::Boolean(true), PrimitiveType(TypeKind::kBoolean), Bytes({1}));
  ExpectRoundTrip(Literal::Boolean(false), PrimitiveType(TypeKind::kBoolean), Bytes({0}));
  ExpectRoundTrip(Literal::Int(1), PrimitiveType(TypeKind::kInt), Bytes({1, 0, 0, 0}));
  ExpectRoundTrip(Literal::Int(-2), PrimitiveType(TypeKind::kInt), Bytes({0xfe, 0xff, 0xff, 0xff}));
  ExpectRoundTrip(Literal::Long(0x0102030405060708LL), PrimitiveType(TypeKind::kLong),
                  Bytes({8, 7, 6, 5, 4, 3, 2, 1}));
  ExpectRoundTrip(Literal::Date(17486), PrimitiveType(TypeKind::kDate), Bytes({0x4e, 0x44, 0, 0}));
  ExpectRoundTrip(Literal::Time(1), PrimitiveType(TypeKind::kTime), Bytes({1, 0, 0, 0, 0, 0, 0, 0}));
  ExpectRoundTrip(Literal::Timestamp(-1), PrimitiveType(TypeKind::kTimestamp),
                  Bytes({0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}));
  ExpectRoundTrip(Literal::TimestampTz(256), PrimitiveType(TypeKind::kTimestampTz),
                  Bytes({0, 1, 0, 0, 0, 0, 0, 0}));
  ExpectRoundTrip(Literal::TimestampNs(2), PrimitiveType(TypeKind::kTimestampNs),
                  Bytes({2, 0, 0, 0, 0, 0, 0, 0}));
  ExpectRoundTrip(Literal::Float(1.0f), PrimitiveType(TypeKind::kFloat), Bytes({0, 0, 0x80, 0x3f}));
  ExpectRoundTrip(Literal::Double(1.0), PrimitiveType(TypeKind::kDouble),
                  Bytes({0, 0, 0, 0, 0, 0, 0xf0, 0x3f}));
  ExpectRoundTrip(Literal::String("iceberg"), PrimitiveType(TypeKind::kString), "iceberg");
  ExpectRoundTrip(Literal::String(""), PrimitiveType(TypeKind::kString), "");
  ExpectRoundTrip(Literal::Binary(Bytes({0, 1, 2})), PrimitiveType(TypeKind::kBinary), Bytes({0, 1, 2}));
  ExpectRoundTrip(Literal::Fixed(Bytes({9, 8})), FixedType(2), Bytes({9, 8}));
  ASSERT_OK_AND_ASSIGN(std::string uuid, ParseUuid("f79c3e09-677c-4bbd-a479-3f349cb785e7"));
  ExpectRoundTrip(Literal::Uuid(uuid), PrimitiveType(TypeKind::kUuid), uuid);
}

TEST(SingleValue, DecimalsUseMinimalTwosComplement) {
  const Type dec = DecimalType(38, 2);
  ExpectRoundTrip(Literal::Decimal(0, 2), dec, Bytes({0}));
  ExpectRoundTrip(Literal::Decimal(1420, 2), dec, Bytes({0x05, 0x8c}));
  ExpectRoundTrip(Literal::Decimal(-1, 2), dec, Bytes({0xff}));
  ExpectRoundTrip(Literal::Decimal(127, 2), dec, Bytes({0x7f}));
  ExpectRoundTrip(Literal::Decimal(128, 2), dec, Bytes({0x00, 0x80}));
  ExpectRoundTrip(Literal::Decimal(-128, 2), dec, Bytes({0x80}));
  ExpectRoundTrip(Literal::Decimal(-129, 2), dec, Bytes({0xff, 0x7f}));
  Int128 max38 = 1;
  for (int i = 0; i < 38; ++i) max38 *= 10;
  max38 -= 1;
  ASSERT_OK_AND_ASSIGN(std::string bytes, SerializeSingleValue(Literal::Decimal(-max38, 2), dec));
  EXPECT_EQ(bytes.size(), 16u);
  ASSERT_OK_AND_ASSIGN(Literal back, DeserializeSingleValue(bytes, dec));
  EXPECT_EQ(back, Literal::Decimal(-max38, 2));
}

TEST(SingleValue, DecodingChecksLengths) {
  EXPECT_EQ(DeserializeSingleValue(Bytes({1, 2, 3}), PrimitiveType(TypeKind::kInt)).status().kind(),
            ErrorKind::kCorruption);
  EXPECT_FALSE(DeserializeSingleValue(Bytes({1, 2, 3, 4}), PrimitiveType(TypeKind::kLong)).ok());
  EXPECT_FALSE(DeserializeSingleValue("", PrimitiveType(TypeKind::kBoolean)).ok());
  EXPECT_FALSE(DeserializeSingleValue(std::string(15, 'x'), PrimitiveType(TypeKind::kUuid)).ok());
  EXPECT_FALSE(DeserializeSingleValue(Bytes({1}), FixedType(2)).ok());
  EXPECT_FALSE(DeserializeSingleValue("", DecimalType(9, 2)).ok());
  EXPECT_FALSE(DeserializeSingleValue(std::string(17, '\x01'), DecimalType(38, 0)).ok());
  EXPECT_FALSE(DeserializeSingleValue("x", StructType({})).ok());
}

TEST(SingleValue, SerializingChecksTheType) {
  EXPECT_FALSE(SerializeSingleValue(Literal::Null(), PrimitiveType(TypeKind::kInt)).ok());
  EXPECT_FALSE(SerializeSingleValue(Literal::Long(1), PrimitiveType(TypeKind::kInt)).ok());
  EXPECT_FALSE(SerializeSingleValue(Literal::Decimal(1, 3), DecimalType(9, 2)).ok());
  EXPECT_FALSE(SerializeSingleValue(Literal::Fixed("abc"), FixedType(2)).ok());
}

TEST(SingleValue, NaNSurvivesBitExactly) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ASSERT_OK_AND_ASSIGN(std::string bytes,
                       SerializeSingleValue(Literal::Double(nan), PrimitiveType(TypeKind::kDouble)));
  ASSERT_OK_AND_ASSIGN(Literal back, DeserializeSingleValue(bytes, PrimitiveType(TypeKind::kDouble)));
  EXPECT_TRUE(std::isnan(back.double_value));
}

}  // namespace
}  // namespace floe::iceberg
