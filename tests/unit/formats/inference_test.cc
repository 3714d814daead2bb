// Shared type inference, schema hints, text conversion and _rescued_data.
#include <gtest/gtest.h>

#include "columnar/calendar.h"
#include "columnar/json_format.h"
#include "formats/rescued_data.h"
#include "formats/schema_hints.h"
#include "formats/text_conversion.h"
#include "formats/text_inference.h"
#include "test_util.h"

namespace floe::formats {
namespace {

std::shared_ptr<const TextInference> Inference(std::string date_format = "",
                                               std::string timestamp_format = "") {
  TypeInferenceOptions options;
  options.infer_column_types = true;
  options.date_format = std::move(date_format);
  options.timestamp_format = std::move(timestamp_format);
  auto made = TextInference::Make(options);
  EXPECT_TRUE(made.ok()) << made.status().ToString();
  return *made;
}

// The type a column of these values infers to.
std::string InferColumn(const TextInference& inference, std::initializer_list<std::string_view> values) {
  InferredType column;
  for (std::string_view v : values) inference.Widen(&column, inference.Classify(v));
  return inference.ToDataType(column).ToString();
}

TEST(TextInferenceTest, EveryTypeIsInferred) {
  auto inference = Inference();
  EXPECT_EQ(InferColumn(*inference, {"true", "FALSE"}), "bool");
  EXPECT_EQ(InferColumn(*inference, {"1", "-42", "9223372036854775807"}), "int64");
  EXPECT_EQ(InferColumn(*inference, {"1.5", "-12.25"}), "decimal(38,2)");
  EXPECT_EQ(InferColumn(*inference, {"1.5e3", "2"}), "float64");
  EXPECT_EQ(InferColumn(*inference, {"2624.175218680833"}), "float64");  // a printed double, not fixed point
  EXPECT_EQ(InferColumn(*inference, {"958639323.54", "0.000000001"}), "decimal(38,9)");
  EXPECT_EQ(InferColumn(*inference, {"2020-01-31", "1999-12-31"}), "date");
  EXPECT_EQ(InferColumn(*inference, {"2020-01-31 10:00:00", "2020-01-31T10:00:00.123456"}), "timestamp[us]");
  EXPECT_EQ(InferColumn(*inference, {"2020-01-31 10:00:00Z", "2020-01-31 10:00:00+05:30"}),
            "timestamp[us, utc]");
  EXPECT_EQ(InferColumn(*inference, {"2020-01-31 10:00:00.123456789"}), "timestamp[ns]");
  EXPECT_EQ(InferColumn(*inference, {"hello", "1"}), "string");
  EXPECT_EQ(InferColumn(*inference, {}), "string");
}

TEST(TextInferenceTest, WideningLattice) {
  auto inference = Inference();
  EXPECT_EQ(InferColumn(*inference, {"1", "2.5"}), "decimal(38,1)");
  EXPECT_EQ(InferColumn(*inference, {"1", "2.5", "1e10"}), "float64");
  EXPECT_EQ(InferColumn(*inference, {"99999999999999999999", "1"}), "decimal(38,0)");  // past int64: exact
  EXPECT_EQ(InferColumn(*inference, {"2020-01-31", "2020-02-01 10:00:00"}), "timestamp[us]");
  EXPECT_EQ(InferColumn(*inference, {"2020-01-31 10:00:00", "2020-01-31 10:00:00Z"}), "string");
  EXPECT_EQ(InferColumn(*inference, {"true", "1"}), "string");
  EXPECT_EQ(InferColumn(*inference, {"2020-01-31", "5"}), "string");
  EXPECT_EQ(InferColumn(*inference, {"00501", "12345"}), "string");  // zip codes keep their zeros
}

TEST(TextInferenceTest, DateOrdersAndAmbiguity) {
  auto inference = Inference();
  EXPECT_EQ(InferColumn(*inference, {"12/31/2020", "01/02/2021"}), "date");    // month first
  EXPECT_EQ(InferColumn(*inference, {"31/12/2020", "01/02/2021"}), "date");    // day first
  EXPECT_EQ(InferColumn(*inference, {"01/02/2021", "03/04/2021"}), "string");  // could be either
  EXPECT_EQ(InferColumn(*inference, {"31.12.2020 23:59:59"}), "timestamp[us]");
  EXPECT_EQ(InferColumn(*inference, {"12/31/2020 11:59:59 PM"}), "timestamp[us]");
  // The chosen order converts the values.
  InferredType type;
  for (std::string_view v : {"31/12/2020", "01/02/2021"}) inference->Widen(&type, inference->Classify(v));
  ASSERT_OK_AND_ASSIGN(TextConverter converter, TextConverter::Make(Date(), inference->FormatsOf(type)));
  Column column(Date());
  ASSERT_TRUE(converter.Append("01/02/2021", &column));
  EXPECT_EQ(column.Value<int32_t>(0), DaysFromCivil(2021, 2, 1));
}

TEST(TextInferenceTest, ConfiguredFormatsAreTheOnlyOnes) {
  auto inference = Inference("%d/%m/%Y", "%Y%m%d%H%M%S");
  EXPECT_EQ(InferColumn(*inference, {"01/02/2021"}), "date");
  EXPECT_EQ(InferColumn(*inference, {"2021-02-01"}), "string");
  EXPECT_EQ(InferColumn(*inference, {"20210201101112"}), "int64");  // a number first
  InferredType type = inference->ClassifyTemporal("20210201101112");
  EXPECT_EQ(inference->ToDataType(type).ToString(), "timestamp[us]");
  EXPECT_FALSE(TextInference::Make({true, "%Q", ""}).ok());
}

TEST(TextConversionTest, NothingIsRounded) {
  ASSERT_OK_AND_ASSIGN(TextConverter decimal, TextConverter::Make(Decimal(12, 2)));
  Column column(Decimal(12, 2));
  EXPECT_TRUE(decimal.Append("12.3", &column));
  EXPECT_FALSE(decimal.Append("12.345", &column));
  EXPECT_FALSE(decimal.Append("12345678901", &column));
  EXPECT_EQ(column.length, 1);
  EXPECT_EQ(column.Value<__int128>(0), 1230);

  ASSERT_OK_AND_ASSIGN(TextConverter int32, TextConverter::Make(Int32()));
  Column ints(Int32());
  EXPECT_TRUE(int32.Append("-2147483648", &ints));
  EXPECT_FALSE(int32.Append("2147483648", &ints));
  EXPECT_FALSE(int32.Append("1.5", &ints));

  ASSERT_OK_AND_ASSIGN(TextConverter micros, TextConverter::Make(Timestamp(TimeUnit::kMicro, false)));
  Column ts(Timestamp(TimeUnit::kMicro, false));
  EXPECT_TRUE(micros.Append("2020-01-01 00:00:00.123456", &ts));
  EXPECT_FALSE(micros.Append("2020-01-01 00:00:00.1234567", &ts));
  EXPECT_FALSE(micros.Append("2020-01-01 00:00:00Z", &ts));  // a zone into a local column
  EXPECT_TRUE(micros.Append("2020-01-01", &ts));             // a date is midnight
  EXPECT_EQ(ts.length, 2);
}

TEST(TextConversionTest, BinaryUuidAndBooleans) {
  std::string bytes;
  ASSERT_TRUE(DecodeBase64("aGVsbG8=", &bytes));
  EXPECT_EQ(bytes, "hello");
  ASSERT_TRUE(DecodeBase64("aGVsbG8", &bytes));
  EXPECT_EQ(bytes, "hello");
  EXPECT_FALSE(DecodeBase64("aGVsbG8*", &bytes));
  EXPECT_FALSE(DecodeBase64("a", &bytes));
  uint8_t uuid[16];
  ASSERT_TRUE(ParseUuidText("123e4567-e89b-12d3-a456-426614174000", uuid));
  EXPECT_EQ(uuid[0], 0x12);
  EXPECT_EQ(uuid[15], 0x00);
  EXPECT_FALSE(ParseUuidText("123e4567-e89b-12d3-a456-42661417400g", uuid));
  ASSERT_OK_AND_ASSIGN(TextConverter boolean, TextConverter::Make(Bool()));
  Column flags(Bool());
  EXPECT_TRUE(boolean.Append("TRUE", &flags));
  EXPECT_TRUE(boolean.Append("0", &flags));
  EXPECT_FALSE(boolean.Append("yes", &flags));
  EXPECT_FALSE(TextConverter::Make(List(MakeField("element", Int32()))).ok());
}

TEST(SchemaHintsTest, ParsesIcebergAndSqlNames) {
  ASSERT_OK_AND_ASSIGN(
      SchemaHints hints,
      SchemaHints::Parse(
          "amount DECIMAL(12,2), created_at TIMESTAMP, ts2 timestamptz, n bigint, i INT, "
          "`odd name` varchar(10), address.zip string, tags array<string>, "
          "m map<string, double>, s struct<a: int, b: list<date>>, u uuid, b binary, f fixed[4]"));
  EXPECT_EQ(hints.hints().size(), 13u);
  EXPECT_EQ(hints.FindTopLevel("amount")->ToString(), "decimal(12,2)");
  EXPECT_EQ(hints.FindTopLevel("created_at")->ToString(), "timestamp[us]");
  EXPECT_EQ(hints.FindTopLevel("ts2")->ToString(), "timestamp[us, utc]");
  EXPECT_EQ(hints.FindTopLevel("n")->ToString(), "int64");
  EXPECT_EQ(hints.FindTopLevel("i")->ToString(), "int32");
  EXPECT_EQ(hints.FindTopLevel("odd name")->ToString(), "string");
  EXPECT_EQ(hints.Find({"address", "zip"})->ToString(), "string");
  EXPECT_TRUE(hints.HasHintsBelow({"address"}));
  EXPECT_EQ(hints.FindTopLevel("tags")->ToString(), "list<string>");
  EXPECT_EQ(hints.FindTopLevel("m")->ToString(), "map<string, float64>");
  EXPECT_EQ(hints.FindTopLevel("s")->ToString(), "struct<a: int32, b: list<date>>");
  EXPECT_EQ(hints.FindTopLevel("f")->ToString(), "fixed[4]");
  EXPECT_EQ(hints.FindTopLevel("missing"), nullptr);

  Schema schema = {MakeField("amount", Float64()),
                   MakeField("address", Struct({MakeField("zip", Int64()), MakeField("city", String())}))};
  hints.Apply(&schema);
  EXPECT_EQ(SchemaToString(schema), "amount: decimal(12,2)\naddress: struct<zip: string, city: string>\n");
}

TEST(SchemaHintsTest, ErrorsNameThePosition) {
  auto bad = SchemaHints::Parse("amount DECIMAL(12)");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("position"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(SchemaHints::Parse("a int b int").ok());
  EXPECT_FALSE(SchemaHints::Parse("a widget").ok());
  EXPECT_FALSE(SchemaHints::Parse("a int, a long").ok());
  EXPECT_FALSE(SchemaHints::Parse("a decimal(40,2)").ok());
  EXPECT_TRUE(SchemaHints::Parse("").ok());
}

TEST(RescuedDataTest, OneObjectPerRowWithTheLocation) {
  RescuedDataBuilder builder({"s3://b/x.json"});
  builder.AddJsonValue(1, 7, "amount", "1.234");
  builder.AddText(1, 7, "note", "a\"b");
  builder.AddBroken(3, 9, "{oops", "invalid JSON");
  builder.AddJsonValue(4, 10, "gone", "1");
  builder.Truncate(4);
  Column column = builder.Finish(5);
  ASSERT_EQ(column.length, 5);
  EXPECT_TRUE(column.IsNull(0));
  EXPECT_EQ(column.StringAt(1), R"({"amount":1.234,"note":"a\"b","_file_path":"s3://b/x.json","_line":7})");
  EXPECT_TRUE(column.IsNull(2));
  EXPECT_EQ(column.StringAt(3),
            R"({"_raw":"{oops","_error":"invalid JSON","_file_path":"s3://b/x.json","_line":9})");
  EXPECT_TRUE(column.IsNull(4));
  EXPECT_EQ(column.Validate(), "");
  // Only the broken record's object reads as one; a rescued field named
  // _raw or an error text inside a value does not.
  EXPECT_EQ(BrokenRecordError(column.StringAt(3)), std::optional<std::string>("invalid JSON"));
  EXPECT_EQ(BrokenRecordError(column.StringAt(1)), std::nullopt);
  EXPECT_EQ(BrokenRecordError(R"({"_raw":5,"_file_path":"x"})"), std::nullopt);
  EXPECT_EQ(BrokenRecordError(R"({"note":"\"_raw\" and \"_error\""})"), std::nullopt);
  EXPECT_EQ(BrokenRecordError("not json"), std::nullopt);
}

TEST(ColumnTruncateTest, UndoesPartlyAppendedNestedValues) {
  Column list = MakeEmptyColumn(List(MakeField("element", Struct({MakeField("a", Int32())}))));
  auto append_list = [&](std::initializer_list<int> values, bool null_at_end) {
    for (int v : values) {
      list.children[0].children[0].AppendValue<int32_t>(v);
      list.children[0].AppendStructSlot();
    }
    if (null_at_end) list.children[0].AppendNull();
    list.AppendListEnd();
  };
  append_list({1, 2}, false);
  list.AppendNull();
  append_list({3}, true);
  list.Truncate(1);
  EXPECT_EQ(list.length, 1);
  EXPECT_EQ(list.null_count, 0);
  EXPECT_EQ(list.children[0].length, 2);
  EXPECT_EQ(list.children[0].null_count, 0);
  EXPECT_EQ(list.Validate(), "");
  list.AppendNull();
  EXPECT_TRUE(list.IsNull(1));
  EXPECT_EQ(list.Validate(), "");
  // A slot being built (children appended, the slot not closed) is undone too.
  Column open = MakeEmptyColumn(Struct({MakeField("x", Int32())}));
  open.children[0].AppendValue<int32_t>(7);
  open.Truncate(0);
  EXPECT_EQ(open.children[0].length, 0);
  EXPECT_EQ(open.Validate(), "");
}

}  // namespace
}  // namespace floe::formats
