// Fuzzes the stream JSON record decoder (ingest/stream/stream_json_records.h):
// record values from a broker or a Kinesis shard are untrusted bytes — Connect schema/payload
// envelopes, plain JSON, garbage. Any records must give rows and dead
// letters (every record accounted for once) or an error, never a crash.
//
// The input is split at 0xFF bytes into record values; a value that is 0xFE
// alone is a tombstone, one starting with 0xFD a record its source could not
// take apart.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "ingest/stream/kafka_record_origin.h"
#include "ingest/stream/kinesis_record_origin.h"
#include "ingest/stream/stream_json_records.h"
#include "stream_records_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace floe;
  using namespace floe::ingest;
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::vector<StreamRecord> records;
  size_t start = 0;
  while (start <= input.size() && records.size() < 64) {
    size_t end = input.find('\xff', start);
    if (end == std::string_view::npos) end = input.size();
    StreamRecord record;
    record.position = std::to_string(records.size());
    record.timestamp_ms = 1000;
    const std::string_view value = input.substr(start, end - start);
    if (!(value.size() == 1 && value[0] == '\xfe')) record.value = std::string(value);
    // A record the source could not take apart (a malformed KPL aggregate).
    if (!value.empty() && value[0] == '\xfd') record.error = "malformed";
    record.key = "k";
    records.push_back(std::move(record));
    start = end + 1;
  }
  static connect::ConnectSchemaCache schemas;
  StreamJsonOptions options;
  options.text.inference.infer_column_types = (size % 2) == 0;
  options.metadata_column = true;
  // Kafka and Kinesis origins alternate (their metadata columns and dead letters differ).
  const KafkaRecordOrigin kafka("t", 0);
  const KinesisRecordOrigin kinesis("s", "shardId-000000000000", "kinesis://s/shardId-000000000000/1-9");
  const RecordOrigin& origin = (size / 2) % 2 == 0 ? static_cast<const RecordOrigin&>(kafka) : kinesis;
  auto decoded = DecodeStreamJsonRecords(origin, records, {}, options, schemas);
  if (decoded.ok()) floe::fuzzing::CheckDecodedRecords(*decoded, records.size());
  return 0;
}
