// StreamUnitOpener with [source] record keys (issue 16: Debezium from Kafka
// without [merge] keys): each row carries its decoded record key as the
// struct __record_key — plain JSON and the Connect envelope joined — and a
// record whose key is missing, does not decode or disagrees with its change
// is a dead letter naming its topic, partition and offset; tombstones and a
// keyless truncate pass.
#include "ingest/stream/stream_unit_opener.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ingest/stream/kafka_record_origin.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;

// A source whose every range holds `records` (from db.inventory.t[2]).
class FixedRecordsOpener final : public StreamUnitOpener {
 public:
  FixedRecordsOpener(StreamDecoding decoding, std::vector<StreamRecord> records)
      : StreamUnitOpener(std::move(decoding)), records_(std::move(records)) {}

 protected:
  Result<std::vector<StreamRecord>> Records(const SourceUnit&) override { return records_; }
  Result<std::unique_ptr<RecordOrigin>> OriginOf(const SourceUnit&) const override {
    return std::unique_ptr<RecordOrigin>(new KafkaRecordOrigin("db.inventory.t", 2));
  }

 private:
  const std::vector<StreamRecord> records_;
};

StreamRecord Record(int64_t offset, std::optional<std::string> key, std::optional<std::string> value) {
  StreamRecord record;
  record.position = std::to_string(offset);
  record.timestamp_ms = 1'700'000'000'000 + offset;
  record.key = std::move(key);
  record.value = std::move(value);
  return record;
}

std::string Change(int id) {
  return R"({"op":"c","after":{"id":)" + std::to_string(id) + R"(,"name":"n"},"source":{"ts_ms":5}})";
}

std::vector<StreamRecord> RangeRecords() {
  const std::string connect_key =
      R"({"schema":{"type":"struct","name":"t.Key","optional":false,)"
      R"("fields":[{"field":"id","type":"int32","optional":false}]},"payload":{"id":4}})";
  return {
      Record(0, R"({"id":1})", Change(1)),
      Record(1, std::nullopt, Change(2)),                              // no key
      Record(2, "not json", Change(3)),                                // a key that does not decode
      Record(3, connect_key, Change(4)),                               // the Connect envelope's key
      Record(4, R"({"id":5})", std::nullopt),                          // a tombstone
      Record(5, std::nullopt, std::nullopt),                           // a tombstone without a key
      Record(6, R"({"id":7})", Change(8)),                             // a key that is not the change's
      Record(7, std::nullopt, R"({"op":"t","source":{"ts_ms":5}})")};  // a truncate: no key, no row changed
}

std::unique_ptr<FixedRecordsOpener> Opener(bool record_keys) {
  StreamDecoding decoding;
  decoding.json.text.inference.infer_column_types = true;
  decoding.json.metadata_column = true;
  decoding.cache_bytes = 1 << 20;
  decoding.record_key_column = record_keys;
  return std::make_unique<FixedRecordsOpener>(std::move(decoding), RangeRecords());
}

SourceUnit Range() {
  SourceUnit unit;
  unit.kind = UnitKind::kStreamRange;
  unit.uri = "kafka://db.inventory.t/2/0-5";
  unit.table = "t";
  return unit;
}

int FieldIndex(const Schema& schema, const std::string& name) {
  for (size_t i = 0; i < schema.size(); ++i) {
    if (schema[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

TEST(StreamUnitOpenerTest, RecordKeysBecomeAColumnAndKeylessRecordsDeadLetters) {
  auto opener = Opener(true);
  ASSERT_OK_AND_ASSIGN(auto reader, opener->Open(Range(), {}));
  ASSERT_EQ(reader->num_chunks(), 1);
  ASSERT_OK_AND_ASSIGN(RecordBatch rows, reader->ReadChunk(0, {}));
  ASSERT_EQ(rows.num_rows, 3) << "records 0, 3 and 7";
  const int key_index = FieldIndex(rows.schema, std::string(kRecordKeyColumn));
  ASSERT_GE(key_index, 0);
  const Column& key = rows.columns[static_cast<size_t>(key_index)];
  ASSERT_EQ(key.type.children.size(), 1u);
  EXPECT_EQ(key.type.children[0].name, "id");
  EXPECT_EQ(key.children[0].type, Int64()) << "the inferred and the Connect key joined";
  EXPECT_EQ(key.children[0].Value<int64_t>(0), 1);
  EXPECT_EQ(key.children[0].Value<int64_t>(1), 4);
  EXPECT_TRUE(key.IsNull(2)) << "the truncate's key";

  ASSERT_OK_AND_ASSIGN(UnitOpener::DeadLetters letters, opener->DeadLettersOf(Range(), {}));
  ASSERT_TRUE(letters.rows.has_value());
  ASSERT_EQ(letters.rows->num_rows, 3);
  const auto& columns = letters.rows->columns;
  EXPECT_EQ(columns[2].Value<int64_t>(0), 1);
  EXPECT_EQ(columns[2].Value<int64_t>(1), 2);
  EXPECT_EQ(columns[2].Value<int64_t>(2), 6);
  EXPECT_THAT(
      std::string(columns.back().StringAt(2)),
      HasSubstr("db.inventory.t[2] offset 6: its key's id = 7 does not match the after image's id = 8"));
  const std::string no_key(columns.back().StringAt(0));
  EXPECT_THAT(no_key, HasSubstr("db.inventory.t[2] offset 1: the record has no key"));
  EXPECT_THAT(no_key, HasSubstr("Debezium's key struct"));
  EXPECT_THAT(std::string(columns.back().StringAt(1)),
              HasSubstr("db.inventory.t[2] offset 2: its key is not a JSON object"));
}

TEST(StreamUnitOpenerTest, WithoutRecordKeysTheKeyIsOnlyMetadata) {
  auto opener = Opener(false);
  ASSERT_OK_AND_ASSIGN(auto reader, opener->Open(Range(), {}));
  ASSERT_OK_AND_ASSIGN(RecordBatch rows, reader->ReadChunk(0, {}));
  EXPECT_EQ(rows.num_rows, 6);
  EXPECT_LT(FieldIndex(rows.schema, std::string(kRecordKeyColumn)), 0);
  ASSERT_OK_AND_ASSIGN(UnitOpener::DeadLetters letters, opener->DeadLettersOf(Range(), {}));
  EXPECT_FALSE(letters.rows.has_value() && letters.rows->num_rows > 0);
}

}  // namespace
}  // namespace floe::ingest
