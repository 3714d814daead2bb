// Fuzzes the Kafka JSON record decoder (ingest/stream/kafka_json_records.h):
// record values from a broker are untrusted bytes — Connect schema/payload
// envelopes, plain JSON, garbage. Any records must give rows and dead
// letters (every record accounted for once) or an error, never a crash.
//
// The input is split at 0xFF bytes into record values; a value starting with
// 0xFE is a tombstone.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "ingest/stream/kafka_json_records.h"
#include "kafka_records_check.h"

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
    record.offset = static_cast<int64_t>(records.size());
    record.timestamp_ms = 1000;
    const std::string_view value = input.substr(start, end - start);
    if (!(value.size() == 1 && value[0] == '\xfe')) record.value = std::string(value);
    record.key = "k";
    records.push_back(std::move(record));
    start = end + 1;
  }
  static connect::ConnectSchemaCache schemas;
  KafkaJsonOptions options;
  options.text.inference.infer_column_types = (size % 2) == 0;
  options.metadata_column = true;
  auto decoded = DecodeKafkaJsonRecords("t", 0, records, {}, options, schemas);
  if (decoded.ok()) floe::fuzzing::CheckDecodedRecords(*decoded, records.size());
  return 0;
}
