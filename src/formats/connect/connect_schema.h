// ConnectSchema: a Kafka Connect schema, as Debezium and other Connect
// sources describe their records — the `schema` half of the JSON
// converter's {"schema": ..., "payload": ...} envelope, or the Avro
// schema's connect.* attributes (connect_avro_schema.h).
//
// Contract: a ConnectSchema is a plain value tree. `name` is the Connect
// schema name, which for logical and semantic types says what a physical
// value means (org.apache.kafka.connect.data.Decimal on bytes,
// io.debezium.time.MicroTimestamp on int64, ...); `semantic` is that meaning
// resolved once (SemanticType), so mapping and conversion switch on it.
// Parsing treats the JSON as untrusted: nesting is limited to kMaxDepth,
// every member is type-checked, and errors are Corruption naming the path of
// the offending schema ("schema.fields[2](balance).type") and what was
// wrong. Immutable after parsing; safe to share between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/status.h"

namespace floe::connect {

// Connect's physical types (org.apache.kafka.connect.data.Schema.Type).
enum class ConnectType : uint8_t {
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kFloat32,
  kFloat64,
  kBoolean,
  kString,
  kBytes,
  kArray,
  kMap,
  kStruct,
};

// "int8", ..., "struct": the names the JSON converter writes.
const char* ConnectTypeName(ConnectType type);

// What a schema's name (or an Avro logicalType) says its values mean.
enum class SemanticType : uint8_t {
  kNone,  // the physical type says it all
  // Kafka Connect's logical types.
  kDecimal,    // bytes: big-endian two's complement unscaled; parameter "scale"
  kDate,       // int32 days since the epoch
  kTime,       // int32 milliseconds since midnight
  kTimestamp,  // int64 milliseconds since the epoch, an instant
  // Debezium's semantic types (io.debezium.time.*, io.debezium.data.*).
  kDebeziumDate,                  // int32 days since the epoch
  kDebeziumTime,                  // int32 milliseconds since midnight
  kDebeziumMicroTime,             // int64 microseconds since midnight
  kDebeziumNanoTime,              // int64 nanoseconds since midnight
  kDebeziumTimestamp,             // int64 milliseconds since the epoch, no time zone
  kDebeziumMicroTimestamp,        // int64 microseconds, no time zone
  kDebeziumNanoTimestamp,         // int64 nanoseconds, no time zone
  kDebeziumZonedTimestamp,        // string, ISO-8601 with an offset
  kDebeziumZonedTime,             // string, ISO-8601 time with an offset
  kDebeziumVariableScaleDecimal,  // struct {scale: int32, value: bytes}
  kDebeziumJson,                  // string holding a JSON document
  kDebeziumUuid,                  // string, 8-4-4-4-12 hex
  kDebeziumEnum,                  // string, one of parameter "allowed"
  kDebeziumEnumSet,               // string, comma-separated members of "allowed"
  kDebeziumBits,                  // bytes, parameter "length" (bits)
  kDebeziumYear,                  // int32 year
  kDebeziumMicroDuration,         // int64 microseconds
  kDebeziumXml,                   // string holding an XML document
  // Avro logical types that Connect has no name for (connect_avro_schema.h).
  kAvroTimeMicros,            // int64 microseconds since midnight
  kAvroTimestampMicros,       // int64 microseconds since the epoch, an instant
  kAvroLocalTimestampMillis,  // int64 milliseconds, no time zone
  kAvroLocalTimestampMicros,  // int64 microseconds, no time zone
  kAvroUuid,                  // string, 8-4-4-4-12 hex
};

// The semantic type a Connect schema name stands for (kNone when unknown).
SemanticType SemanticTypeOfName(std::string_view name);

struct ConnectField;

struct ConnectSchema {
  ConnectType type = ConnectType::kString;
  bool optional = false;
  std::string name;  // "" when unnamed
  std::optional<int32_t> version;
  std::optional<std::string> doc;
  std::vector<std::pair<std::string, std::string>> parameters;  // in order
  SemanticType semantic = SemanticType::kNone;
  std::vector<ConnectField> fields;  // kStruct members, in order
  // kArray: {items}; kMap: {keys, values}.
  std::vector<ConnectSchema> children;

  // The parameter's value, or nullptr.
  const std::string* Parameter(std::string_view key) const;
  // The member called `name`, or nullptr.
  const ConnectField* Field(std::string_view name) const;
};

struct ConnectField {
  std::string name;
  ConnectSchema schema;
};

// Maximum nesting of schemas accepted (each struct, array or map is a level).
inline constexpr int kMaxConnectSchemaDepth = 64;

// A schema in the JSON converter's form: {"type": "struct", "fields":
// [{"field": "id", "type": "int32", "optional": false}, ...], "optional":
// false, "name": "dbserver1.inventory.customers.Value", "version": 1,
// "parameters": {...}, "doc": ...}; arrays carry "items", maps "keys" and
// "values". Unknown members (such as "default") are ignored.
Result<ConnectSchema> ParseConnectSchema(std::string_view json_text);
Result<ConnectSchema> ConnectSchemaFromJson(const nlohmann::ordered_json& json);

// Parsed schemas by their exact JSON text: every record of a Debezium topic
// carries the same schema text, which is parsed once. Holds at most
// `capacity` schemas (dropping all when full: schema changes are rare).
// Thread-safe.
class ConnectSchemaCache {
 public:
  explicit ConnectSchemaCache(size_t capacity = 256) : capacity_(capacity) {}

  Result<std::shared_ptr<const ConnectSchema>> Get(std::string_view json_text);

 private:
  size_t capacity_;
  std::mutex mutex_;
  std::unordered_map<std::string, std::shared_ptr<const ConnectSchema>> schemas_;
};

}  // namespace floe::connect
