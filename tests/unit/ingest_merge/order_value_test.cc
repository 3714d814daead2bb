#include "ingest/merge/order_value.h"

#include <gtest/gtest.h>

#include "test_util.h"

namespace floe::ingest {
namespace {

Column Strings(std::initializer_list<const char*> values) {
  Column c(String());
  for (const char* v : values) {
    if (v) {
      c.AppendBytes(v);
    } else {
      c.AppendNull();
    }
  }
  return c;
}

OrderValue Hex(const Column& c, int64_t row) {
  auto r = OrderValueAt(c, row, OrderingKind::kPaddedHex, "seq");
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : OrderValue{};
}

TEST(OrderValueTest, HexIsLeftPaddedSoShorterMeansSmaller) {
  Column c = Strings({"ff", "100", "0FF", "FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF", "0"});
  EXPECT_LT(Hex(c, 0), Hex(c, 1));  // "ff" < "100"
  EXPECT_EQ(Hex(c, 0), Hex(c, 2));  // case and leading zeros do not matter
  EXPECT_EQ(Hex(c, 0).ToHex(), std::string(30, '0') + "ff");
  EXPECT_EQ(Hex(c, 3).ToHex(), std::string(32, 'f'));
  EXPECT_LT(Hex(c, 1), Hex(c, 3));
  EXPECT_LT(Hex(c, 4), Hex(c, 0));
  EXPECT_EQ(Hex(c, 4).ToHex(), std::string(32, '0'));
}

TEST(OrderValueTest, HexOddLengthLandsOnTheRightNibbles) {
  Column c = Strings({"abc", "1234567890abcdef1234567890abcde"});
  EXPECT_EQ(Hex(c, 0).ToHex(), std::string(29, '0') + "abc");
  EXPECT_EQ(Hex(c, 1).ToHex(), "01234567890abcdef1234567890abcde");
}

TEST(OrderValueTest, HexRejectsBadValuesNamingColumnAndRow) {
  Column c = Strings({"12g4", "", nullptr, "0x12", "123456789012345678901234567890123"});
  for (int64_t row = 0; row < c.length; ++row) {
    auto r = OrderValueAt(c, row, OrderingKind::kPaddedHex, "gwcbi___seqval_hex");
    ASSERT_FALSE(r.ok()) << row;
    EXPECT_EQ(r.status().kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(r.status().message().find("column gwcbi___seqval_hex row " + std::to_string(row)),
              std::string::npos)
        << r.status().message();
  }
  auto too_long = OrderValueAt(c, 4, OrderingKind::kPaddedHex, "gwcbi___seqval_hex");
  EXPECT_EQ(too_long.status().message(),
            "column gwcbi___seqval_hex row 4: \"123456789012345678901234567890123\" has 33 hex digits, at "
            "most 32");
  EXPECT_FALSE(OrderValueAt(c, 5, OrderingKind::kPaddedHex, "seq").ok());  // past the end
}

TEST(OrderValueTest, NumbersOrderBySignedValue) {
  Column c(Int64());
  for (int64_t v : {int64_t{-5}, int64_t{0}, int64_t{3}, INT64_MIN, INT64_MAX}) c.AppendValue(v);
  std::vector<OrderValue> values;
  for (int64_t row = 0; row < c.length; ++row) {
    ASSERT_OK_AND_ASSIGN(OrderValue v, OrderValueAt(c, row, OrderingKind::kNumber, "n"));
    values.push_back(v);
  }
  EXPECT_LT(values[3], values[0]);
  EXPECT_LT(values[0], values[1]);
  EXPECT_LT(values[1], values[2]);
  EXPECT_LT(values[2], values[4]);
  EXPECT_EQ(values[1].ToHex(), "00000000000000008000000000000000");

  Column small(Int8());
  small.AppendValue(int8_t{-1});
  ASSERT_OK_AND_ASSIGN(OrderValue minus_one, OrderValueAt(small, 0, OrderingKind::kNumber, "n"));
  EXPECT_LT(minus_one, values[1]);
  Column unsigned_column(UInt32());
  unsigned_column.AppendValue(uint32_t{4000000000u});
  ASSERT_OK_AND_ASSIGN(OrderValue big, OrderValueAt(unsigned_column, 0, OrderingKind::kNumber, "n"));
  EXPECT_LT(values[2], big);
}

TEST(OrderValueTest, TimestampsAndDates) {
  Column ts(Timestamp(TimeUnit::kMicro, true));
  ts.AppendValue(int64_t{-1'000'000});  // before 1970
  ts.AppendValue(int64_t{1'700'000'000'000'000});
  ts.AppendNull();
  ASSERT_OK_AND_ASSIGN(OrderValue early, OrderValueAt(ts, 0, OrderingKind::kTimestamp, "ts"));
  ASSERT_OK_AND_ASSIGN(OrderValue late, OrderValueAt(ts, 1, OrderingKind::kTimestamp, "ts"));
  EXPECT_LT(early, late);
  auto null_value = OrderValueAt(ts, 2, OrderingKind::kTimestamp, "ts");
  EXPECT_EQ(null_value.status().message(), "column ts row 2: ordering value is null");

  Column date(Date());
  date.AppendValue(int32_t{19000});
  date.AppendValue(int32_t{19001});
  ASSERT_OK_AND_ASSIGN(OrderValue d0, OrderValueAt(date, 0, OrderingKind::kTimestamp, "d"));
  ASSERT_OK_AND_ASSIGN(OrderValue d1, OrderValueAt(date, 1, OrderingKind::kTimestamp, "d"));
  EXPECT_LT(d0, d1);
}

TEST(OrderValueTest, DecimalsWithScaleZeroUpTo18Digits) {
  Column dec(Decimal(18, 0));
  dec.AppendValue(static_cast<__int128>(-7));
  dec.AppendValue(static_cast<__int128>(999'999'999'999'999'999));
  ASSERT_OK_AND_ASSIGN(OrderValue a, OrderValueAt(dec, 0, OrderingKind::kNumber, "d"));
  ASSERT_OK_AND_ASSIGN(OrderValue b, OrderValueAt(dec, 1, OrderingKind::kNumber, "d"));
  EXPECT_LT(a, b);

  Column scaled(Decimal(10, 2));
  scaled.AppendValue(static_cast<__int128>(1));
  auto r = OrderValueAt(scaled, 0, OrderingKind::kNumber, "price");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("price"), std::string::npos);
  EXPECT_FALSE(CheckOrderColumn(Column(Decimal(38, 0)), OrderingKind::kNumber, "d").ok());
}

TEST(OrderValueTest, CheckOrderColumnMatchesKindToType) {
  EXPECT_OK(CheckOrderColumn(Column(String()), OrderingKind::kPaddedHex, "s"));
  EXPECT_FALSE(CheckOrderColumn(Column(Int64()), OrderingKind::kPaddedHex, "s").ok());
  EXPECT_FALSE(CheckOrderColumn(Column(String()), OrderingKind::kNumber, "s").ok());
  EXPECT_FALSE(CheckOrderColumn(Column(Float64()), OrderingKind::kNumber, "s").ok());
  EXPECT_FALSE(CheckOrderColumn(Column(UInt64()), OrderingKind::kNumber, "s").ok());
  EXPECT_OK(CheckOrderColumn(Column(Int32()), OrderingKind::kTimestamp, "s"));
  Status wrong = CheckOrderColumn(Column(Float64()), OrderingKind::kNumber, "amount");
  EXPECT_NE(wrong.message().find("ordering column amount has type"), std::string::npos) << wrong.message();
}

}  // namespace
}  // namespace floe::ingest
