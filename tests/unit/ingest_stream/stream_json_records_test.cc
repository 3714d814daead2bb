#include "ingest/stream/stream_json_records.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "common/base64.h"
#include "ingest/stream/kafka_record_origin.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;

// A Debezium-like value schema: after {id int32, balance Decimal(10,2) bytes,
// at MicroTimestamp}, op, and, in version 2, after.note (optional string)
// with id widened to int64.
std::string ValueSchema(int version) {
  const std::string id_type = version == 1 ? "int32" : "int64";
  std::string after =
      R"({"type":"struct","optional":true,"name":"t.Value","field":"after","fields":[)"
      R"({"field":"id","type":")" +
      id_type +
      R"(","optional":false},)"
      R"({"field":"balance","type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"}},)"
      R"({"field":"at","type":"int64","optional":true,"name":"io.debezium.time.MicroTimestamp","version":1})";
  if (version == 2) after += R"(,{"field":"note","type":"string","optional":true})";
  after += "]}";
  return R"({"type":"struct","optional":false,"name":"t.Envelope","fields":[)" + after +
         R"(,{"field":"op","type":"string","optional":false}]})";
}

std::string Wrapped(int version, const std::string& payload) {
  return R"({"schema":)" + ValueSchema(version) + R"(,"payload":)" + payload + "}";
}

StreamRecord Record(int64_t offset, std::optional<std::string> value, std::optional<std::string> key = "k") {
  StreamRecord record;
  record.position = std::to_string(offset);
  record.timestamp_ms = 1'700'000'000'000 + offset;
  record.key = std::move(key);
  record.value = std::move(value);
  return record;
}

Result<DecodedRecords> Decode(const std::vector<StreamRecord>& records, bool metadata = true) {
  static connect::ConnectSchemaCache schemas;
  StreamJsonOptions options;
  options.text.inference.infer_column_types = true;
  options.metadata_column = metadata;
  return DecodeStreamJsonRecords(KafkaRecordOrigin("db.inventory.t", 2), records, {}, options, schemas);
}

const Column& ColumnNamed(const RecordBatch& batch, const std::string& name) {
  for (size_t i = 0; i < batch.schema.size(); ++i) {
    if (batch.schema[i].name == name) return batch.columns[i];
  }
  ADD_FAILURE() << "no column " << name;
  static Column none;
  return none;
}

const Column& Member(const Column& parent, const std::string& name) {
  for (size_t i = 0; i < parent.type.children.size(); ++i) {
    if (parent.type.children[i].name == name) return parent.children[i];
  }
  ADD_FAILURE() << "no member " << name;
  static Column none;
  return none;
}

TEST(KafkaJsonRecordsTest, EnvelopesBecomeTheirPayloadsTypedByTheirConnectSchema) {
  // 12345 cents: unscaled bytes 0x30 0x39, base64 "MDk=".
  ASSERT_OK_AND_ASSIGN(
      DecodedRecords decoded,
      Decode({Record(7, Wrapped(1, R"({"after":{"id":5,"balance":"MDk=","at":1700000000123456},"op":"c"})")),
              Record(8, std::nullopt),  // a tombstone
              Record(9, Wrapped(1, "null"))}));
  EXPECT_EQ(decoded.tombstones, 2);
  EXPECT_EQ(decoded.dead_letters.num_rows, 0);
  ASSERT_EQ(decoded.rows.num_rows, 1);
  const Column& after = ColumnNamed(decoded.rows, "after");
  const Column& balance = Member(after, "balance");
  EXPECT_EQ(balance.type, Decimal(10, 2));
  const Column& at = Member(after, "at");
  EXPECT_EQ(at.type, Timestamp(TimeUnit::kMicro, false));
  EXPECT_EQ(at.Value<int64_t>(0), 1700000000123456);
  EXPECT_EQ(Member(after, "id").type, Int32());
  EXPECT_EQ(ColumnNamed(decoded.rows, "op").StringAt(0), "c");
  const Column& kafka = ColumnNamed(decoded.rows, "kafka");
  EXPECT_EQ(Member(kafka, "offset").Value<int64_t>(0), 7);
  EXPECT_EQ(Member(kafka, "partition").Value<int32_t>(0), 2);
  EXPECT_EQ(Member(kafka, "topic").StringAt(0), "db.inventory.t");
}

TEST(KafkaJsonRecordsTest, RecordsThatCannotBeRowsAreDeadLettersWithTheirBytesAndWhy) {
  ASSERT_OK_AND_ASSIGN(DecodedRecords decoded,
                       Decode({Record(10, R"({"op":"c","after":{"id":1}})"), Record(11, "not json at all"),
                               Record(12, "[1,2,3]"), Record(13, std::string("\xff\xfe{", 3), std::nullopt),
                               Record(14, R"({"op":"u","after":{"id":1}})"),
                               Record(15, Wrapped(1, R"({"after":{"id":"five"},"op":"c"})")),
                               Record(16, R"({"schema":{"type":"nonsense"},"payload":{"op":"c"}})")}));
  EXPECT_EQ(decoded.rows.num_rows, 2);
  ASSERT_EQ(decoded.dead_letters.num_rows, 5);
  const auto& columns = decoded.dead_letters.columns;
  std::vector<int64_t> offsets;
  for (int64_t row = 0; row < 5; ++row) offsets.push_back(columns[2].Value<int64_t>(row));
  EXPECT_EQ(offsets, (std::vector<int64_t>{11, 12, 13, 15, 16}));
  EXPECT_EQ(columns[0].StringAt(0), "db.inventory.t");
  EXPECT_EQ(columns[1].Value<int32_t>(0), 2);
  EXPECT_EQ(columns[3].Value<int64_t>(0), (1'700'000'000'000 + 11) * 1000);
  EXPECT_EQ(columns[4].StringAt(0), Base64Encode("k"));
  EXPECT_EQ(columns[5].StringAt(0), Base64Encode("not json at all"));
  EXPECT_TRUE(columns[4].IsNull(2)) << "record 13 has no key";
  EXPECT_THAT(std::string(columns[6].StringAt(0)), HasSubstr("db.inventory.t[2] offset 11: "));
  EXPECT_THAT(std::string(columns[6].StringAt(1)), HasSubstr("not a JSON object"));
  EXPECT_THAT(std::string(columns[6].StringAt(3)), HasSubstr("does not fit its Kafka Connect schema"));
  EXPECT_THAT(std::string(columns[6].StringAt(4)), HasSubstr("Kafka Connect schema"));
  // The good rows keep their offsets.
  const Column& kafka = ColumnNamed(decoded.rows, "kafka");
  EXPECT_EQ(Member(kafka, "offset").Value<int64_t>(0), 10);
  EXPECT_EQ(Member(kafka, "offset").Value<int64_t>(1), 14);
}

TEST(KafkaJsonRecordsTest, ASchemaChangeMidRangeGivesTheUnionInOffsetOrder) {
  ASSERT_OK_AND_ASSIGN(
      DecodedRecords decoded,
      Decode({Record(0, Wrapped(1, R"({"after":{"id":1,"balance":null,"at":null},"op":"c"})")),
              Record(1, Wrapped(2, R"({"after":{"id":2,"note":"hi"},"op":"c"})")),
              Record(2, Wrapped(1, R"({"after":{"id":3},"op":"u"})"))}));
  ASSERT_EQ(decoded.rows.num_rows, 3);
  EXPECT_EQ(decoded.dead_letters.num_rows, 0);
  const Column& after = ColumnNamed(decoded.rows, "after");
  const Column& id = Member(after, "id");
  ASSERT_EQ(id.type, Int64()) << "int32 widened to the newer int64";
  EXPECT_EQ(id.Value<int64_t>(0), 1);
  EXPECT_EQ(id.Value<int64_t>(1), 2);
  EXPECT_EQ(id.Value<int64_t>(2), 3);
  const Column& note = Member(after, "note");
  EXPECT_TRUE(note.IsNull(0));
  EXPECT_EQ(note.StringAt(1), "hi");
  EXPECT_TRUE(note.IsNull(2));
  const Column& kafka = ColumnNamed(decoded.rows, "kafka");
  EXPECT_EQ(Member(kafka, "offset").Value<int64_t>(2), 2);
  EXPECT_TRUE(after.children.size() == after.type.children.size());
  EXPECT_EQ(after.Validate(), "");
}

TEST(KafkaJsonRecordsTest, SchemalessValuesAreInferredAndAppendRowsHaveNoMetadataUnlessAsked) {
  ASSERT_OK_AND_ASSIGN(
      DecodedRecords decoded,
      Decode({Record(3, R"({"user":"ann","clicks":3,"at":"2026-11-30T10:00:00Z"})")}, false));
  ASSERT_EQ(decoded.rows.num_rows, 1);
  EXPECT_EQ(ColumnNamed(decoded.rows, "clicks").type, Int64());
  for (const Field& field : decoded.rows.schema) EXPECT_NE(field.name, "kafka");
}

TEST(KafkaJsonRecordsTest, ARangeOfOnlyTombstonesHasNoRowsAndNoSchema) {
  ASSERT_OK_AND_ASSIGN(DecodedRecords decoded, Decode({Record(0, std::nullopt), Record(1, std::nullopt)}));
  EXPECT_EQ(decoded.rows.num_rows, 0);
  EXPECT_TRUE(decoded.rows.schema.empty());
  EXPECT_EQ(decoded.tombstones, 2);
}

}  // namespace
}  // namespace floe::ingest
