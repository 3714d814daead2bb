#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "formats/avro/decoder.h"
#include "formats/avro/encoder.h"
#include "formats/avro/json_output.h"
#include "iceberg_schemas.h"
#include "test_util.h"

namespace floe::avro {
namespace {

AvroSchema Schema(const std::string& json) {
  auto schema = AvroSchema::Parse(json);
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  return *schema;
}

std::vector<uint8_t> Encode(const AvroSchema& schema, const AvroValue& value) {
  std::vector<uint8_t> out;
  AvroEncoder encoder(&out);
  Status st = encoder.Encode(schema.root(), value);
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

Result<AvroValue> Decode(const AvroSchema& schema, const std::vector<uint8_t>& bytes) {
  AvroDecoder decoder(bytes);
  AvroValue value;
  FLOE_RETURN_IF_ERROR(decoder.Decode(schema.root(), &value));
  if (decoder.remaining() != 0) return Status::Corruption("bytes left over");
  return value;
}

void ExpectRoundTrip(const AvroSchema& schema, const AvroValue& value) {
  auto bytes = Encode(schema, value);
  ASSERT_OK_AND_ASSIGN(AvroValue back, Decode(schema, bytes));
  EXPECT_EQ(back, value) << AvroValueToJson(schema.root(), back);
}

TEST(AvroBinaryTest, VarintsMatchTheSpecExamples) {
  // From the Avro spec's zig-zag table.
  const std::pair<int64_t, std::vector<uint8_t>> cases[] = {
      {0, {0x00}}, {-1, {0x01}}, {1, {0x02}}, {-2, {0x03}}, {2, {0x04}}, {-64, {0x7f}}, {64, {0x80, 0x01}},
  };
  for (const auto& [value, bytes] : cases) {
    std::vector<uint8_t> out;
    AvroEncoder(&out).WriteLong(value);
    EXPECT_EQ(out, bytes) << value;
    AvroDecoder decoder(bytes);
    ASSERT_OK_AND_ASSIGN(int64_t back, decoder.ReadLong());
    EXPECT_EQ(back, value);
  }
  std::vector<uint8_t> min_bytes;
  AvroEncoder(&min_bytes).WriteLong(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(min_bytes, (std::vector<uint8_t>{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}));
  for (int64_t value : {std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                        int64_t{9158179788527662767}, int64_t{-4611686018427387904}}) {
    std::vector<uint8_t> out;
    AvroEncoder(&out).WriteLong(value);
    EXPECT_LE(out.size(), 10u);
    AvroDecoder decoder(out);
    ASSERT_OK_AND_ASSIGN(int64_t back, decoder.ReadLong());
    EXPECT_EQ(back, value);
  }
}

TEST(AvroBinaryTest, EveryTypeRoundTrips) {
  const AvroSchema schema = Schema(
      R"({"type":"record","name":"All","fields":[)"
      R"({"name":"n","type":"null"},{"name":"b","type":"boolean"},{"name":"i","type":"int"},)"
      R"({"name":"l","type":"long"},{"name":"f","type":"float"},{"name":"d","type":"double"},)"
      R"({"name":"by","type":"bytes"},{"name":"s","type":"string"},)"
      R"({"name":"e","type":{"type":"enum","name":"E","symbols":["A","B","C"]}},)"
      R"({"name":"a","type":{"type":"array","items":"long"}},)"
      R"({"name":"m","type":{"type":"map","values":["null","string"]}},)"
      R"({"name":"u","type":["null","int","string"]},)"
      R"({"name":"fx","type":{"type":"fixed","name":"F4","size":4}},)"
      R"({"name":"dec","type":{"type":"fixed","name":"decimal_9_2","size":4,"logicalType":"decimal","precision":9,"scale":2}},)"
      R"({"name":"ts","type":{"type":"long","logicalType":"timestamp-micros","adjust-to-utc":true}},)"
      R"({"name":"nested","type":{"type":"record","name":"Inner","fields":[{"name":"x","type":"int"}]}},)"
      R"({"name":"inners","type":{"type":"array","items":"Inner"}}]})");
  const AvroValue value = AvroValue::Record({
      AvroValue::Null(),
      AvroValue::Boolean(true),
      AvroValue::Int(std::numeric_limits<int32_t>::min()),
      AvroValue::Long(std::numeric_limits<int64_t>::max()),
      AvroValue::Float(-1.5f),
      AvroValue::Double(std::nan("")),
      AvroValue::Bytes(std::vector<uint8_t>{0, 255, 7}),
      AvroValue::String("h\xc3\xa9llo \"world\"\n"),
      AvroValue::Enum(2, "C"),
      AvroValue::Array({AvroValue::Long(1), AvroValue::Long(-1), AvroValue::Long(int64_t{1} << 62)}),
      AvroValue::Map({{"k1", AvroValue::Union(1, AvroValue::String("v"))},
                      {"k2", AvroValue::Union(0, AvroValue::Null())}}),
      AvroValue::Union(2, AvroValue::String("branch")),
      AvroValue::Fixed({1, 2, 3, 4}),
      AvroValue::Fixed({0, 0, 0x30, 0x39}),
      AvroValue::Long(1700000000000000),
      AvroValue::Record({AvroValue::Int(5)}),
      AvroValue::Array({AvroValue::Record({AvroValue::Int(6)}), AvroValue::Record({AvroValue::Int(7)})}),
  });
  ExpectRoundTrip(schema, value);
  EXPECT_EQ(AvroValueToJson(schema.root(), value),
            R"({"n":null,"b":true,"i":-2147483648,"l":9223372036854775807,"f":-1.5,"d":"NaN","by":"00ff07",)"
            "\"s\":\"h\xc3\xa9llo \\\"world\\\"\\n\","
            R"("e":"C","a":[1,-1,4611686018427387904],"m":{"k1":"v","k2":null},)"
            R"("u":"branch","fx":"01020304","dec":"00003039","ts":1700000000000000,"nested":{"x":5},)"
            R"("inners":[{"x":6},{"x":7}]})");
}

TEST(AvroBinaryTest, JsonOutputFormatsValues) {
  const AvroSchema schema = Schema(
      R"({"type":"record","name":"r","fields":[{"name":"f","type":"float"},{"name":"d","type":"double"},)"
      R"({"name":"inf","type":"double"},{"name":"s","type":"string"},{"name":"u","type":["null","long"]}]})");
  const AvroValue value =
      AvroValue::Record({AvroValue::Float(0.1f), AvroValue::Double(0.1), AvroValue::Double(-INFINITY),
                         AvroValue::String("\xc3\xa9\xff\x01"), AvroValue::Union(1, AvroValue::Long(-7))});
  EXPECT_EQ(AvroValueToJson(schema.root(), value),
            "{\"f\":0.1,\"d\":0.1,\"inf\":\"-Infinity\",\"s\":\"\xc3\xa9\xef\xbf\xbd\\u0001\",\"u\":-7}");
}

TEST(AvroBinaryTest, EncoderConveniencesAndErrors) {
  const AvroSchema schema =
      Schema(R"({"type":"record","name":"r","fields":[{"name":"a","type":["null","long"]},)"
             R"({"name":"b","type":"double"}]})");
  // Bare values go to the first matching union branch; int widens to long, float to double.
  auto bytes = Encode(schema, AvroValue::Record({AvroValue::Int(3), AvroValue::Float(2.5f)}));
  ASSERT_OK_AND_ASSIGN(AvroValue back, Decode(schema, bytes));
  EXPECT_EQ(back, AvroValue::Record({AvroValue::Union(1, AvroValue::Long(3)), AvroValue::Double(2.5)}));

  std::vector<uint8_t> out;
  AvroEncoder encoder(&out);
  Status st =
      encoder.Encode(schema.root(), AvroValue::Record({AvroValue::String("x"), AvroValue::Double(1)}));
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  EXPECT_NE(st.message().find("a: no union branch accepts a string"), std::string::npos) << st.ToString();
  st = encoder.Encode(schema.root(), AvroValue::Record({AvroValue::Null()}));
  EXPECT_EQ(st.kind(), ErrorKind::kInvalidArgument);
  const AvroSchema fixed = Schema(R"({"type":"fixed","name":"f","size":2})");
  EXPECT_FALSE(encoder.Encode(fixed.root(), AvroValue::Fixed({1})).ok());
}

TEST(AvroBinaryTest, IcebergManifestEntryRoundTrips) {
  const AvroSchema schema = Schema(testing::kManifestEntrySchema);
  auto kv = [](int32_t k, int64_t v) { return AvroValue::Record({AvroValue::Int(k), AvroValue::Long(v)}); };
  auto kb = [](int32_t k, std::string v) {
    return AvroValue::Record({AvroValue::Int(k), AvroValue::Bytes(v)});
  };
  const AvroValue data_file = AvroValue::Record({
      AvroValue::Int(0),
      AvroValue::String("s3://bucket/t/data/a.parquet"),
      AvroValue::String("PARQUET"),
      AvroValue::Record({AvroValue::Union(1, AvroValue::Int(3)), AvroValue::Union(0, AvroValue::Null())}),
      AvroValue::Long(100),
      AvroValue::Long(4096),
      AvroValue::Union(1, AvroValue::Array({kv(1, 10), kv(2, 20)})),
      AvroValue::Union(1, AvroValue::Array({kv(1, 100)})),
      AvroValue::Union(1, AvroValue::Array({})),
      AvroValue::Union(0, AvroValue::Null()),
      AvroValue::Union(1, AvroValue::Array({kb(1, std::string("\x01\0\0\0", 4))})),
      AvroValue::Union(1, AvroValue::Array({kb(1, std::string("\x09\0\0\0", 4))})),
      AvroValue::Union(0, AvroValue::Null()),
      AvroValue::Union(1, AvroValue::Array({AvroValue::Long(4)})),
      AvroValue::Union(0, AvroValue::Null()),
      AvroValue::Union(1, AvroValue::Int(0)),
      AvroValue::Union(0, AvroValue::Null()),
  });
  const AvroValue entry = AvroValue::Record(
      {AvroValue::Int(1), AvroValue::Union(0, AvroValue::Null()), AvroValue::Union(0, AvroValue::Null()),
       AvroValue::Union(1, AvroValue::Long(int64_t{9158179788527662767})), data_file});
  ExpectRoundTrip(schema, entry);
}

void ExpectCorrupt(const AvroSchema& schema, const std::vector<uint8_t>& bytes, const std::string& needle) {
  auto result = Decode(schema, bytes);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kCorruption);
  EXPECT_NE(result.status().message().find(needle), std::string::npos) << result.status().ToString();
}

TEST(AvroBinaryTest, CorruptInputIsRejected) {
  const AvroSchema long_schema = Schema(R"("long")");
  ExpectCorrupt(long_schema, {}, "past the end");
  ExpectCorrupt(long_schema, {0x80, 0x80}, "past the end");
  ExpectCorrupt(long_schema, std::vector<uint8_t>(10, 0xff), "overflows 64 bits");
  ExpectCorrupt(long_schema, {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02},
                "overflows 64 bits");
  ExpectCorrupt(Schema(R"("int")"), {0x80, 0x80, 0x80, 0x80, 0x20}, "does not fit in 32 bits");
  ExpectCorrupt(Schema(R"("string")"), {0x06, 'a'}, "needs 3 bytes, only 1 left");
  ExpectCorrupt(Schema(R"("bytes")"), {0x01}, "negative length");
  // A length near 2^62 must not allocate.
  ExpectCorrupt(Schema(R"("bytes")"), {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, "only 0 left");
  ExpectCorrupt(Schema(R"("boolean")"), {0x02}, "boolean byte");
  ExpectCorrupt(Schema(R"(["null","int"])"), {0x04}, "union branch index 2 out of range");
  ExpectCorrupt(Schema(R"(["null","int"])"), {0x01}, "union branch index -1");
  ExpectCorrupt(Schema(R"({"type":"enum","name":"e","symbols":["A"]})"), {0x02}, "enum index 1 out of range");
  ExpectCorrupt(Schema(R"({"type":"fixed","name":"f","size":8})"), {1, 2}, "needs 8 bytes");
  ExpectCorrupt(Schema(R"("double")"), {1, 2, 3}, "needs 8 bytes");
  // Array of nulls claiming 2^62 items: every item is zero bytes, so the allowance stops it.
  ExpectCorrupt(Schema(R"({"type":"array","items":"null"})"),
                {0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f}, "more array/map items");
  // A negative block count with a byte size larger than the input.
  ExpectCorrupt(Schema(R"({"type":"array","items":"int"})"), {0x03, 0x7e, 0x02}, "block byte size 63");
  ExpectCorrupt(Schema(R"({"type":"map","values":"int"})"), {0x02, 0x02, 'k'}, "past the end");
  // Recursive schema whose data nests without end.
  const AvroSchema list =
      Schema(R"({"type":"record","name":"L","fields":[{"name":"next","type":["null","L"]}]})");
  ExpectCorrupt(list, std::vector<uint8_t>(100000, 0x02), "nested deeper");
  // Error messages carry the field path.
  const AvroSchema nested =
      Schema(R"({"type":"record","name":"r","fields":[{"name":"outer","type":)"
             R"({"type":"record","name":"i","fields":[{"name":"inner","type":"string"}]}}]})");
  ExpectCorrupt(nested, {0x08}, "outer: inner: at byte 1");
}

TEST(AvroBinaryTest, NegativeBlockCountsDecode) {
  // Arrays and maps may use a negative count followed by the block's byte size.
  const AvroSchema schema = Schema(R"({"type":"array","items":"int"})");
  ASSERT_OK_AND_ASSIGN(AvroValue value, Decode(schema, {0x03, 0x04, 0x02, 0x04, 0x02, 0x06, 0x00}));
  EXPECT_EQ(value, AvroValue::Array({AvroValue::Int(1), AvroValue::Int(2), AvroValue::Int(3)}));
}

}  // namespace
}  // namespace floe::avro
