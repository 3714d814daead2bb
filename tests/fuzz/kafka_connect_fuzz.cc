// Fuzzes what floe reads from Kafka records before the record decoders: the
// Confluent wire-format framing, Connect schemas (the JSON converter's
// `schema`, and Avro schemas with connect.* attributes) with their floe type
// mapping, and the column conversion of Connect values (zoned times, UUIDs,
// base64 and big-endian decimals). Any bytes must give a result or an error,
// never a crash, an exception or an unbounded allocation.
//
// The first byte picks what the rest is: 0 a framed record, 1 a Connect
// schema (JSON), 2 an Avro schema, 3 newline-separated values converted
// through every value-level semantic type.
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "formats/avro/schema.h"
#include "formats/connect/confluent_framing.h"
#include "formats/connect/connect_avro_schema.h"
#include "formats/connect/connect_columns.h"
#include "formats/connect/connect_schema.h"
#include "formats/connect/connect_types.h"

namespace {

using namespace floe;
using namespace floe::connect;

void MapSchema(const ConnectSchema& schema) {
  auto type = FloeTypeOf(schema, "fuzz");
  if (schema.type == ConnectType::kStruct) (void)FloeSchemaOf(schema, "fuzz");
  // An all-null column of the schema's physical type converts without errors.
  if (type.ok()) {
    Column nulls = MakeEmptyColumn(*type);
    nulls.AppendNull();
    (void)ConvertConnectColumn(schema, std::move(nulls), "fuzz");
  }
}

void ConvertValues(std::string_view text) {
  Column strings(String());
  Column binaries(Binary());
  Column longs(Int64());
  size_t start = 0;
  while (start <= text.size() && strings.length < 256) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view value = text.substr(start, end - start);
    strings.AppendBytes(value);
    binaries.AppendBytes(value);
    int64_t n = 0;
    for (size_t i = 0; i < value.size() && i < 8; ++i) n = (n << 8) | static_cast<uint8_t>(value[i]);
    longs.AppendValue<int64_t>(n);
    start = end + 1;
  }
  const char* string_schemas[] = {
      R"({"type": "string", "name": "io.debezium.time.ZonedTimestamp"})",
      R"({"type": "string", "name": "io.debezium.time.ZonedTime"})",
      R"({"type": "string", "name": "io.debezium.data.Uuid"})",
      R"({"type": "bytes", "name": "org.apache.kafka.connect.data.Decimal", "parameters": {"scale": "4"}})",
      R"({"type": "bytes"})",
  };
  const char* long_schemas[] = {
      R"({"type": "int64", "name": "io.debezium.time.MicroTime"})",
      R"({"type": "int64", "name": "io.debezium.time.NanoTimestamp"})",
      R"({"type": "int16"})",
      R"({"type": "float"})",
  };
  for (const char* json : string_schemas) {
    auto schema = ParseConnectSchema(json);
    if (!schema.ok()) continue;
    (void)ConvertConnectColumn(*schema, strings, "fuzz");
    (void)ConvertConnectColumn(*schema, binaries, "fuzz");
  }
  for (const char* json : long_schemas) {
    auto schema = ParseConnectSchema(json);
    if (schema.ok()) (void)ConvertConnectColumn(*schema, longs, "fuzz");
  }
  // Variable-scale decimals: the scale from the value's bytes, as text and fixed.
  auto vsd = ParseConnectSchema(R"({"type": "struct", "name": "io.debezium.data.VariableScaleDecimal",
      "fields": [{"field": "scale", "type": "int32"}, {"field": "value", "type": "bytes"}]})");
  if (vsd.ok()) {
    Column scales(Int32());
    for (int64_t i = 0; i < longs.length; ++i)
      scales.AppendValue<int32_t>(static_cast<int32_t>(longs.Value<int64_t>(i) % 100));
    Column decimal(Struct({MakeField("scale", Int32()), MakeField("value", Binary())}));
    decimal.children.push_back(std::move(scales));
    decimal.children.push_back(binaries);
    decimal.length = binaries.length;
    ConnectTypeOptions fixed;
    fixed.variable_scale_decimal_scale = 10;
    (void)ConvertConnectColumn(*vsd, decimal, "fuzz");
    (void)ConvertConnectColumn(*vsd, std::move(decimal), "fuzz", fixed);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  switch (data[0] % 4) {
    case 0: {
      auto frame = ParseConfluentFrame(rest);
      if (frame.ok()) (void)ParseConfluentFrame(frame->datum);
      break;
    }
    case 1: {
      auto schema = ParseConnectSchema(rest);
      if (schema.ok()) MapSchema(*schema);
      break;
    }
    case 2: {
      auto avro = avro::AvroSchema::Parse(rest);
      if (!avro.ok()) break;
      auto schema = ConnectSchemaFromAvro(avro->root());
      if (schema.ok()) MapSchema(*schema);
      break;
    }
    default: ConvertValues(rest); break;
  }
  return 0;
}
