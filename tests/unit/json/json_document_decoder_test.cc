// JsonDocumentDecoder: inference, known types, rescue of values and broken
// documents, projection.
#include "formats/json/json_document_decoder.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>

#include "columnar/json_format.h"
#include "formats/json/json_records.h"
#include "test_util.h"

namespace floe::json {
namespace {

JsonDecodeOptions Options(bool infer = true) {
  JsonDecodeOptions options;
  options.inference.infer_column_types = infer;
  options.location.unit = "in.jsonl";
  return options;
}

std::string Rows(const RecordBatch& batch) {
  std::string out;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    AppendJsonRow(batch, r, &out);
    out.push_back('\n');
  }
  return out;
}

Result<RecordBatch> DecodeOnce(JsonDecodeOptions options, const std::vector<std::string>& docs) {
  FLOE_ASSIGN_OR_RETURN(auto decoder, JsonDocumentDecoder::Make(std::move(options)));
  for (size_t i = 0; i < docs.size(); ++i) {
    FLOE_RETURN_IF_ERROR(decoder->Add(docs[i], static_cast<int64_t>(i + 1)));
  }
  return decoder->Finish();
}

// Decodes with the flat fast path and again with simdjson alone: both must
// give the same rows.
Result<RecordBatch> Decode(JsonDecodeOptions options, const std::vector<std::string>& docs) {
  JsonDecodeOptions general = options;
  general.flat_fast_path = false;
  FLOE_ASSIGN_OR_RETURN(RecordBatch fast, DecodeOnce(std::move(options), docs));
  FLOE_ASSIGN_OR_RETURN(RecordBatch slow, DecodeOnce(std::move(general), docs));
  EXPECT_EQ(SchemaToString(fast.schema), SchemaToString(slow.schema));
  EXPECT_EQ(Rows(fast), Rows(slow));
  return fast;
}

void ExpectValid(const RecordBatch& batch) {
  ASSERT_EQ(batch.schema.size(), batch.columns.size());
  for (const Column& c : batch.columns) {
    EXPECT_EQ(c.length, batch.num_rows);
    EXPECT_EQ(c.Validate(), "");
  }
}

TEST(JsonDocumentDecoderTest, InfersEveryType) {
  ASSERT_OK_AND_ASSIGN(
      RecordBatch batch,
      Decode(Options(),
             {R"({"i": 1, "f": 1.5, "b": true, "s": "x", "d": "2020-01-02", "t": "2020-01-02 03:04:05.5",
                            "tz": "2020-01-02T03:04:05Z", "big": 123456789012345678901234, "o": {"a": 1, "c": [1, 2]},
                            "l": [1.5, 2], "mixed": 1, "n": null})",
              R"({"i": -2, "f": 2, "b": false, "s": "y", "d": "2021-12-31", "t": "2021-12-31 23:59:59",
                            "tz": "2021-12-31 23:59:59+01:00", "big": 1, "o": {"b": "z"}, "l": [], "mixed": "two"})"}));
  ExpectValid(batch);
  EXPECT_EQ(
      SchemaToString(batch.schema),
      "i: int64\nf: float64\nb: bool\ns: string\nd: date\nt: timestamp[us]\ntz: timestamp[us, utc]\n"
      "big: decimal(38,0)\no: struct<a: int64, c: list<int64>, b: string>\nl: list<float64>\nmixed: string\n"
      "n: string\n");
  EXPECT_EQ(
      Rows(batch),
      R"({"i":1,"f":1.5,"b":true,"s":"x","d":"2020-01-02","t":"2020-01-02T03:04:05.500000","tz":"2020-01-02T03:04:05.000000Z","big":"123456789012345678901234","o":{"a":1,"c":[1,2],"b":null},"l":[1.5,2],"mixed":"1","n":null}
{"i":-2,"f":2,"b":false,"s":"y","d":"2021-12-31","t":"2021-12-31T23:59:59.000000","tz":"2021-12-31T22:59:59.000000Z","big":"1","o":{"a":null,"c":null,"b":"z"},"l":[],"mixed":"two","n":null}
)");
}

TEST(JsonDocumentDecoderTest, WithoutInferenceEveryFieldIsItsText) {
  ASSERT_OK_AND_ASSIGN(
      RecordBatch batch,
      Decode(Options(false), {R"({"amount": 1.50, "ok": true, "o": {"a": [1, "x"]}, "s": "a\"b"})"}));
  EXPECT_EQ(SchemaToString(batch.schema), "amount: string\nok: string\no: string\ns: string\n");
  EXPECT_EQ(Rows(batch), R"({"amount":"1.50","ok":"true","o":"{\"a\": [1, \"x\"]}","s":"a\"b"})"
                         "\n");
}

TEST(JsonDocumentDecoderTest, HintsOverrideInference) {
  JsonDecodeOptions options = Options();
  ASSERT_OK_AND_ASSIGN(options.schema_hints,
                       formats::SchemaHints::Parse("amount DECIMAL(12,2), id STRING, o.a DOUBLE"));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, Decode(options, {R"({"id": 7, "amount": 12.5, "o": {"a": 1}})",
                                                           R"({"id": 8, "amount": 12.345, "o": {"a": 2}})"}));
  ExpectValid(batch);
  EXPECT_EQ(SchemaToString(batch.schema),
            "id: string\namount: decimal(12,2)\no: struct<a: float64>\n_rescued_data: string\n");
  EXPECT_EQ(Rows(batch),
            R"({"id":"7","amount":"12.50","o":{"a":1},"_rescued_data":null}
{"id":"8","amount":null,"o":{"a":2},"_rescued_data":"{\"amount\":12.345,\"_file_path\":\"in.jsonl\",\"_line\":2}"}
)");
}

TEST(JsonDocumentDecoderTest, KnownTypesDecodeExactlyAndRescueWhatDoesNotFit) {
  JsonDecodeOptions options = Options();
  options.known = {MakeField("amount", Decimal(12, 2)),
                   MakeField("n", Int32()),
                   MakeField("bin", Binary()),
                   MakeField("day", Date()),
                   MakeField("at", Timestamp(TimeUnit::kMicro, true)),
                   MakeField("x", Float64()),
                   MakeField("addr", Struct({MakeField("zip", String())}))};
  ASSERT_OK_AND_ASSIGN(
      RecordBatch batch,
      Decode(options,
             {R"({"amount": 12.30, "n": 5, "bin": "aGk=", "day": "2020-01-02", "at": "2020-01-02T00:00:00Z",
                          "x": "NaN", "addr": {"zip": "12345", "city": "Oslo"}})",
              R"({"amount": "99.99", "n": 2147483648, "bin": 5, "day": 18263, "at": 1577923200000000,
                          "x": 1e400, "addr": {"zip": 1}, "extra": [1]})",
              R"({"amount": 0.125, "n": 1.0, "day": "2020-13-01"})"}));
  ExpectValid(batch);
  EXPECT_EQ(SchemaToString(batch.schema),
            "amount: decimal(12,2)\nn: int32\nbin: binary\nday: date\nat: timestamp[us, utc]\nx: float64\n"
            "addr: struct<zip: string, city: string>\nextra: list<int64>\n_rescued_data: string\n");
  EXPECT_EQ(
      Rows(batch),
      R"({"amount":"12.30","n":5,"bin":"6869","day":"2020-01-02","at":"2020-01-02T00:00:00.000000Z","x":"NaN","addr":{"zip":"12345","city":"Oslo"},"extra":null,"_rescued_data":null}
{"amount":"99.99","n":null,"bin":null,"day":"2020-01-02","at":"2020-01-02T00:00:00.000000Z","x":null,"addr":{"zip":"1","city":null},"extra":[1],"_rescued_data":"{\"n\":2147483648,\"bin\":5,\"x\":1e400,\"_file_path\":\"in.jsonl\",\"_line\":2}"}
{"amount":null,"n":1,"bin":null,"day":null,"at":null,"x":null,"addr":null,"extra":null,"_rescued_data":"{\"amount\":0.125,\"day\":\"2020-13-01\",\"_file_path\":\"in.jsonl\",\"_line\":3}"}
)");
}

// Flat documents read ISO dates and common-shape timestamps without the
// text converter (json_document_decoder.cc: FlatConversion kDate and
// kTimestamp); everything else, and any configured format, goes through it.
// Both paths must agree on every unit and on what is rescued.
TEST(JsonDocumentDecoderTest, FlatDatesAndTimestampsReadAsTheConverterReadsThem) {
  const std::vector<std::string> docs = {
      R"({"day": "2020-01-02", "ms": "2020-01-02 03:04:05.123", "us": "2020-01-02T03:04:05.123456", "ns": "2020-01-02 03:04:05.12345678"})",
      R"({"day": "2020-02-30", "ms": "2020-01-02 03:04:05.1234", "us": "2020-01-02 03:04:05.123456789", "ns": "2300-01-01 00:00:00"})",
      R"({"day": 18263, "ms": "2020-01-02T03:04:05Z", "us": "2020-01-02", "ns": 5})",
      R"({"day": "02/01/2020", "ms": "2020-01-02 03:04:05+01:00", "us": "2020-01-02 03:04", "ns": "x"})"};
  JsonDecodeOptions options = Options();
  options.known = {MakeField("day", Date()), MakeField("ms", Timestamp(TimeUnit::kMilli, true)),
                   MakeField("us", Timestamp(TimeUnit::kMicro, false)),
                   MakeField("ns", Timestamp(TimeUnit::kNano, false))};
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, Decode(options, docs));
  ExpectValid(batch);
  EXPECT_EQ(batch.columns[1].Value<int64_t>(0), 1577934245123);
  EXPECT_EQ(batch.columns[2].Value<int64_t>(0), 1577934245123456);
  EXPECT_EQ(batch.columns[3].Value<int64_t>(0), 1577934245123456780);
  for (int column : {0, 1, 2, 3}) EXPECT_TRUE(batch.columns[column].IsNull(1)) << column;
  EXPECT_EQ(batch.columns[1].Value<int64_t>(2), 1577934245000);
  EXPECT_EQ(batch.columns[2].Value<int64_t>(2), 1577923200000000);
  EXPECT_EQ(batch.columns[1].Value<int64_t>(3), 1577930645000);

  options.inference.date_format = "%d/%m/%Y";
  options.inference.timestamp_format = "%Y-%m-%d %H:%M:%S";
  ASSERT_OK_AND_ASSIGN(batch, Decode(options, docs));
  ExpectValid(batch);
  EXPECT_EQ(batch.columns[0].Value<int32_t>(3), 18263);
  EXPECT_TRUE(batch.columns[2].IsNull(0));  // 'T' and a fraction are not the format
}

// The flat path reads runs of digits eight at a time: every length around
// the 8-byte steps and the 18-digit exact-integer limit, in integer, fraction
// and exponent position, must read as the general path reads it.
TEST(JsonDocumentDecoderTest, NumbersOfEveryDigitCountReadExactly) {
  JsonDecodeOptions options = Options();
  options.known = {MakeField("n", Int64()), MakeField("d", Decimal(38, 0)), MakeField("f", Float64())};
  std::vector<std::string> docs;
  std::vector<int64_t> expected;
  for (int digits = 1; digits <= 19; ++digits) {
    std::string number;
    for (int k = 0; k < digits; ++k) number.push_back(static_cast<char>('1' + (k * 7 + digits) % 9));
    const std::string sign = digits % 2 ? "-" : "";
    docs.push_back("{\"n\": " + sign + number + ", \"d\": " + number + "0, \"f\": 0." + number + "e" +
                   std::to_string(digits) + "}");
    expected.push_back(std::stoll(sign + number));
  }
  docs.push_back(R"({"n": 12345678.0, "d": 123456789012345678901234567, "f": 1234567812345678})");
  docs.push_back(R"({"n": 0123, "d": 1, "f": 1})");       // a leading zero: not JSON
  docs.push_back(R"({"n": 12345678a, "d": 1, "f": 1})");  // a letter after eight digits
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, Decode(options, docs));
  ExpectValid(batch);
  for (size_t r = 0; r < expected.size(); ++r) {
    EXPECT_EQ(batch.columns[0].Value<int64_t>(static_cast<int64_t>(r)), expected[r]) << docs[r];
  }
  EXPECT_EQ(batch.columns[0].Value<int64_t>(19), 12345678);
  EXPECT_TRUE(batch.columns[0].IsNull(20));
  EXPECT_TRUE(batch.columns[0].IsNull(21));
  const Column& rescued = batch.columns.back();  // the broken documents are rescued whole
  ASSERT_EQ(batch.schema.back().name, "_rescued_data");
  EXPECT_NE(std::string(rescued.StringAt(20)).find("0123"), std::string::npos);
  EXPECT_NE(std::string(rescued.StringAt(21)).find("12345678a"), std::string::npos);
}

// The flat scan reads numbers of up to 18 digits (both sides of the point)
// while scanning; doubles and decimals built from them must equal the
// general path's (Decode compares the two) and the literal's exact value.
TEST(JsonDocumentDecoderTest, ShortNumbersReadWhileScanningAreExact) {
  JsonDecodeOptions options = Options();
  options.known = {MakeField("f", Float64()), MakeField("d", Decimal(9, 2)), MakeField("w", Decimal(38, 20)),
                   MakeField("i", Int64())};
  const std::vector<std::string> literals = {"0.1",
                                             "-0.0",
                                             "0",
                                             "-0",
                                             "2624.175218680833",
                                             "9007199254740992",
                                             "9007199254740993",
                                             "-9007199254740993",
                                             "123456789.123456789",
                                             "0.000000000000000001",
                                             "1.5e3",
                                             "12.5",
                                             "-0.50",
                                             "1.005",
                                             "9999999.99",
                                             "10000000.00",
                                             "4.35",
                                             "0.3",
                                             "5e-324",
                                             "1234567.1234567891"};
  std::vector<std::string> docs;
  for (const std::string& literal : literals) {
    docs.push_back("{\"f\": " + literal + ", \"d\": " + literal + ", \"w\": " + literal +
                   ", \"i\": " + literal + "}");
  }
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, Decode(options, docs));
  ExpectValid(batch);
  for (size_t r = 0; r < literals.size(); ++r) {
    const double expected = std::strtod(literals[r].c_str(), nullptr);
    const double got = batch.columns[0].Value<double>(static_cast<int64_t>(r));
    EXPECT_EQ(std::memcmp(&got, &expected, sizeof(double)), 0) << literals[r] << " read as " << got;
  }
  const std::string rows = Rows(batch);
  EXPECT_NE(rows.find(R"({"f":12.5,"d":"12.50","w":"12.50000000000000000000","i":null)"), std::string::npos)
      << rows;
  EXPECT_NE(rows.find(R"("d":"-0.50")"), std::string::npos) << rows;
  EXPECT_NE(rows.find(R"("d":null,"w":"1.00500000000000000000")"), std::string::npos) << rows;  // 1.005
  EXPECT_NE(rows.find(R"("d":"9999999.99")"), std::string::npos) << rows;
  EXPECT_NE(rows.find(R"("w":"0.00000000000000000100")"), std::string::npos) << rows;
  EXPECT_NE(rows.find(R"("d":"1500.00","w":"1500.00000000000000000000","i":1500)"), std::string::npos)
      << rows;
}

TEST(JsonDocumentDecoderTest, AMismatchInsideAListRescuesTheWholeList) {
  JsonDecodeOptions options = Options();
  options.known = {MakeField("items", List(MakeField("element", Struct({MakeField("p", Int64())})))),
                   MakeField("id", Int64())};
  ASSERT_OK_AND_ASSIGN(RecordBatch batch,
                       Decode(options, {R"({"items": [{"p": 1}, {"p": "x"}, {"p": 3}], "id": 1})",
                                        R"({"items": [{"p": 4}], "id": 2})"}));
  ExpectValid(batch);
  EXPECT_EQ(
      Rows(batch),
      R"({"items":null,"id":1,"_rescued_data":"{\"items\":[{\"p\": 1}, {\"p\": \"x\"}, {\"p\": 3}],\"_file_path\":\"in.jsonl\",\"_line\":1}"}
{"items":[{"p":4}],"id":2,"_rescued_data":null}
)");
}

TEST(JsonDocumentDecoderTest, BrokenDocumentsAreRescuedWhole) {
  JsonDecodeOptions options = Options();
  options.known = {MakeField("a", Int64())};
  ASSERT_OK_AND_ASSIGN(
      RecordBatch batch,
      Decode(options, {R"({"a": 1})", R"({"a": 2, "b": [1, 2})", R"([1, 2])", R"({"a": 3} x)", R"({"a": 01})",
                       R"({"a": "\q"})", R"({"a": 4, "new": {"x": 1}})"}));
  ExpectValid(batch);
  ASSERT_EQ(batch.num_rows, 7);
  EXPECT_EQ(SchemaToString(batch.schema), "a: int64\nnew: struct<x: int64>\n_rescued_data: string\n");
  const Column& a = batch.columns[0];
  const Column& rescued = batch.columns[2];
  EXPECT_EQ(a.Value<int64_t>(0), 1);
  for (int r = 1; r <= 5; ++r) {
    EXPECT_TRUE(a.IsNull(r)) << r;
    EXPECT_TRUE(batch.columns[1].IsNull(r)) << r;
    ASSERT_TRUE(rescued.IsValid(r)) << r;
    EXPECT_NE(rescued.StringAt(r).find("\"_raw\":"), std::string_view::npos) << rescued.StringAt(r);
    EXPECT_NE(rescued.StringAt(r).find("\"_line\":" + std::to_string(r + 1)), std::string_view::npos);
  }
  EXPECT_NE(rescued.StringAt(2).find("expected a JSON object"), std::string_view::npos)
      << rescued.StringAt(2);
  EXPECT_EQ(a.Value<int64_t>(6), 4);
  EXPECT_TRUE(rescued.IsNull(6));
}

TEST(JsonDocumentDecoderTest, FailPoliciesNameUnitLineAndField) {
  JsonDecodeOptions options = Options();
  options.on_broken = BadDataPolicy::kFail;
  ASSERT_OK_AND_ASSIGN(auto decoder, JsonDocumentDecoder::Make(options));
  ASSERT_OK(decoder->Add(R"({"a": 1})", 1));
  Status broken = decoder->Add(R"({"a": 1,, })", 2);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.kind(), ErrorKind::kCorruption);
  EXPECT_NE(broken.message().find("in.jsonl: line 2, byte"), std::string::npos) << broken.message();
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, decoder->Finish());
  EXPECT_EQ(batch.num_rows, 1);

  options = Options();
  options.on_mismatch = BadDataPolicy::kFail;
  options.known = {MakeField("amount", Decimal(5, 2))};
  options.location.position_key = "_offset";
  ASSERT_OK_AND_ASSIGN(decoder, JsonDocumentDecoder::Make(options));
  Status mismatch = decoder->Add(R"({"amount": 1.234})", 42);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_EQ(mismatch.message(), "in.jsonl: offset 42: field amount: number does not fit decimal(5,2)");
}

// The flat path converts each member as it scans it, so a document that
// turns out not to be flat (a nested value, an escape, broken JSON) after
// members were converted, rescued, repeated or new must leave no trace of
// them: its row is what the general path makes of it.
TEST(JsonDocumentDecoderTest, ADocumentFoundNotFlatLateUndoesItsConvertedMembers) {
  JsonDecodeOptions options = Options();
  options.known = {MakeField("id", Int64()), MakeField("amount", Decimal(5, 2)), MakeField("s", String()),
                   MakeField("at", Timestamp(TimeUnit::kMicro, false)), MakeField("x", Float64())};
  const std::vector<std::string> docs = {
      R"({"id": 1, "amount": 1.5, "s": "a", "at": "2020-01-02 03:04:05", "x": 0.5})",
      R"({"id": 2, "amount": 1.234, "s": "b", "new": 7, "at": "2020-01-02", "x": {"y": 1}})",
      R"({"id": 3, "id": 4, "amount": "x", "s": "c\"d", "at": 5})",
      R"({"id": 5, "amount": 2, "s": "e", "at": "no time", "x": [1, 2]})",
      R"({"id": 6, "amount": 3, "s": "f", "x": 1e400, "z": [})",
      R"({"id": 7, "amount": 4.25, "s": "g", "at": "2021-01-01T00:00:00", "x": -0.0})",
      R"({"id": 8, "amount": 1.234, "s": "g", "x": 1, "n": 1})"};
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, Decode(options, docs));
  ExpectValid(batch);
  EXPECT_EQ(batch.num_rows, 7);
  EXPECT_EQ(SchemaToString(batch.schema),
            "id: int64\namount: decimal(5,2)\ns: string\nat: timestamp[us]\nx: float64\nnew: int64\n"
            "n: int64\n_rescued_data: string\n");

  // With on_mismatch = kFail, a value that does not fit fails a document
  // only when the rest of it is valid JSON; a broken one is rescued whole
  // (on_broken = kRescue), on both paths.
  options.infer_new_fields = false;
  options.on_mismatch = BadDataPolicy::kFail;
  for (const std::string& doc :
       {std::string(R"({"id": "x", "s": "a", "b": {"c": 1}})"), std::string(R"({"id": "x", "s": "a\"b"})"),
        std::string(R"({"id": 1, "amount": 1.234, "b": [1,)"),
        std::string(R"({"id": "x", "s": "a", "b": [1, 2)")}) {
    JsonDecodeOptions general = options;
    general.flat_fast_path = false;
    Result<RecordBatch> fast = DecodeOnce(options, {doc});
    Result<RecordBatch> slow = DecodeOnce(general, {doc});
    ASSERT_EQ(fast.ok(), slow.ok()) << doc;
    if (!fast.ok()) {
      EXPECT_EQ(fast.status().message(), slow.status().message()) << doc;
      continue;
    }
    EXPECT_EQ(Rows(*fast), Rows(*slow)) << doc;
  }
}

TEST(JsonDocumentDecoderTest, RepeatedMembersKeepTheFirstAndRescueTheRest) {
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, Decode(Options(), {R"({"a": 1, "a": 2, "b": 3, "b": 4})"}));
  EXPECT_EQ(Rows(batch),
            R"({"a":1,"b":3,"_rescued_data":"{\"a\":2,\"b\":4,\"_file_path\":\"in.jsonl\",\"_line\":1}"})"
            "\n");
}

TEST(JsonDocumentDecoderTest, ProjectionBuildsOnlyTheSelectedColumns) {
  JsonDecodeOptions options = Options();
  options.known = {MakeField("a", Int64()), MakeField("b", String()), MakeField("c", Int64())};
  options.columns = std::vector<std::string>{"c", "a"};
  const std::vector<std::string> docs = {R"({"a": 1, "b": "x", "c": 3})", R"({"a": 2, "b": [1,], "c": 4})",
                                         R"({"a": 5, "b": {"deep": "ok"}, "c": "no"})"};
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, Decode(options, docs));
  ExpectValid(batch);
  // The second document is broken whatever is selected; "no" does not fit c.
  EXPECT_EQ(Rows(batch), "{\"c\":3,\"a\":1}\n{\"c\":null,\"a\":null}\n{\"c\":null,\"a\":5}\n");
  options.columns = std::vector<std::string>{"_rescued_data"};
  ASSERT_OK_AND_ASSIGN(batch, Decode(options, docs));
  ASSERT_EQ(batch.num_rows, 3);
  EXPECT_TRUE(batch.columns[0].IsNull(0));
  EXPECT_NE(batch.columns[0].StringAt(1).find("_raw"), std::string_view::npos);
  EXPECT_NE(batch.columns[0].StringAt(2).find("\"c\":\"no\""), std::string_view::npos);
}

TEST(JsonDocumentDecoderTest, NestedAsJsonAndMaps) {
  JsonDecodeOptions options = Options();
  options.nested_as_json = true;
  options.known = {MakeField("m", Map(MakeField("key", Int32(), false), MakeField("value", Float64())))};
  ASSERT_OK_AND_ASSIGN(RecordBatch batch,
                       Decode(options, {R"({"m": {"1": 1.5, "2": 2}, "o": {"x": [1, {"y": 2}]}})",
                                        R"({"m": {"x": 1}, "o": [true]})"}));
  ExpectValid(batch);
  EXPECT_EQ(SchemaToString(batch.schema), "m: map<int32, float64>\no: string\n_rescued_data: string\n");
  EXPECT_EQ(
      Rows(batch),
      R"({"m":[{"key":1,"value":1.5},{"key":2,"value":2}],"o":"{\"x\": [1, {\"y\": 2}]}","_rescued_data":null}
{"m":null,"o":"[true]","_rescued_data":"{\"m\":{\"x\": 1},\"_file_path\":\"in.jsonl\",\"_line\":2}"}
)");
}

TEST(JsonDocumentDecoderTest, PaddedInputIsReadInPlaceAndLimitsHold) {
  std::string buffer = R"({"a": 1}{"a": 2})";
  buffer.append(JsonDocumentPadding(), ' ');
  JsonDecodeOptions options = Options();
  options.max_document_bytes = 16;
  ASSERT_OK_AND_ASSIGN(auto decoder, JsonDocumentDecoder::Make(options));
  ASSERT_OK(decoder->Add(std::string_view(buffer.data(), 8), 1, buffer.size() - 8));
  ASSERT_OK(decoder->Add(std::string_view(buffer.data() + 8, 8), 2, buffer.size() - 16));
  ASSERT_OK(decoder->Add(R"({"a": 3, "b": "this is too long"})", 3));
  std::string deep(200, '[');
  ASSERT_OK(decoder->Add("{\"d\":" + deep + "}", 4));
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, decoder->Finish());
  ExpectValid(batch);
  EXPECT_EQ(batch.num_rows, 4);
  EXPECT_EQ(batch.columns[0].Value<int64_t>(1), 2);
  EXPECT_TRUE(batch.columns[0].IsNull(2));
  EXPECT_NE(batch.columns[1].StringAt(2).find("exceeds the limit"), std::string_view::npos);
  // The decoder is reusable after Finish.
  ASSERT_OK(decoder->Add(R"({"z": "again"})", 1));
  ASSERT_OK_AND_ASSIGN(batch, decoder->Finish());
  EXPECT_EQ(SchemaToString(batch.schema), "z: string\n");
}

// JSON lines text decoded by AddLines (whose flat scan finds each line's
// end itself) and, for comparison, cut by SplitJsonRecords and added record
// by record on the general path: the same rows, the same next line number,
// the same error.
Result<RecordBatch> DecodeLines(JsonDecodeOptions options, std::string_view text, int64_t* next_line) {
  JsonDecodeOptions general = options;
  general.flat_fast_path = false;
  FLOE_ASSIGN_OR_RETURN(auto lines_decoder, JsonDocumentDecoder::Make(options));
  FLOE_ASSIGN_OR_RETURN(auto record_decoder, JsonDocumentDecoder::Make(general));
  const Status lines = lines_decoder->AddLines(text, 1, 0, next_line);
  int64_t record_next = 0;
  const Status records = SplitJsonRecords(
      JsonLayout::kLines, text, 1,
      [&](std::string_view record, int64_t line) { return record_decoder->Add(record, line); }, &record_next);
  EXPECT_EQ(lines.ToString(), records.ToString());
  FLOE_RETURN_IF_ERROR(lines);
  EXPECT_EQ(*next_line, record_next);
  FLOE_ASSIGN_OR_RETURN(RecordBatch fast, lines_decoder->Finish());
  FLOE_ASSIGN_OR_RETURN(RecordBatch slow, record_decoder->Finish());
  EXPECT_EQ(SchemaToString(fast.schema), SchemaToString(slow.schema));
  EXPECT_EQ(Rows(fast), Rows(slow));
  return fast;
}

TEST(JsonDocumentDecoderTest, LinesAreTheRowsOfTheirRecords) {
  JsonDecodeOptions options = Options();
  options.known = {MakeField("id", Int64()), MakeField("s", String())};
  options.infer_new_fields = false;
  options.max_document_bytes = 80;
  const std::string text =
      "{\"id\": 1, \"s\": \"crlf\"}\r\n"
      "\n"
      "   \t \r\n"
      "  {\"id\": 2, \"s\": \"blanks around\"}  \t\n"
      // An escape (the general path), also right where the 16-byte string
      // search of the flat scan stops.
      "{\"id\": 3, \"s\": \"es\\\"caped\"}\n"
      "{\"id\": 4, \"s\": \"0123456789abcde\\\"f\"}\n"
      "{\"id\": 5, \"s\": \"0123456789abcdef\\u0041\"}\n"
      // An object across two lines is two broken records; so is content
      // after an object, and a '\r' that is not the line's last byte is
      // white space inside it.
      "{\"id\": 6,\n\"s\": \"split\"}\n"
      "{\"id\": 7} {\"id\": 8}\n"
      "{\"id\":\r9}\r\r\n"
      "{\"id\": \"x\", \"s\": \"mismatch\"}\n"
      "{\"id\": 10, \"id\": 11, \"n\": {\"a\": 1}}\n"
      "{\"id\": 12, \"s\": \"longer than the document limit of eighty bytes, by a few bytes\"}\n"
      "{}\n"
      "\r\n"
      "{\"id\": 13, \"s\": \"last line, no newline\"}";
  int64_t next_line = 0;
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, DecodeLines(options, text, &next_line));
  ExpectValid(batch);
  EXPECT_EQ(next_line, 18);
  EXPECT_EQ(batch.num_rows, 14);
  EXPECT_EQ(Rows(batch).substr(0, 68),
            "{\"id\":1,\"s\":\"crlf\",\"_rescued_data\":null}\n{\"id\":2,\"s\":\"blanks around\"");
  EXPECT_EQ(batch.columns[0].Value<int64_t>(2), 3);
  EXPECT_EQ(batch.columns[1].StringAt(3), "0123456789abcde\"f");
  EXPECT_EQ(batch.columns[1].StringAt(4), "0123456789abcdefA");
  EXPECT_EQ(batch.columns[0].Value<int64_t>(8), 9);
  EXPECT_EQ(batch.columns[0].Value<int64_t>(13), 13);
  for (int64_t null_id : {5, 6, 7, 9, 11, 12}) EXPECT_TRUE(batch.columns[0].IsNull(null_id)) << null_id;

  // A broken line or a value that does not fit fails naming its line, with
  // or without a newline after it.
  for (const char* last : {"{\"id\": 2,, }", "{\"id\": 2,, }\n", "{\"id\": \"x\"}\r\n"}) {
    options.on_broken = BadDataPolicy::kFail;
    options.on_mismatch = BadDataPolicy::kFail;
    Result<RecordBatch> failed = DecodeLines(options, std::string("{\"id\": 1}\n\n") + last, &next_line);
    ASSERT_FALSE(failed.ok()) << last;
    EXPECT_EQ(failed.status().message().rfind("in.jsonl: line 3", 0), 0u) << failed.status().message();
  }
}

}  // namespace
}  // namespace floe::json

namespace floe::json {
namespace {

// Fuzz findings, kept as tests (their inputs are seeds in tests/fuzz/seeds/json_reader).
TEST(JsonDocumentDecoderRegressionTest, ABrokenDocumentUndoesAHalfBuiltStruct) {
  JsonDecodeOptions options = Options();
  options.known = {MakeField("c", Struct({MakeField("x", Int64()), MakeField("y", String())}))};
  ASSERT_OK_AND_ASSIGN(RecordBatch batch,
                       Decode(options, {R"({"c": {"x": 1, "y": "a"u}})", R"({"c": {"x": 2, "y": "b"}})"}));
  ExpectValid(batch);
  EXPECT_EQ(Rows(batch).substr(0, 10), "{\"c\":null,");
  EXPECT_EQ(batch.columns[0].children[0].Value<int64_t>(1), 2);
}

// Found by json_reader_fuzz: the flat path had converted a new member "a"
// before finding trailing content, and undoing the row kept "a" as a field
// (an all-null column the general path does not make).
TEST(JsonDocumentDecoderRegressionTest, ANewMemberOfAnUndoneRowIsNotAField) {
  ASSERT_OK_AND_ASSIGN(RecordBatch batch, Decode(Options(), {R"({"a":)", R"({"a": 2} "x" 5 [1])"}));
  EXPECT_EQ(SchemaToString(batch.schema), "_rescued_data: string\n");
  ASSERT_OK_AND_ASSIGN(batch, Decode(Options(), {R"({"b": 1})", R"({"b": 2, "a": 3} x)", R"({"a": 4})"}));
  EXPECT_EQ(SchemaToString(batch.schema), "b: int64\na: int64\n_rescued_data: string\n");
}

TEST(JsonDocumentDecoderRegressionTest, InvalidUtf8IsBrokenWithoutAByteOffset) {
  JsonDecodeOptions options = Options();
  options.on_broken = BadDataPolicy::kFail;
  ASSERT_OK_AND_ASSIGN(auto decoder, JsonDocumentDecoder::Make(options));
  Status st = decoder->Add("{\"a\": \"\xff\"}", 3);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message().rfind("in.jsonl: line 3: ", 0), 0u) << st.message();
}

}  // namespace
}  // namespace floe::json
