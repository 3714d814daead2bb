#include "ingest/discovery/cda_manifest.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "test_util.h"

namespace floe::ingest {
namespace {

Status ParseError(const std::string& json) {
  auto result = ParseCdaManifest(json, "export/manifest.json");
  EXPECT_FALSE(result.ok()) << json;
  return result.status();
}

TEST(CdaManifestTest, ParsesDocumentedShape) {
  const std::string json = R"({
    "taccount": {"lastSuccessfulWriteTimestamp": "1562112543759",
                 "totalProcessedRecordsCount": 240000,
                 "dataFilesPath": "s3://bucket/CDA/SQL/taccount",
                 "schemaHistory": {"987654321": "1562112543748", "123456789": "1562112543719"},
                 "somethingNew": [1, 2, {"x": null}]},
    "pc_policy": {"lastSuccessfulWriteTimestamp": 1700000000000,
                  "totalProcessedRecordsCount": "12",
                  "schemaHistory": {"b": 5, "a": 5, "c": 1}}
  })";
  ASSERT_OK_AND_ASSIGN(CdaManifest manifest, ParseCdaManifest(json, "m.json"));
  ASSERT_EQ(manifest.tables.size(), 2u);
  const CdaTableEntry& taccount = manifest.tables.at("taccount");
  EXPECT_EQ(taccount.table, "taccount");
  EXPECT_EQ(taccount.last_successful_write_ms, 1562112543759);
  EXPECT_EQ(taccount.total_processed_records, 240000);
  EXPECT_EQ(taccount.data_files_path, "s3://bucket/CDA/SQL/taccount");
  ASSERT_EQ(taccount.schema_history.size(), 2u);
  EXPECT_EQ(taccount.schema_history[0].fingerprint, "123456789");  // earlier start first
  EXPECT_EQ(taccount.schema_history[0].start_ms, 1562112543719);
  EXPECT_EQ(taccount.schema_history[1].fingerprint, "987654321");

  const CdaTableEntry& policy = manifest.tables.at("pc_policy");
  EXPECT_EQ(policy.last_successful_write_ms, 1700000000000);
  EXPECT_EQ(policy.total_processed_records, 12);
  EXPECT_EQ(policy.data_files_path, "");
  ASSERT_EQ(policy.schema_history.size(), 3u);
  EXPECT_EQ(policy.schema_history[0].fingerprint, "c");
  EXPECT_EQ(policy.schema_history[1].fingerprint, "a");  // tie on start: by fingerprint text
  EXPECT_EQ(policy.schema_history[2].fingerprint, "b");
}

TEST(CdaManifestTest, EmptyManifestAndIntegralFloats) {
  ASSERT_OK_AND_ASSIGN(CdaManifest empty, ParseCdaManifest("{}", "m.json"));
  EXPECT_TRUE(empty.tables.empty());
  ASSERT_OK_AND_ASSIGN(
      CdaManifest floats,
      ParseCdaManifest(R"({"t": {"lastSuccessfulWriteTimestamp": 1562112543759.0, "schemaHistory": {}}})",
                       "m"));
  EXPECT_EQ(floats.tables.at("t").last_successful_write_ms, 1562112543759);
}

TEST(CdaManifestTest, ErrorsNameUriTableAndMember) {
  Status status = ParseError(R"({"taccount": {"lastSuccessfulWriteTimestamp": "abc", "schemaHistory": {}}})");
  EXPECT_EQ(status.kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(
      status.message(),
      "export/manifest.json: table taccount: lastSuccessfulWriteTimestamp: expected epoch milliseconds, "
      "got \"abc\"");

  status = ParseError(R"({"t": {"schemaHistory": {}}})");
  EXPECT_NE(status.message().find("table t: lastSuccessfulWriteTimestamp: missing"), std::string::npos);

  status = ParseError(R"({"t": {"lastSuccessfulWriteTimestamp": 5}})");
  EXPECT_NE(status.message().find("table t: schemaHistory: missing"), std::string::npos);

  status = ParseError(R"({"t": {"lastSuccessfulWriteTimestamp": 5, "schemaHistory": [1]}})");
  EXPECT_NE(status.message().find("table t: schemaHistory: expected an object"), std::string::npos);

  status = ParseError(R"({"t": {"lastSuccessfulWriteTimestamp": 5, "schemaHistory": {"f1": "x1"}}})");
  EXPECT_NE(status.message().find(
                "table t: schemaHistory: fingerprint f1: expected epoch milliseconds, got \"x1\""),
            std::string::npos)
      << status.message();

  status =
      ParseError(R"({"t": {"lastSuccessfulWriteTimestamp": 5, "schemaHistory": {}, "dataFilesPath": 3}})");
  EXPECT_NE(status.message().find("table t: dataFilesPath: expected a string, got 3"), std::string::npos);

  status = ParseError(
      R"({"t": {"lastSuccessfulWriteTimestamp": 5, "schemaHistory": {}, "totalProcessedRecordsCount": true}})");
  EXPECT_NE(status.message().find("table t: totalProcessedRecordsCount: expected a record count, got true"),
            std::string::npos);

  status = ParseError(R"({"t": 7})");
  EXPECT_NE(status.message().find("table t: expected an object, got 7"), std::string::npos);
}

TEST(CdaManifestTest, RejectsBadNumbers) {
  for (const char* value : {"-5", "\"-5\"", "1.5", "\"\"", "\"12a\"", "\"1234567890123456789012\"",
                            "18446744073709551615", "1e300", "null", "[1]", "{}"}) {
    std::string json =
        std::string(R"({"t": {"schemaHistory": {}, "lastSuccessfulWriteTimestamp": )") + value + "}}";
    Status status = ParseError(json);
    EXPECT_NE(status.message().find("lastSuccessfulWriteTimestamp: expected epoch milliseconds"),
              std::string::npos)
        << value << ": " << status.message();
  }
}

// 2^63-1 (or any time not yet reached) would poison the watermark: every real value after it looks like a
// reset.
TEST(CdaManifestTest, RejectsTimestampsFromTheFuture) {
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  for (const std::string& value :
       {std::string("9223372036854775807"), std::to_string(now + 2 * 86400000LL)}) {
    Status status =
        ParseError(R"({"t": {"schemaHistory": {}, "lastSuccessfulWriteTimestamp": )" + value + "}}");
    EXPECT_NE(status.message().find("lastSuccessfulWriteTimestamp: " + value + " is more than a day ahead"),
              std::string::npos)
        << status.message();
    status = ParseError(R"({"t": {"schemaHistory": {"f1": )" + value +
                        R"(}, "lastSuccessfulWriteTimestamp": 5}})");
    EXPECT_NE(status.message().find("schemaHistory: fingerprint f1: " + value), std::string::npos)
        << status.message();
  }
  // An hour ahead (clock skew between the exporter and this machine) is fine.
  EXPECT_TRUE(ParseCdaManifest(R"({"t": {"schemaHistory": {}, "lastSuccessfulWriteTimestamp": )" +
                                   std::to_string(now + 3600000) + "}}",
                               "m.json")
                  .ok());
}

TEST(CdaManifestTest, RejectsNamesThatAreNotFolders) {
  EXPECT_NE(ParseError(R"({"a/b": {}})").message().find("table name \"a/b\" contains a path separator"),
            std::string::npos);
  EXPECT_NE(ParseError(R"({"..": {}})").message().find("is not a folder name"), std::string::npos);
  EXPECT_NE(ParseError(R"({"": {}})").message().find("is empty"), std::string::npos);
  EXPECT_NE(ParseError(R"({"a\u0001": {}})").message().find("\"a\\x01\" contains a control character"),
            std::string::npos);
  EXPECT_NE(ParseError(std::string(R"({")") + std::string(300, 'x') + R"(": {}})").message().find("longer"),
            std::string::npos);
  Status status = ParseError(R"({"t": {"lastSuccessfulWriteTimestamp": 5, "schemaHistory": {"../x": 1}}})");
  EXPECT_NE(status.message().find("fingerprint \"../x\" contains a path separator"), std::string::npos);
}

TEST(CdaManifestTest, RejectsNonManifests) {
  EXPECT_NE(ParseError("").message().find("export/manifest.json: not valid JSON"), std::string::npos);
  EXPECT_NE(ParseError("{\"t\": ").message().find("not valid JSON"), std::string::npos);
  EXPECT_NE(ParseError("[]").message().find("expected an object of table name"), std::string::npos);
  EXPECT_NE(ParseError("\"x\"").message().find("got \"x\""), std::string::npos);
  std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_NE(ParseError(deep).message().find("nested deeper"), std::string::npos);
  // Brackets inside strings do not count as nesting.
  std::string brackets = R"({"t": {"lastSuccessfulWriteTimestamp": 5, "schemaHistory": {}, "note": ")" +
                         std::string(100, '[') + R"(\""}})";
  EXPECT_OK(ParseCdaManifest(brackets, "m"));
}

}  // namespace
}  // namespace floe::ingest
