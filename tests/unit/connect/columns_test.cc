// Connect values to exact floe columns, against hand-checked values.
#include <gtest/gtest.h>

#include "columnar/json_format.h"
#include "formats/connect/connect_columns.h"
#include "test_util.h"
#include "unit/connect/connect_test_util.h"

namespace floe::connect {
namespace {

using namespace floe::connect::testing;

ConnectSchema Schema(const char* json) {
  auto schema = ParseConnectSchema(json);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  return schema.ok() ? *schema : ConnectSchema{};
}

// Each slot rendered as floe's JSON value text ("null" for nulls).
std::vector<std::string> Rendered(const Column& column) {
  std::vector<std::string> out;
  for (int64_t i = 0; i < column.length; ++i) {
    std::string text;
    AppendJsonValue(column, i, &text);
    out.push_back(text);
  }
  return out;
}

ConvertedColumn Convert(const char* schema_json, Column raw, const ConnectTypeOptions& options = {}) {
  auto converted = ConvertConnectColumn(Schema(schema_json), std::move(raw), "after.x", options);
  EXPECT_TRUE(converted.ok()) << converted.status().ToString();
  if (!converted.ok()) return ConvertedColumn{Column(Int32()), {}};
  EXPECT_EQ(converted->column.Validate(), "");
  return std::move(converted).value();
}

using Strs = std::vector<std::string>;

TEST(ConnectColumnsTest, DebeziumTemporalTypes) {
  // 2024-03-01 is day 19783 (2024-02-29 is 19782: 54 years of 365 days plus 13 leap days ... checked
  // against `date -u -d 2024-03-01 +%s` = 1709251200 = 19783 * 86400).
  auto date =
      Convert(R"({"type": "int32", "name": "io.debezium.time.Date"})", Ints({19783, 0, -1, std::nullopt}));
  EXPECT_EQ(Rendered(date.column), (Strs{"\"2024-03-01\"", "\"1970-01-01\"", "\"1969-12-31\"", "null"}));
  EXPECT_EQ(date.column.type, Date());

  // 1709280930123456 us = 2024-03-01T08:15:30.123456 (1709251200 s + 8:15:30).
  auto micro = Convert(R"({"type": "int64", "name": "io.debezium.time.MicroTimestamp"})",
                       Longs({1709280930123456, -1, std::nullopt}));
  EXPECT_EQ(Rendered(micro.column),
            (Strs{"\"2024-03-01T08:15:30.123456\"", "\"1969-12-31T23:59:59.999999\"", "null"}));
  EXPECT_EQ(micro.column.type, Timestamp(TimeUnit::kMicro, false));

  auto millis = Convert(R"({"type": "int64", "name": "io.debezium.time.Timestamp"})", Longs({1709280930123}));
  EXPECT_EQ(Rendered(millis.column), (Strs{"\"2024-03-01T08:15:30.123\""}));

  auto nanos =
      Convert(R"({"type": "int64", "name": "io.debezium.time.NanoTimestamp"})", Longs({1709280930123456789}));
  EXPECT_EQ(Rendered(nanos.column), (Strs{"\"2024-03-01T08:15:30.123456789\""}));

  auto connect_ts = Convert(R"({"type": "int64", "name": "org.apache.kafka.connect.data.Timestamp"})",
                            Longs({1709280930123}));
  EXPECT_EQ(Rendered(connect_ts.column), (Strs{"\"2024-03-01T08:15:30.123Z\""}));

  // 29730123 ms = 08:15:30.123; a time must lie within one day.
  auto time =
      Convert(R"({"type": "int32", "name": "io.debezium.time.Time"})", Ints({29730123, 86400000, -1}));
  EXPECT_EQ(Rendered(time.column), (Strs{"\"08:15:30.123\"", "null", "null"}));
  ASSERT_EQ(time.errors.size(), 2u);
  EXPECT_EQ(time.errors[0].row, 1);
  EXPECT_EQ(time.errors[0].message, "after.x, row 1: 86400000 is not a time of day of time[ms]");

  auto micro_time =
      Convert(R"({"type": "int64", "name": "io.debezium.time.MicroTime"})", Longs({29730123456}));
  EXPECT_EQ(Rendered(micro_time.column), (Strs{"\"08:15:30.123456\""}));
  auto nano_time =
      Convert(R"({"type": "int64", "name": "io.debezium.time.NanoTime"})", Longs({29730123456789}));
  EXPECT_EQ(Rendered(nano_time.column), (Strs{"\"08:15:30.123456789\""}));
}

TEST(ConnectColumnsTest, ZonedTimestampsAndTimesBecomeUtc) {
  auto zoned = Convert(
      R"({"type": "string", "name": "io.debezium.time.ZonedTimestamp"})",
      Strings({"2024-03-01T10:15:30.123456+02:00", "2024-03-01T08:15:30Z", "2024-02-29T23:59:59.9-08:30",
               "1969-12-31T23:59:59.999999Z", "2024-03-01T10:15:30.123456789Z", "2024-02-30T00:00:00Z",
               "yesterday", std::nullopt, "+10000-01-01T00:00:00Z", "2024-03-01T10:15:30.123456000+0200"}));
  EXPECT_EQ(Rendered(zoned.column),
            (Strs{"\"2024-03-01T08:15:30.123456Z\"", "\"2024-03-01T08:15:30.000000Z\"",
                  "\"2024-03-01T08:29:59.900000Z\"", "\"1969-12-31T23:59:59.999999Z\"", "null", "null",
                  "null", "null", "\"10000-01-01T00:00:00.000000Z\"", "\"2024-03-01T08:15:30.123456Z\""}));
  EXPECT_EQ(zoned.column.Value<int64_t>(0), 1709280930123456);
  ASSERT_EQ(zoned.errors.size(), 3u);
  EXPECT_EQ(zoned.errors[0].row, 4);
  EXPECT_NE(zoned.errors[0].message.find("sub-microsecond"), std::string::npos) << zoned.errors[0].message;
  EXPECT_NE(zoned.errors[1].message.find("no such date"), std::string::npos) << zoned.errors[1].message;
  EXPECT_EQ(zoned.errors[2].message, "after.x, row 6: ZonedTimestamp \"yesterday\": bad year");

  auto zoned_time = Convert(R"({"type": "string", "name": "io.debezium.time.ZonedTime"})",
                            Strings({"10:15:30.5Z", "01:00:00+02:00", "23:30:00-01:00", "24:00:00Z"}));
  EXPECT_EQ(Rendered(zoned_time.column),
            (Strs{"\"10:15:30.500000\"", "\"23:00:00.000000\"", "\"00:30:00.000000\"", "null"}));
  EXPECT_EQ(zoned_time.errors.size(), 1u);
}

TEST(ConnectColumnsTest, DecimalsFromBytesBase64AndDecimals) {
  const char* schema = R"({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal",
                           "parameters": {"scale": "2", "connect.decimal.precision": "7"}})";
  // 12345.67 is unscaled 1234567 = 0x12d687; -0.01 is -1 = 0xff; 0 is 0x00.
  auto from_bytes = Convert(
      schema, Binaries({std::string("\x12\xd6\x87", 3), std::string("\xff", 1), std::string("\x00", 1),
                        std::nullopt, std::string("\x00\x00\x00\x12\xd6\x87", 6)}));
  EXPECT_EQ(Rendered(from_bytes.column),
            (Strs{"\"12345.67\"", "\"-0.01\"", "\"0.00\"", "null", "\"12345.67\""}));
  EXPECT_EQ(from_bytes.column.type, Decimal(7, 2));
  EXPECT_TRUE(from_bytes.errors.empty());

  // The JSON converter writes the bytes as base64: "EtaH" is 0x12d687.
  auto from_text = Convert(schema, Strings({"EtaH", "/w==", "not base64!", "AJiWgA=="}));
  EXPECT_EQ(Rendered(from_text.column), (Strs{"\"12345.67\"", "\"-0.01\"", "null", "null"}));
  ASSERT_EQ(from_text.errors.size(), 2u);
  EXPECT_EQ(from_text.errors[0].message, "after.x, row 2: bytes are not valid base64 text");
  // 0x989680 = 10000000 unscaled = 100000.00: 8 digits do not fit decimal(7, 2).
  EXPECT_EQ(from_text.errors[1].message, "after.x, row 3: does not fit decimal(7, 2)");

  // An Avro decoder may already hand over decimals, in another scale.
  Column decimals(Decimal(10, 4));
  decimals.AppendValue<__int128>(123456700);  // 12345.6700
  decimals.AppendValue<__int128>(123456701);  // 12345.6701: does not fit scale 2
  auto rescaled = Convert(schema, std::move(decimals));
  EXPECT_EQ(Rendered(rescaled.column), (Strs{"\"12345.67\"", "null"}));
  ASSERT_EQ(rescaled.errors.size(), 1u);
  EXPECT_EQ(rescaled.errors[0].message, "after.x, row 1: has more than 2 fraction digits");

  // 38 digits fit; 17 bytes of real magnitude do not.
  const char* wide =
      R"({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "0"}})";
  auto big = Convert(
      wide, Binaries({std::string("\x4b\x3b\x4c\xa8\x5a\x86\xc4\x7a\x09\x8a\x22\x3f\xff\xff\xff\xff", 16),
                      std::string("\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00", 17),
                      std::string()}));
  EXPECT_EQ(Rendered(big.column), (Strs{"\"99999999999999999999999999999999999999\"", "null", "null"}));
  EXPECT_EQ(big.errors.size(), 2u);
}

TEST(ConnectColumnsTest, VariableScaleDecimalsAsExactTextOrFixedScale) {
  const char* schema = R"({"type": "struct", "name": "io.debezium.data.VariableScaleDecimal", "fields": [
      {"field": "scale", "type": "int32"}, {"field": "value", "type": "bytes"}]})";
  auto raw = [] {
    // 3.14159 (314159 = 0x04cb2f, scale 5); -12.5 (-125 = 0x83, scale 1); 1.2E+3 (12, scale -2);
    // a 20-byte value: 2^152 = 5708990770823839524233143877797980545530986496; a null decimal.
    std::string huge(20, '\0');
    huge[0] = 0x01;
    return StructOf({{"scale", Ints({5, 1, -2, 0, 0})},
                     {"value", Binaries({std::string("\x04\xcb\x2f", 3), std::string("\x83", 1),
                                         std::string("\x0c", 1), huge, std::string("\x00", 1)})}},
                    {true, true, true, true, false});
  };
  auto text = Convert(schema, raw());
  EXPECT_EQ(Rendered(text.column), (Strs{"\"3.14159\"", "\"-12.5\"", "\"1200\"",
                                         "\"5708990770823839524233143877797980545530986496\"", "null"}));
  EXPECT_TRUE(text.errors.empty());

  ConnectTypeOptions options;
  options.variable_scale_decimal_scale = 2;
  auto fixed = Convert(schema, raw(), options);
  EXPECT_EQ(fixed.column.type, Decimal(38, 2));
  EXPECT_EQ(Rendered(fixed.column), (Strs{"null", "\"-12.50\"", "\"1200.00\"", "null", "null"}));
  ASSERT_EQ(fixed.errors.size(), 2u);
  EXPECT_EQ(fixed.errors[0].message, "after.x, row 0: 3.14159 has more than 2 fraction digits");
  EXPECT_EQ(fixed.errors[1].row, 3);
}

TEST(ConnectColumnsTest, UuidsJsonEnumsAndBytes) {
  auto uuid = Convert(R"({"type": "string", "name": "io.debezium.data.Uuid"})",
                      Strings({"f79c3e09-677c-4bbd-a479-3f349cb785e7", "F79C3E09-677C-4BBD-A479-3F349CB785E7",
                               "f79c3e09677c4bbda4793f349cb785e7"}));
  EXPECT_EQ(Rendered(uuid.column), (Strs{"\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"",
                                         "\"f79c3e09-677c-4bbd-a479-3f349cb785e7\"", "null"}));
  EXPECT_EQ(uuid.errors.size(), 1u);

  auto json =
      Convert(R"({"type": "string", "name": "io.debezium.data.Json"})", Strings({R"({"a": [1, 2]})"}));
  EXPECT_EQ(json.column.type.annotation, DataType::Annotation::kJson);
  EXPECT_EQ(json.column.StringAt(0), R"({"a": [1, 2]})");

  auto bytes = Convert(R"({"type": "bytes"})", Strings({"AAEC/w==", std::nullopt}));
  EXPECT_EQ(bytes.column.type, Binary());
  EXPECT_EQ(bytes.column.StringAt(0), std::string("\x00\x01\x02\xff", 4));
  EXPECT_TRUE(bytes.column.IsNull(1));
}

TEST(ConnectColumnsTest, IntegersAndFloatsAreRangeChecked) {
  auto small = Convert(R"({"type": "int16"})", Longs({32767, -32768, 32768, std::nullopt}));
  EXPECT_EQ(small.column.type, Int16());
  EXPECT_EQ(Rendered(small.column), (Strs{"32767", "-32768", "null", "null"}));
  ASSERT_EQ(small.errors.size(), 1u);
  EXPECT_EQ(small.errors[0].message, "after.x, row 2: 32768 does not fit int16");

  auto from_double = Convert(R"({"type": "int64"})", Doubles({3.0, 2.5}));
  EXPECT_EQ(Rendered(from_double.column), (Strs{"3", "null"}));

  // Connect float32 travels as the float's shortest text: 1.1 as double rounds back to 1.1f.
  auto floats = Convert(R"({"type": "float"})", Doubles({1.1, 16777217.0}));
  EXPECT_EQ(floats.column.type, Float32());
  EXPECT_EQ(floats.column.Value<float>(0), 1.1f);

  auto doubles = Convert(R"({"type": "double"})", Longs({(int64_t{1} << 53), (int64_t{1} << 53) + 1}));
  EXPECT_EQ(Rendered(doubles.column), (Strs{"9007199254740992", "null"}));

  auto kept = Convert(R"({"type": "int32"})", Ints({1, 2}));
  EXPECT_EQ(Rendered(kept.column), (Strs{"1", "2"}));
}

TEST(ConnectColumnsTest, StructsListsAndMapsConvertTheirMembers) {
  const char* schema = R"({"type": "struct", "optional": true, "fields": [
      {"field": "id", "type": "int32"},
      {"field": "born", "type": "int32", "optional": true, "name": "io.debezium.time.Date"},
      {"field": "seen", "type": "array", "items": {"type": "string", "name": "io.debezium.time.ZonedTimestamp"}},
      {"field": "missing", "type": "string", "optional": true}]})";
  // Row 2 is a null struct whose member slots hold nothing convertible.
  Column raw = StructOf(
      {{"id", Longs({1, 2, 0})},
       {"born", Longs({19783, std::nullopt, 0})},
       {"seen",
        ListOf(Strings({"2024-03-01T08:15:30Z", "bad", "2024-03-01T09:00:00+01:00", ""}), {0, 1, 3, 4})}},
      {true, true, false});
  auto converted = Convert(schema, std::move(raw));
  EXPECT_EQ(
      Rendered(converted.column),
      (Strs{R"({"id":1,"born":"2024-03-01","seen":["2024-03-01T08:15:30.000000Z"],"missing":null})",
            R"({"id":2,"born":null,"seen":[null,"2024-03-01T08:00:00.000000Z"],"missing":null})", "null"}));
  ASSERT_EQ(converted.errors.size(), 1u) << converted.errors.back().message;
  EXPECT_EQ(converted.errors[0].row, 1);
  EXPECT_EQ(converted.errors[0].message, "after.x.seen[0], row 1: ZonedTimestamp \"bad\": bad year");

  auto mismatch = ConvertConnectColumn(Schema(R"({"type": "boolean"})"), Strings({"true"}), "after.flag");
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.status().kind(), ErrorKind::kSchemaMismatch);
  EXPECT_EQ(mismatch.status().message(), "after.flag: a string column cannot hold bool");
}

TEST(ConnectColumnsTest, BatchesConvertEveryMemberAndCollectRowErrors) {
  ConnectSchema row = Schema(R"({"type": "struct", "fields": [
      {"field": "id", "type": "int32"},
      {"field": "balance", "type": "bytes", "optional": true, "name": "org.apache.kafka.connect.data.Decimal",
       "parameters": {"scale": "2"}},
      {"field": "note", "type": "string", "optional": true}]})");
  RecordBatch raw;
  raw.num_rows = 3;
  raw.schema = {MakeField("balance", String()), MakeField("id", Int64())};  // note is absent
  raw.columns.push_back(Strings({"EtaH", "??", std::nullopt}));
  raw.columns.push_back(Longs({7, 8, 3000000000}));
  ASSERT_OK_AND_ASSIGN(ConvertedBatch converted, ConvertConnectBatch(row, std::move(raw), "after"));
  EXPECT_EQ(SchemaToString(converted.batch.schema),
            SchemaToString({MakeField("id", Int32(), false), MakeField("balance", Decimal(38, 2)),
                            MakeField("note", String())}));
  std::vector<std::string> rows;
  for (int64_t i = 0; i < 3; ++i) {
    std::string text;
    AppendJsonRow(converted.batch, i, &text);
    rows.push_back(text);
  }
  EXPECT_EQ(rows,
            (Strs{R"({"id":7,"balance":"12345.67","note":null})", R"({"id":8,"balance":null,"note":null})",
                  R"({"id":null,"balance":null,"note":null})"}));
  ASSERT_EQ(converted.errors.size(), 2u);
  EXPECT_EQ(converted.errors[0].message, "after.balance, row 1: bytes are not valid base64 text");
  EXPECT_EQ(converted.errors[1].message, "after.id, row 2: 3000000000 does not fit int32");
}

}  // namespace
}  // namespace floe::connect
