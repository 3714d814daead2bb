// Confluent Avro records of one range to rows: Connect types exact, two
// writer schemas joined, and every kind of bad record a dead letter while
// a registry that cannot answer fails the range.
#include "ingest/stream/stream_avro_records.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "columnar/json_format.h"
#include "formats/avro/encoder.h"
#include "formats/connect/confluent_framing.h"
#include "ingest/stream/kafka_record_origin.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;

// A Debezium-like envelope as Confluent's Avro converter writes it: after
// {id, balance Decimal(10,2), at MicroTimestamp} (version 2 adds note and
// widens id to long), and op.
std::string ValueSchema(int version) {
  const std::string id = version == 1 ? R"({"name":"id","type":"int"})" : R"({"name":"id","type":"long"})";
  std::string fields =
      id +
      R"(,{"name":"balance","type":["null",{"type":"bytes","scale":2,"precision":10,)"
      R"("connect.version":1,"connect.parameters":{"scale":"2","connect.decimal.precision":"10"},)"
      R"("connect.name":"org.apache.kafka.connect.data.Decimal","logicalType":"decimal"}],"default":null},)"
      R"({"name":"at","type":["null",{"type":"long","connect.version":1,)"
      R"("connect.name":"io.debezium.time.MicroTimestamp"}],"default":null})";
  if (version == 2) fields += R"(,{"name":"note","type":["null","string"],"default":null})";
  return R"({"type":"record","name":"Envelope","namespace":"t","fields":[)"
         R"({"name":"after","type":["null",{"type":"record","name":"Value","fields":[)" +
         fields + R"(]}],"default":null},{"name":"op","type":"string"}]})";
}

struct Registry {
  std::map<int32_t, std::shared_ptr<const schema_registry::RegisteredSchema>> schemas;
  Status failure;  // returned for every id when set
  int lookups = 0;

  void Add(int32_t id, const std::string& text, const std::string& type = "AVRO") {
    auto registered = std::make_shared<schema_registry::RegisteredSchema>();
    registered->id = id;
    registered->schema_type = type;
    registered->text = text;
    if (type == "AVRO") {
      auto parsed = avro::AvroSchema::Parse(text);
      EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
      registered->avro = std::move(parsed).value();
    }
    schemas[id] = std::move(registered);
  }
  RegisteredSchemaLookup Lookup() {
    return [this](int32_t id) -> Result<std::shared_ptr<const schema_registry::RegisteredSchema>> {
      ++lookups;
      if (!failure.ok()) return failure;
      auto it = schemas.find(id);
      if (it == schemas.end()) return Status::NotFound("schema id " + std::to_string(id) + " not found");
      return it->second;
    };
  }
};

// after = {id, balance (unscaled), at}, op; with `note` for version 2.
std::string Datum(int version, int64_t id, int64_t unscaled, int64_t at, const std::string& op,
                  const std::string& note = "") {
  auto schema = avro::AvroSchema::Parse(ValueSchema(version));
  EXPECT_TRUE(schema.ok());
  std::vector<uint8_t> balance;
  for (int shift = 24; shift >= 0; shift -= 8) balance.push_back(static_cast<uint8_t>(unscaled >> shift));
  std::vector<avro::AvroValue> after = {
      version == 1 ? avro::AvroValue::Int(static_cast<int32_t>(id)) : avro::AvroValue::Long(id),
      avro::AvroValue::Union(1, avro::AvroValue::Bytes(balance)),
      avro::AvroValue::Union(1, avro::AvroValue::Long(at))};
  if (version == 2) after.push_back(avro::AvroValue::Union(1, avro::AvroValue::String(note)));
  const avro::AvroValue value = avro::AvroValue::Record(
      {avro::AvroValue::Union(1, avro::AvroValue::Record(std::move(after))), avro::AvroValue::String(op)});
  std::vector<uint8_t> bytes;
  avro::AvroEncoder encoder(&bytes);
  EXPECT_OK(encoder.Encode(schema->root(), value));
  return connect::ConfluentHeader(version) + std::string(bytes.begin(), bytes.end());
}

StreamRecord Record(int64_t offset, std::optional<std::string> value) {
  StreamRecord record;
  record.position = std::to_string(offset);
  record.timestamp_ms = 1'700'000'000'000 + offset;
  record.key = "k" + std::to_string(offset);
  record.value = std::move(value);
  return record;
}

std::string RowsOf(const RecordBatch& batch) {
  std::string out;
  for (int64_t r = 0; r < batch.num_rows; ++r) {
    AppendJsonRow(batch, r, &out);
    out.push_back('\n');
  }
  return out;
}

TEST(KafkaAvroRecordsTest, WriterSchemasTypeTheRowsExactlyAndJoin) {
  Registry registry;
  registry.Add(1, ValueSchema(1));
  registry.Add(2, ValueSchema(2));
  const std::vector<StreamRecord> records = {
      Record(10, Datum(1, 7, 12345, 1'700'000'000'123'456, "c")),
      Record(11, std::nullopt),  // a tombstone
      Record(12, Datum(2, int64_t{1} << 40, -5, 1'700'000'000'000'000, "u", "Zürich")),
      Record(13, Datum(1, 8, 100, 0, "c")),
  };
  ASSERT_OK_AND_ASSIGN(DecodedRecords decoded,
                       DecodeStreamAvroRecords(KafkaRecordOrigin("db.t", 0), records, registry.Lookup(),
                                               /*metadata_column=*/false));
  EXPECT_EQ(decoded.tombstones, 1);
  EXPECT_EQ(decoded.dead_letters.num_rows, 0) << RowsOf(decoded.dead_letters);
  EXPECT_EQ(registry.lookups, 2) << "one lookup per schema id";
  EXPECT_EQ(SchemaToString(decoded.rows.schema),
            "after: struct<id: int64, balance: decimal(10,2), at: timestamp[us], note: string>\n"
            "op: string not null\n")
      << "MicroTimestamp is a local timestamp, as Debezium defines it; op is not a union with null";
  EXPECT_EQ(RowsOf(decoded.rows),
            R"({"after":{"id":7,"balance":"123.45","at":"2023-11-14T22:13:20.123456","note":null},"op":"c"}
{"after":{"id":1099511627776,"balance":"-0.05","at":"2023-11-14T22:13:20.000000","note":"Zürich"},"op":"u"}
{"after":{"id":8,"balance":"1.00","at":"1970-01-01T00:00:00.000000","note":null},"op":"c"}
)");
}

TEST(KafkaAvroRecordsTest, BadRecordsAreDeadLettersAndTheRestLands) {
  Registry registry;
  registry.Add(1, ValueSchema(1));
  registry.Add(3, R"({"type":"string"})");
  registry.Add(4, R"({"type":"object"})", "JSON");
  std::string good = Datum(1, 1, 1, 1, "c");
  std::string trailing = Datum(1, 2, 2, 2, "c") + "xyz";
  std::string truncated = Datum(1, 3, 3, 3, "c");
  truncated.resize(truncated.size() - 2);
  std::string unknown = good;
  unknown[4] = 9;  // schema id 9
  std::string not_record = connect::ConfluentHeader(3) + std::string(
                                                             "\x02"
                                                             "a",
                                                             2);
  std::string json_schema = connect::ConfluentHeader(4) + "{}";
  const std::vector<StreamRecord> records = {
      Record(0, "plain text, not Confluent-framed"),
      Record(1, good),
      Record(2, trailing),
      Record(3, truncated),
      Record(4, unknown),
      Record(5, not_record),
      Record(6, json_schema),
      Record(7, Datum(1, 4, 4, 4, "u")),
  };
  ASSERT_OK_AND_ASSIGN(DecodedRecords decoded,
                       DecodeStreamAvroRecords(KafkaRecordOrigin("db.t", 3), records, registry.Lookup(),
                                               /*metadata_column=*/true));
  EXPECT_EQ(decoded.rows.num_rows, 2);
  ASSERT_EQ(decoded.dead_letters.num_rows, 6) << RowsOf(decoded.dead_letters);
  const Column& offsets = decoded.dead_letters.columns[2];
  const Column& errors = decoded.dead_letters.columns.back();
  const std::vector<int64_t> want_offsets = {0, 2, 3, 4, 5, 6};
  const std::vector<std::string> want_errors = {
      "not Confluent wire format", "bytes after the value", "its Avro datum",
      "schema id 9 not found",     "not a record",          "is JSON, not AVRO"};
  for (int64_t r = 0; r < 6; ++r) {
    EXPECT_EQ(offsets.Value<int64_t>(r), want_offsets[static_cast<size_t>(r)]);
    EXPECT_THAT(std::string(errors.StringAt(r)), HasSubstr(want_errors[static_cast<size_t>(r)]));
    EXPECT_THAT(std::string(errors.StringAt(r)), HasSubstr("db.t[3] offset "));
  }
  // The kafka column names where each row came from.
  EXPECT_THAT(RowsOf(decoded.rows), HasSubstr(R"("kafka":{"topic":"db.t","partition":3,"offset":7)"));
}

TEST(KafkaAvroRecordsTest, ARegistryThatCannotAnswerFailsTheRange) {
  Registry registry;
  registry.failure = Status::IOError("schema registry http://r:8081: 503 Service Unavailable", true);
  auto decoded = DecodeStreamAvroRecords(KafkaRecordOrigin("db.t", 0), {Record(5, Datum(1, 1, 1, 1, "c"))},
                                         registry.Lookup(), false);
  ASSERT_FALSE(decoded.ok());
  EXPECT_TRUE(decoded.status().retryable());
  EXPECT_THAT(decoded.status().message(), HasSubstr("db.t[0] offset 5"));
  EXPECT_THAT(decoded.status().message(), HasSubstr("503"));
}

}  // namespace
}  // namespace floe::ingest
