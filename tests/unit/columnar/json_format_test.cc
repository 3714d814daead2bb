// The JSON-lines value contract of json_format.h.
#include "columnar/json_format.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace floe {
namespace {

template <typename T>
std::string Json(DataType type, T value) {
  Column column(type);
  column.AppendValue(value);
  column.length = 1;
  std::string out;
  AppendJsonValue(column, 0, &out);
  return out;
}

std::string JsonBytes(DataType type, std::string_view bytes) {
  Column column(type);
  column.offsets = {0};
  column.AppendBytes(bytes);
  column.length = 1;
  std::string out;
  AppendJsonValue(column, 0, &out);
  return out;
}

TEST(JsonFormatTest, IntegersAreExact) {
  EXPECT_EQ(Json(Int64(), std::numeric_limits<int64_t>::min()), "-9223372036854775808");
  EXPECT_EQ(Json(UInt64(), std::numeric_limits<uint64_t>::max()), "18446744073709551615");
  EXPECT_EQ(Json(Int8(), int8_t{-5}), "-5");
}

TEST(JsonFormatTest, FloatsRoundTripAndNonFiniteAreStrings) {
  EXPECT_EQ(Json(Float64(), 0.1), "0.1");
  EXPECT_EQ(Json(Float32(), 0.1f), "0.1");
  EXPECT_EQ(Json(Float64(), std::nan("")), "\"NaN\"");
  EXPECT_EQ(Json(Float64(), -std::numeric_limits<double>::infinity()), "\"-Infinity\"");
  EXPECT_EQ(Json(Float16(), uint16_t{0x3C00}), "1");
  EXPECT_EQ(Json(Float16(), uint16_t{0xC000}), "-2");
  EXPECT_EQ(Json(Float16(), uint16_t{0x0001}), "5.9604645e-08");  // smallest subnormal 2^-24, as a float
}

TEST(JsonFormatTest, DecimalsKeepTheirScale) {
  EXPECT_EQ(Json(Decimal(5, 2), static_cast<__int128>(-1230)), "\"-12.30\"");
  EXPECT_EQ(Json(Decimal(5, 3), static_cast<__int128>(5)), "\"0.005\"");
  EXPECT_EQ(Json(Decimal(5, 0), static_cast<__int128>(42)), "\"42\"");
  const __int128 big = static_cast<__int128>(std::numeric_limits<int64_t>::max()) * 1000;
  EXPECT_EQ(FormatDecimal(-big, 2), "-92233720368547758070.00");
}

TEST(JsonFormatTest, DatesTimesAndTimestamps) {
  EXPECT_EQ(FormatDate(0), "1970-01-01");
  EXPECT_EQ(FormatDate(-1), "1969-12-31");
  EXPECT_EQ(FormatDate(-719162), "0001-01-01");
  EXPECT_EQ(FormatDate(-719528), "0000-01-01");
  EXPECT_EQ(FormatTimestamp(-1, TimeUnit::kMilli, true), "1969-12-31T23:59:59.999Z");
  EXPECT_EQ(FormatTimestamp(1, TimeUnit::kNano, false), "1970-01-01T00:00:00.000000001");
  EXPECT_EQ(FormatTimestamp(std::numeric_limits<int64_t>::min(), TimeUnit::kMicro, false),
            "-290308-12-21T19:59:05.224192");
  EXPECT_EQ(FormatTimeOfDay(3723004, TimeUnit::kMilli), "01:02:03.004");
  EXPECT_EQ(Json(Date(), int32_t{19000}), "\"2022-01-08\"");
  EXPECT_EQ(Json(Time(TimeUnit::kMicro), int64_t{1}), "\"00:00:00.000001\"");
}

TEST(JsonFormatTest, StringsEscapeAndReplaceInvalidUtf8) {
  EXPECT_EQ(JsonBytes(String(), "a\"b\\c\n\x01"), "\"a\\\"b\\\\c\\n\\u0001\"");
  EXPECT_EQ(JsonBytes(String(), "h\xC3\xA9"), "\"h\xC3\xA9\"");
  EXPECT_EQ(JsonBytes(String(), "x\xFFy\xC3"), "\"x\\uFFFDy\\uFFFD\"");
  EXPECT_EQ(JsonBytes(String(), "\xED\xA0\x80"), "\"\\uFFFD\\uFFFD\\uFFFD\"");  // surrogate
  EXPECT_EQ(JsonBytes(Binary(), std::string("\x00\xAB", 2)), "\"00ab\"");
}

TEST(JsonFormatTest, UuidNestedAndCsv) {
  Column uuid(Uuid());
  uint8_t bytes[16];
  for (int i = 0; i < 16; ++i) bytes[i] = static_cast<uint8_t>(i);
  uuid.AppendFixed(bytes);
  uuid.length = 1;
  std::string out;
  AppendJsonValue(uuid, 0, &out);
  EXPECT_EQ(out, "\"00010203-0405-0607-0809-0a0b0c0d0e0f\"");

  RecordBatch batch;
  batch.schema = {MakeField("l", List(MakeField("element", Int32()))), MakeField("s", String())};
  Column list = MakeEmptyColumn(batch.schema[0].type);
  list.children[0].AppendValue(int32_t{1});
  list.children[0].AppendNull();
  list.children[0].length = 2;
  list.offsets = {0, 2};
  list.length = 1;
  Column text(String());
  text.offsets = {0};
  text.AppendBytes("a,\"b\"");
  text.length = 1;
  batch.columns = {list, text};
  batch.num_rows = 1;
  out.clear();
  AppendJsonRow(batch, 0, &out);
  EXPECT_EQ(out, "{\"l\":[1,null],\"s\":\"a,\\\"b\\\"\"}");
  out.clear();
  AppendCsvHeader(batch.schema, &out);
  AppendCsvRow(batch, 0, &out);
  EXPECT_EQ(out, "l,s\r\n\"[1,null]\",\"a,\"\"b\"\"\"\r\n");
}

}  // namespace
}  // namespace floe
