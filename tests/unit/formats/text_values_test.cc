// Numbers and temporal values written as text: exact parsing, no rounding.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "columnar/calendar.h"
#include "formats/number_text.h"
#include "formats/temporal_text.h"

namespace floe::formats {
namespace {

TEST(NumberTextTest, Int64IsExactAndRangeChecked) {
  int64_t v = 0;
  EXPECT_TRUE(ParseInt64Text("9223372036854775807", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::max());
  EXPECT_TRUE(ParseInt64Text("-9223372036854775808", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::min());
  EXPECT_FALSE(ParseInt64Text("9223372036854775808", &v));
  EXPECT_FALSE(ParseInt64Text("-9223372036854775809", &v));
  EXPECT_TRUE(ParseInt64Text("+00000000000000000000042", &v));
  EXPECT_EQ(v, 42);
  EXPECT_FALSE(ParseInt64Text("", &v));
  EXPECT_FALSE(ParseInt64Text("-", &v));
  EXPECT_FALSE(ParseInt64Text("1.0", &v));
  EXPECT_FALSE(ParseInt64Text(" 1", &v));
  EXPECT_FALSE(ParseInt64Text("99999999999999999999", &v));
}

TEST(NumberTextTest, DecimalsAreExact) {
  DecimalText d;
  ASSERT_TRUE(ParseDecimalText("-12.340", &d));
  EXPECT_EQ(d.unscaled, -12340);
  EXPECT_EQ(d.scale, 3);
  EXPECT_EQ(d.precision, 5);
  ASSERT_TRUE(ParseDecimalText("0.05", &d));
  EXPECT_EQ(d.unscaled, 5);
  EXPECT_EQ(d.precision, 2);
  ASSERT_TRUE(ParseDecimalText("1.5e3", &d));
  EXPECT_EQ(d.unscaled, 1500);
  EXPECT_EQ(d.scale, 0);
  ASSERT_TRUE(ParseDecimalText("12345678901234567890123456789012345678", &d));
  EXPECT_FALSE(ParseDecimalText("123456789012345678901234567890123456789", &d));
  EXPECT_FALSE(ParseDecimalText("1.2.3", &d));
  EXPECT_FALSE(ParseDecimalText("abc", &d));

  __int128 v;
  ASSERT_TRUE(ParseDecimalText("12.3", &d));
  ASSERT_TRUE(RescaleDecimal(d, 12, 2, &v));
  EXPECT_EQ(v, 1230);
  ASSERT_TRUE(ParseDecimalText("1.230", &d));
  EXPECT_TRUE(RescaleDecimal(d, 12, 2, &v));  // trailing zero: exact
  ASSERT_TRUE(ParseDecimalText("1.234", &d));
  EXPECT_FALSE(RescaleDecimal(d, 12, 2, &v));  // would round
  ASSERT_TRUE(ParseDecimalText("12345678901", &d));
  EXPECT_FALSE(RescaleDecimal(d, 12, 2, &v));  // 11 integer digits > 10
  ASSERT_TRUE(ParseDecimalText("9999999999.99", &d));
  EXPECT_TRUE(RescaleDecimal(d, 12, 2, &v));
}

TEST(NumberTextTest, DoublesNeverOverflowSilently) {
  double v;
  ASSERT_TRUE(ParseDoubleText("0.1", &v));
  EXPECT_EQ(v, 0.1);
  ASSERT_TRUE(ParseDoubleText("+1.5e3", &v));
  EXPECT_EQ(v, 1500);
  EXPECT_FALSE(ParseDoubleText("1e400", &v));
  EXPECT_FALSE(ParseDoubleText("1e-400", &v));
  ASSERT_TRUE(ParseDoubleText("0e-400", &v));
  EXPECT_EQ(v, 0);
  ASSERT_TRUE(ParseDoubleText("-Infinity", &v));
  EXPECT_TRUE(std::isinf(v) && v < 0);
  ASSERT_TRUE(ParseDoubleText("NaN", &v));
  EXPECT_TRUE(std::isnan(v));
  EXPECT_FALSE(ParseDoubleText("1,5", &v));
  EXPECT_FALSE(ParseDoubleText("0x10", &v));
  float f;
  EXPECT_FALSE(ParseFloatText("1e39", &f));
  ASSERT_TRUE(ParseFloatText("0.1", &f));
  EXPECT_EQ(f, 0.1f);
}

TEST(NumberTextTest, Classification) {
  EXPECT_EQ(ClassifyNumberText("42").kind, NumberShape::kInteger);
  EXPECT_EQ(ClassifyNumberText("0").kind, NumberShape::kInteger);
  EXPECT_EQ(ClassifyNumberText("007").kind, NumberShape::kNotANumber);
  EXPECT_EQ(ClassifyNumberText("-01.5").kind, NumberShape::kNotANumber);
  const NumberShape decimal = ClassifyNumberText("-123.4500");
  EXPECT_EQ(decimal.kind, NumberShape::kDecimal);
  EXPECT_EQ(decimal.integer_digits, 3);
  EXPECT_EQ(decimal.scale, 4);
  EXPECT_EQ(ClassifyNumberText("99999999999999999999").kind, NumberShape::kDecimal);
  EXPECT_EQ(ClassifyNumberText("1e5").kind, NumberShape::kDouble);
  EXPECT_EQ(ClassifyNumberText("NaN").kind, NumberShape::kDouble);
  EXPECT_EQ(ClassifyNumberText("1e").kind, NumberShape::kNotANumber);
  EXPECT_EQ(ClassifyNumberText("").kind, NumberShape::kNotANumber);
  EXPECT_EQ(ClassifyNumberText("-").kind, NumberShape::kNotANumber);
  EXPECT_EQ(ClassifyNumberText("2020-01-01").kind, NumberShape::kNotANumber);
}

TEST(TemporalTextTest, IsoDatesCheckTheCalendar) {
  int32_t days;
  ASSERT_TRUE(ParseIsoDate("1970-01-01", &days));
  EXPECT_EQ(days, 0);
  ASSERT_TRUE(ParseIsoDate("2000-02-29", &days));
  EXPECT_EQ(days, 11016);
  EXPECT_FALSE(ParseIsoDate("1900-02-29", &days));
  EXPECT_FALSE(ParseIsoDate("2021-13-01", &days));
  EXPECT_FALSE(ParseIsoDate("2021-04-31", &days));
  ASSERT_TRUE(ParseIsoDate("0001-01-01", &days));
  EXPECT_EQ(days, -719162);
  EXPECT_EQ(DaysFromCivil(1969, 12, 31), -1);
}

TEST(TemporalTextTest, IsoTimestampsWithAndWithoutZone) {
  TimestampText ts;
  int64_t v;
  ASSERT_TRUE(ParseIsoTimestamp("2022-08-04 09:16:26.008321", &ts));
  EXPECT_FALSE(ts.has_zone);
  ASSERT_TRUE(TimestampTextToUnit(ts, TimeUnit::kMicro, false, &v));
  EXPECT_EQ(v, 1659604586008321);
  ASSERT_TRUE(ParseIsoTimestamp("2022-08-04T11:16:26.008321+02:00", &ts));
  EXPECT_TRUE(ts.has_zone);
  ASSERT_TRUE(TimestampTextToUnit(ts, TimeUnit::kMicro, true, &v));
  EXPECT_EQ(v, 1659604586008321);
  EXPECT_FALSE(TimestampTextToUnit(ts, TimeUnit::kMicro, false, &v));  // zoned into a local column
  ASSERT_TRUE(ParseIsoTimestamp("2022-08-04 09:16:26+00", &ts));
  EXPECT_TRUE(ts.has_zone);
  ASSERT_TRUE(ParseIsoTimestamp("2022-08-04T09:16:26Z", &ts));
  ASSERT_TRUE(ParseIsoTimestamp("2022-08-04 09:16", &ts));
  ASSERT_TRUE(ParseIsoTimestamp("2022-08-04", &ts));
  EXPECT_FALSE(ts.has_time);
  EXPECT_FALSE(ParseIsoTimestamp("2022-08-04 24:00:00", &ts));
  EXPECT_FALSE(ParseIsoTimestamp("2022-08-04 09:16:26.", &ts));
  EXPECT_FALSE(ParseIsoTimestamp("2022-08-04 09:16:26+25:00", &ts));
  // Nanoseconds fit a nanosecond column; into microseconds they would round.
  ASSERT_TRUE(ParseIsoTimestamp("1970-01-01 00:00:00.000000001", &ts));
  EXPECT_FALSE(TimestampTextToUnit(ts, TimeUnit::kMicro, false, &v));
  ASSERT_TRUE(TimestampTextToUnit(ts, TimeUnit::kNano, false, &v));
  EXPECT_EQ(v, 1);
  ASSERT_TRUE(ParseIsoTimestamp("1969-12-31 23:59:59.5", &ts));
  ASSERT_TRUE(TimestampTextToUnit(ts, TimeUnit::kMilli, false, &v));
  EXPECT_EQ(v, -500);
}

// The fixed-offset reading of the common shape must give what the general
// parse gives, or leave the text to it: every unit, over texts of that
// shape with each byte in turn replaced by a digit, a separator, a zone
// character or a byte that is none, and calendar edges.
TEST(TemporalTextTest, CommonTimestampsReadAsTheGeneralParseReadsThem) {
  std::vector<std::string> texts = {"2022-08-04 09:16:26",
                                    "2022-08-04T09:16:26.0",
                                    "2022-08-04 09:16:26.008321",
                                    "2022-08-04 09:16:26.12345678",
                                    "2022-08-04 09:16:26.123456789",
                                    "2024-02-29 23:59:59.5",
                                    "2023-02-29 00:00:00",
                                    "2100-02-29 00:00:00",
                                    "2000-02-29 00:00:00",
                                    "0000-01-01 00:00:00.001",
                                    "9999-12-31 23:59:59.99999999",
                                    "1969-12-31 23:59:59.5",
                                    "2262-04-11 23:47:16.854775807",
                                    "2262-04-11 23:47:17",
                                    "2022-08-04 09:16:26Z",
                                    "2022-08-04 09:16:26.5Z",
                                    "2022-08-04 09:16:26.25+02",
                                    "2022-08-04 09:16:26 UTC",
                                    "2022-08-04t09:16:26",
                                    "2022-08-04 09:16",
                                    "2022-08-04",
                                    "2022-13-04 09:16:26",
                                    "2022-00-04 09:16:26",
                                    "2022-08-00 09:16:26",
                                    "2022-08-32 09:16:26",
                                    "2022-08-04 24:16:26",
                                    "2022-08-04 09:60:26",
                                    "2022-08-04 09:16:60"};
  const std::string base = "2022-08-04 09:16:26.00832100";
  for (size_t i = 0; i < base.size(); ++i) {
    for (char c : {'0', '9', '-', ':', '.', ' ', 'T', 'Z', '+', '/', 'a', '\0', '\x80'}) {
      std::string mutated = base;
      mutated[i] = c;
      for (size_t length = 19; length <= base.size(); ++length) texts.push_back(mutated.substr(0, length));
    }
  }
  for (const std::string& text : texts) {
    for (TimeUnit unit : {TimeUnit::kMilli, TimeUnit::kMicro, TimeUnit::kNano}) {
      TimestampText ts;
      int64_t general = 0, common = 0;
      const bool general_ok = ParseIsoTimestamp(text, &ts) && TimestampTextToUnit(ts, unit, false, &general);
      if (!CommonIsoTimestampToUnit(text, unit, &common)) continue;
      EXPECT_TRUE(general_ok) << text;
      EXPECT_EQ(common, general) << text << " unit " << static_cast<int>(unit);
    }
  }
  int64_t v;
  ASSERT_TRUE(CommonIsoTimestampToUnit("2022-08-04 09:16:26.008321", TimeUnit::kMicro, &v));
  EXPECT_EQ(v, 1659604586008321);
  ASSERT_TRUE(CommonIsoTimestampToUnit("2022-08-04T09:16:26", TimeUnit::kNano, &v));
  EXPECT_EQ(v, 1659604586000000000);
  EXPECT_FALSE(CommonIsoTimestampToUnit("2022-08-04 09:16:26.0083215", TimeUnit::kMicro, &v));
  EXPECT_FALSE(CommonIsoTimestampToUnit("2262-04-11 23:47:17", TimeUnit::kNano, &v));
}

TEST(TemporalTextTest, StrftimeFormats) {
  auto us = TemporalFormat::Compile("%m/%d/%Y %I:%M:%S %p");
  ASSERT_TRUE(us.ok());
  TimestampText ts;
  int64_t v;
  ASSERT_TRUE(us->Parse("12/31/1999 11:59:58 PM", &ts));
  ASSERT_TRUE(TimestampTextToUnit(ts, TimeUnit::kMicro, false, &v));
  EXPECT_EQ(v, 946684798000000);
  EXPECT_FALSE(us->Parse("13/31/1999 11:59:58 PM", &ts));
  auto named = TemporalFormat::Compile("%d-%b-%Y");
  ASSERT_TRUE(named.ok());
  ASSERT_TRUE(named->Parse("05-Jan-2021", &ts));
  ASSERT_TRUE(named->Parse("05-january-2021", &ts));
  EXPECT_EQ(ts.days, DaysFromCivil(2021, 1, 5));
  auto zoned = TemporalFormat::Compile("%Y%m%d %H%M%S%z");
  ASSERT_TRUE(zoned.ok());
  EXPECT_TRUE(zoned->has_zone());
  ASSERT_TRUE(zoned->Parse("20210105 010203-0130", &ts));
  ASSERT_TRUE(TimestampTextToUnit(ts, TimeUnit::kMicro, true, &v));
  EXPECT_EQ(v, (DaysFromCivil(2021, 1, 5) * 86400 + 3723 + 5400) * 1000000);
  // %S takes a fraction when the format says nothing about one.
  auto plain = TemporalFormat::Compile("%d.%m.%Y %H:%M:%S");
  ASSERT_TRUE(plain.ok());
  ASSERT_TRUE(plain->Parse("01.02.2020 03:04:05.25", &ts));
  EXPECT_EQ(ts.nanos_of_day % 1000000000, 250000000);
  EXPECT_FALSE(TemporalFormat::Compile("%Q").ok());
  EXPECT_FALSE(TemporalFormat::Compile("%").ok());
}

}  // namespace
}  // namespace floe::formats
