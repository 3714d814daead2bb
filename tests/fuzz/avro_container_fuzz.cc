// Fuzzes the Avro container reader (header, blocks, codecs, binary decoding)
// and the schema JSON parser. Properties checked beyond "no crash": a parsed
// schema's JSON re-parses to the same JSON; every decoded record re-encodes
// with the writer schema and decodes back to an equal value; projecting onto
// the writer's own schema is the identity.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string_view>

#include "formats/avro/container_reader.h"
#include "formats/avro/decoder.h"
#include "formats/avro/encoder.h"
#include "formats/avro/json_output.h"
#include "formats/avro/resolution.h"
#include "fuzz_checks.h"

using namespace floe::avro;

namespace {

void FuzzSchema(std::string_view text) {
  auto schema = AvroSchema::Parse(text);
  if (!schema.ok()) return;
  const std::string json = schema->ToJson();
  auto again = AvroSchema::Parse(json);
  CHECK_PROPERTY(again.ok());
  CHECK_PROPERTY(again->ToJson() == json);
}

void FuzzContainer(std::span<const uint8_t> bytes) {
  AvroReadOptions options;
  options.max_block_bytes = 16 << 20;
  auto reader = AvroContainerReader::OpenBuffer(bytes, "fuzz.avro", options);
  if (!reader.ok()) return;
  const AvroSchema& schema = (*reader)->writer_schema();
  auto identity = AvroProjection::Make(schema, schema);
  for (int n = 0; n < 100000; ++n) {
    AvroValue record;
    auto more = (*reader)->Next(&record);
    if (!more.ok() || !*more) return;
    (void)AvroValueToJson(schema.root(), record);
    std::vector<uint8_t> encoded;
    AvroEncoder encoder(&encoded);
    CHECK_PROPERTY(encoder.Encode(schema.root(), record).ok());
    AvroDecoder decoder(encoded);
    AvroValue back;
    CHECK_PROPERTY(decoder.Decode(schema.root(), &back).ok());
    CHECK_PROPERTY(decoder.remaining() == 0);
    CHECK_PROPERTY(back == record);
    if (identity.ok()) {
      AvroValue projected;
      CHECK_PROPERTY(identity->Project(record, &projected).ok());
      CHECK_PROPERTY(projected == record);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzContainer(std::span<const uint8_t>(data, size));
  FuzzSchema(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
