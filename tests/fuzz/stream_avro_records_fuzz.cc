// Fuzzes the Confluent Avro record decoder (ingest/stream/stream_avro_records.h):
// record values from a broker are untrusted bytes — framed datums of a
// known writer schema, of an unknown id, truncated, with bytes left over,
// garbage. Any records must give rows and dead letters (every record
// accounted for once) or an error, never a crash.
//
// The input is a sequence of records, each a length byte then that many
// bytes (a length of 255 is a tombstone). Schema ids 1 and 2 are two
// versions of a Debezium-like envelope with Connect logical types, 3 a
// string, 4 a JSON schema; any other id is unknown.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <memory>
#include <string_view>
#include <vector>

#include "ingest/stream/kafka_record_origin.h"
#include "ingest/stream/stream_avro_records.h"
#include "stream_records_check.h"

namespace {

using floe::Result;
using floe::Status;
using floe::schema_registry::RegisteredSchema;

std::shared_ptr<const RegisteredSchema> Registered(int32_t id, const std::string& type,
                                                   const std::string& text) {
  auto schema = std::make_shared<RegisteredSchema>();
  schema->id = id;
  schema->schema_type = type;
  schema->text = text;
  if (type == "AVRO") {
    auto parsed = floe::avro::AvroSchema::Parse(text);
    if (!parsed.ok()) std::abort();
    schema->avro = std::move(parsed).value();
  }
  return schema;
}

const std::map<int32_t, std::shared_ptr<const RegisteredSchema>>& Schemas() {
  static const auto* schemas = [] {
    const std::string value =
        R"({"type":"record","name":"Value","fields":[{"name":"id","type":"long"},)"
        R"({"name":"balance","type":["null",{"type":"bytes","scale":2,"precision":10,"logicalType":"decimal",)"
        R"("connect.name":"org.apache.kafka.connect.data.Decimal","connect.parameters":{"scale":"2"}}]},)"
        R"({"name":"at","type":["null",{"type":"long","connect.name":"io.debezium.time.MicroTimestamp"}]},)"
        R"({"name":"day","type":["null",{"type":"int","connect.name":"io.debezium.time.Date"}]},)"
        R"({"name":"tags","type":{"type":"array","items":"string"}},)"
        R"({"name":"zoned","type":["null",{"type":"string","connect.name":"io.debezium.time.ZonedTimestamp"}]}]})";
    const std::string v1 =
        R"({"type":"record","name":"Envelope","fields":[{"name":"before","type":["null",)" + value +
        R"(]},{"name":"op","type":"string"}]})";
    const std::string v2 = R"({"type":"record","name":"Envelope","fields":[{"name":"after","type":["null",)" +
                           value +
                           R"(]},{"name":"op","type":"string"},{"name":"ts_ms","type":["null","long"]}]})";
    auto* map = new std::map<int32_t, std::shared_ptr<const RegisteredSchema>>{
        {1, Registered(1, "AVRO", v1)},
        {2, Registered(2, "AVRO", v2)},
        {3, Registered(3, "AVRO", R"("string")")},
        {4, Registered(4, "JSON", R"({"type":"object"})")}};
    return map;
  }();
  return *schemas;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe;
  using namespace floe::ingest;
  std::vector<StreamRecord> records;
  size_t at = 0;
  while (at < size && records.size() < 64) {
    const uint8_t length = data[at++];
    StreamRecord record;
    record.position = std::to_string(records.size());
    record.timestamp_ms = 1000;
    record.key = "k";
    if (length != 255) {
      const size_t n = std::min<size_t>(length, size - at);
      record.value = std::string(reinterpret_cast<const char*>(data + at), n);
      at += n;
    }
    records.push_back(std::move(record));
  }
  const RegisteredSchemaLookup lookup = [](int32_t id) -> Result<std::shared_ptr<const RegisteredSchema>> {
    auto it = Schemas().find(id);
    if (it == Schemas().end()) return Status::NotFound("schema id " + std::to_string(id) + " not found");
    return it->second;
  };
  auto decoded = DecodeStreamAvroRecords(KafkaRecordOrigin("t", 0), records, lookup, (size % 2) == 0);
  if (decoded.ok()) floe::fuzzing::CheckDecodedRecords(*decoded, records.size());
  return 0;
}
