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

// DMS's AR_H_CHANGE_SEQ: 35 decimal digits, beyond 64 bits.
TEST(OrderValueTest, DigitsCompareAsNumbersUpTo38Digits) {
  Column c =
      Strings({"20240308142234000000000000000000011", "20240308142234000000000000000000100", "9", "0009",
               "99999999999999999999999999999999999999", "20240308142235000000000000000000001"});
  std::vector<OrderValue> values;
  for (int64_t row = 0; row < c.length; ++row) {
    ASSERT_OK_AND_ASSIGN(OrderValue v, OrderValueAt(c, row, OrderingKind::kDigits, "AR_H_CHANGE_SEQ"));
    values.push_back(v);
  }
  EXPECT_LT(values[0], values[1]);
  EXPECT_LT(values[1], values[5]);  // a later timestamp prefix wins over any sequence
  EXPECT_EQ(values[2], values[3]);  // leading zeros do not count
  EXPECT_LT(values[2], values[0]);
  EXPECT_LT(values[5], values[4]);
  EXPECT_EQ(values[2].ToHex(), std::string(31, '0') + "9");
  // 10^38 - 1 = 0x4b3b4ca85a86c47a098a223fffffffff.
  EXPECT_EQ(values[4].ToHex(), "4b3b4ca85a86c47a098a223fffffffff");

  Column bad = Strings({"12a", "", "-5", "123456789012345678901234567890123456789", nullptr});
  EXPECT_EQ(OrderValueAt(bad, 0, OrderingKind::kDigits, "seq").status().message(),
            "column seq row 0: \"12a\" is not a decimal number (character 2)");
  EXPECT_EQ(OrderValueAt(bad, 1, OrderingKind::kDigits, "seq").status().message(),
            "column seq row 1: empty string is not a digits ordering value");
  EXPECT_FALSE(OrderValueAt(bad, 2, OrderingKind::kDigits, "seq").ok());
  EXPECT_NE(OrderValueAt(bad, 3, OrderingKind::kDigits, "seq").status().message().find("more than 38"),
            std::string::npos);
  EXPECT_FALSE(OrderValueAt(bad, 4, OrderingKind::kDigits, "seq").ok());
  EXPECT_FALSE(CheckOrderColumn(Column(Int64()), OrderingKind::kDigits, "seq").ok());
}

// The DMS timestamp column: "yyyy-MM-dd HH:mm:ss.SSSSSS" strings.
TEST(OrderValueTest, TimestampTextOrdersByTheInstant) {
  Column c = Strings({"2024-03-08 14:22:34.123456", "2024-03-08 14:22:34.123457", "2024-03-08 14:22:34",
                      "2024-03-08T14:22:34.1234565Z", "1969-12-31 23:59:59.999999", "2024-03-09 00:00:00.0"});
  std::vector<OrderValue> values;
  for (int64_t row = 0; row < c.length; ++row) {
    ASSERT_OK_AND_ASSIGN(OrderValue v, OrderValueAt(c, row, OrderingKind::kTimestampText, "ts"));
    values.push_back(v);
  }
  EXPECT_LT(values[2], values[0]);
  EXPECT_LT(values[0], values[3]);  // nanoseconds count
  EXPECT_LT(values[3], values[1]);
  EXPECT_LT(values[4], values[2]);
  EXPECT_LT(values[1], values[5]);
  // The same instant as a timestamp column in nanoseconds orders the same way.
  Column ns(Timestamp(TimeUnit::kNano, false));
  ns.AppendValue(int64_t{1'709'907'754'123'456'000});
  ASSERT_OK_AND_ASSIGN(OrderValue as_number, OrderValueAt(ns, 0, OrderingKind::kTimestamp, "ts"));
  EXPECT_EQ(as_number, values[0]);

  Column bad = Strings({"2024-02-30 00:00:00", "2023-02-29 00:00:00", "2024-03-08", "2024-03-08 25:00:00",
                        "2024-03-08 10:00:00.", "2024-03-08 10:00:00+01:00", "1500-01-01 00:00:00",
                        "2024-03-08 10:00:00.1234567890"});
  for (int64_t row = 0; row < bad.length; ++row) {
    auto r = OrderValueAt(bad, row, OrderingKind::kTimestampText, "ts");
    ASSERT_FALSE(r.ok()) << row;
    EXPECT_NE(r.status().message().find("is not a timestamp like"), std::string::npos)
        << r.status().message();
  }
}

// Issue 15 item 2: two ordering columns in the two halves, exactly.
TEST(OrderValueTest, TwoColumnsOrderByTheFirstThenTheSecond) {
  OrderingSpec spec{{{"ts", OrderingKind::kTimestamp}, {"lsn", OrderingKind::kNumber}}, false};
  ASSERT_OK(CheckOrderingSpec(spec));
  Column ts(Timestamp(TimeUnit::kMicro, true));
  Column lsn(Int64());
  const std::pair<int64_t, int64_t> rows[] = {
      {100, 7}, {100, 8}, {101, -5}, {-3, INT64_MAX}, {100, INT64_MIN}};
  for (const auto& [t, l] : rows) {
    ts.AppendValue(t);
    lsn.AppendValue(l);
  }
  std::vector<OrderValue> values;
  for (int64_t row = 0; row < ts.length; ++row) {
    ASSERT_OK_AND_ASSIGN(OrderValue v, OrderingValueAt(spec, {&ts, &lsn}, row));
    values.push_back(v);
  }
  EXPECT_LT(values[0], values[1]);  // same time: the second column decides
  EXPECT_LT(values[1], values[2]);  // a later time wins whatever the second column says
  EXPECT_LT(values[3], values[4]);
  EXPECT_LT(values[4], values[0]);
  EXPECT_EQ(values[0].ToHex(), "80000000000000648000000000000007");

  // One column: the same value as OrderValueAt.
  OrderingSpec one{{{"lsn", OrderingKind::kNumber}}, false};
  ASSERT_OK_AND_ASSIGN(OrderValue single, OrderingValueAt(one, {&lsn}, 0));
  ASSERT_OK_AND_ASSIGN(OrderValue direct, OrderValueAt(lsn, 0, OrderingKind::kNumber, "lsn"));
  EXPECT_EQ(single, direct);

  // What 16 bytes cannot hold exactly is refused, never compared wrongly.
  EXPECT_FALSE(
      CheckOrderingSpec({{{"a", OrderingKind::kPaddedHex}, {"b", OrderingKind::kNumber}}, false}).ok());
  EXPECT_FALSE(CheckOrderingSpec({{{"a", OrderingKind::kNumber}, {"b", OrderingKind::kDigits}}, false}).ok());
  EXPECT_FALSE(
      CheckOrderingSpec(
          {{{"a", OrderingKind::kNumber}, {"b", OrderingKind::kNumber}, {"c", OrderingKind::kNumber}}, false})
          .ok());
  EXPECT_FALSE(CheckOrderingSpec({{}, false}).ok());
  Column null_lsn(Int64());
  null_lsn.AppendNull();
  EXPECT_FALSE(OrderingValueAt(spec, {&ts, &null_lsn}, 0).ok());
}

// DMS full-load rows: no AR_H_CHANGE_SEQ (absent, null or empty) orders first.
TEST(OrderValueTest, MissingValuesAreOldestOnlyWhenTheSpecSaysSo) {
  OrderingSpec dms{{{"AR_H_CHANGE_SEQ", OrderingKind::kDigits}}, true};
  Column seq = Strings({nullptr, "", "1"});
  ASSERT_OK_AND_ASSIGN(OrderValue absent, OrderingValueAt(dms, {nullptr}, 0));
  ASSERT_OK_AND_ASSIGN(OrderValue null_value, OrderingValueAt(dms, {&seq}, 0));
  ASSERT_OK_AND_ASSIGN(OrderValue empty, OrderingValueAt(dms, {&seq}, 1));
  ASSERT_OK_AND_ASSIGN(OrderValue one, OrderingValueAt(dms, {&seq}, 2));
  EXPECT_EQ(absent, OrderValue{});
  EXPECT_EQ(null_value, OrderValue{});
  EXPECT_EQ(empty, OrderValue{});
  EXPECT_LT(absent, one);

  OrderingSpec strict{{{"AR_H_CHANGE_SEQ", OrderingKind::kDigits}}, false};
  EXPECT_EQ(OrderingValueAt(strict, {nullptr}, 0).status().message(),
            "missing ordering column AR_H_CHANGE_SEQ");
  EXPECT_FALSE(OrderingValueAt(strict, {&seq}, 0).ok());
  EXPECT_FALSE(OrderingValueAt(strict, {&seq}, 1).ok());
}

}  // namespace
}  // namespace floe::ingest
