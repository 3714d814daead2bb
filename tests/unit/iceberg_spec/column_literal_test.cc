// LiteralAt: one column cell as an Iceberg Literal, with the column's
// buffers checked against the type before anything is read.
#include "iceberg/spec/column_literal.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::iceberg {
namespace {

TEST(ColumnLiteralTest, ReadsEachPrimitiveKind) {
  Column longs(Int64());
  longs.AppendValue<int64_t>(-7);
  longs.AppendNull();
  ASSERT_OK_AND_ASSIGN(Literal v, LiteralAt(longs, 0, PrimitiveType(TypeKind::kLong)));
  EXPECT_EQ(v, Literal::Long(-7));
  ASSERT_OK_AND_ASSIGN(Literal null, LiteralAt(longs, 1, PrimitiveType(TypeKind::kLong)));
  EXPECT_TRUE(null.is_null());
  ASSERT_OK_AND_ASSIGN(Literal ts, LiteralAt(longs, 0, PrimitiveType(TypeKind::kTimestampTz)));
  EXPECT_EQ(ts, Literal::TimestampTz(-7));

  Column strings(String());
  strings.AppendBytes("abc");
  ASSERT_OK_AND_ASSIGN(Literal s, LiteralAt(strings, 0, PrimitiveType(TypeKind::kString)));
  EXPECT_EQ(s, Literal::String("abc"));

  Column decimals(Decimal(10, 2));
  decimals.AppendValue<Int128>(Int128{1420});
  ASSERT_OK_AND_ASSIGN(Literal d, LiteralAt(decimals, 0, DecimalType(10, 2)));
  EXPECT_EQ(d, Literal::Decimal(1420, 2));

  Column fixed(FixedBinary(3));
  const uint8_t bytes[3] = {1, 2, 3};
  fixed.AppendFixed(bytes);
  ASSERT_OK_AND_ASSIGN(Literal f, LiteralAt(fixed, 0, FixedType(3)));
  EXPECT_EQ(f, Literal::Fixed(std::string("\x01\x02\x03", 3)));
}

TEST(ColumnLiteralTest, RefusesRowsAndBuffersThatDoNotHoldTheValue) {
  Column ints(Int32());
  ints.AppendValue<int32_t>(5);
  EXPECT_EQ(LiteralAt(ints, 1, PrimitiveType(TypeKind::kInt)).status().kind(), ErrorKind::kOutOfRange);
  EXPECT_EQ(LiteralAt(ints, -1, PrimitiveType(TypeKind::kInt)).status().kind(), ErrorKind::kOutOfRange);
  // An int32 column read as long would read 8 bytes of a 4-byte buffer.
  EXPECT_EQ(LiteralAt(ints, 0, PrimitiveType(TypeKind::kLong)).status().kind(), ErrorKind::kInvalidArgument);
  Column short_values(Int64());
  short_values.length = 2;  // claims two rows, holds none
  EXPECT_EQ(LiteralAt(short_values, 1, PrimitiveType(TypeKind::kLong)).status().kind(),
            ErrorKind::kInvalidArgument);
  Column bad_offsets(String());
  bad_offsets.AppendBytes("ab");
  bad_offsets.offsets[1] = 99;  // past the data
  EXPECT_EQ(LiteralAt(bad_offsets, 0, PrimitiveType(TypeKind::kString)).status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(LiteralAt(ints, 0, PrimitiveType(TypeKind::kString)).status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(LiteralAt(ints, 0, FixedType(3)).status().kind(), ErrorKind::kInvalidArgument);
  Column list(List(MakeField("element", Int32())));
  list.AppendListEnd();
  EXPECT_EQ(LiteralAt(list, 0, ListType(2, PrimitiveType(TypeKind::kInt), false)).status().kind(),
            ErrorKind::kNotSupported);
}

}  // namespace
}  // namespace floe::iceberg
