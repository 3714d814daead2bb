// Avro schemas (Avro 1.11 specification): parse from JSON, write JSON.
//
// Contract: an AvroSchema is immutable and cheap to copy (shared ownership of
// its nodes). Named types (record, enum, fixed) may be referenced by name after
// their definition, including recursively; every node pointer stays valid as
// long as any copy of the AvroSchema lives. Attributes the model does not
// interpret (Iceberg's "field-id", "element-id", "key-id", "value-id",
// "adjust-to-utc", any "logicalType" and its parameters) are kept in their
// original order and written back. Parsing treats the JSON as untrusted: depth
// is limited and every malformed construct is Corruption naming what was wrong.
// ToJson writes the shape Iceberg Java writes: primitives as plain strings
// unless attributes are attached, field keys in the order name, type, doc,
// default, then attributes; a named type is defined at its first occurrence
// and referenced by name afterwards.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::avro {

using Json = nlohmann::ordered_json;

enum class AvroType : uint8_t {
  kNull,
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kBytes,
  kString,
  kRecord,
  kEnum,
  kArray,
  kMap,
  kUnion,
  kFixed,
};

// "null", "boolean", ..., "record", "union" (for unions, which have no name).
const char* AvroTypeName(AvroType type);

// Logical types the model understands. A logicalType attribute that is unknown
// or invalid for its underlying type (the spec says to ignore those) leaves
// kNone here; the attribute itself is kept either way.
enum class LogicalType : uint8_t {
  kNone,
  kDecimal,               // bytes or fixed; precision, scale
  kUuid,                  // string, or fixed(16) as Iceberg writes it
  kDate,                  // int
  kTimeMillis,            // int
  kTimeMicros,            // long
  kTimestampMillis,       // long
  kTimestampMicros,       // long
  kLocalTimestampMillis,  // long
  kLocalTimestampMicros,  // long
  kDuration,              // fixed(12)
};

struct AvroNode;

struct AvroField {
  std::string name;
  const AvroNode* type = nullptr;
  std::optional<std::string> doc;
  std::optional<Json> default_value;
  std::vector<std::string> aliases;
  std::optional<std::string> order;  // "ascending" (the default), "descending", "ignore"
  Json attributes = Json::object();  // extra keys, e.g. "field-id"

  // The integer attribute "field-id" when present.
  std::optional<int32_t> field_id() const;
};

struct AvroNode {
  AvroType type = AvroType::kNull;

  // Named types: short name, namespace ("" = none) and full name.
  std::string name;
  std::string name_space;
  std::string full_name;
  std::optional<std::string> doc;
  std::vector<std::string> aliases;

  std::vector<AvroField> fields;            // kRecord
  std::vector<std::string> symbols;         // kEnum
  std::optional<std::string> enum_default;  // kEnum
  const AvroNode* items = nullptr;          // kArray
  const AvroNode* values = nullptr;         // kMap
  std::vector<const AvroNode*> branches;    // kUnion
  int32_t fixed_size = 0;                   // kFixed

  LogicalType logical_type = LogicalType::kNone;
  int32_t precision = 0;  // kDecimal
  int32_t scale = 0;      // kDecimal

  // Extra keys in original order, including "logicalType" and its parameters.
  Json attributes = Json::object();

  bool is_named() const {
    return type == AvroType::kRecord || type == AvroType::kEnum || type == AvroType::kFixed;
  }
  // An integer attribute ("element-id", "key-id", "value-id"), when present.
  std::optional<int32_t> IntAttribute(std::string_view key) const;
  // For a union: the index of the "null" branch, or -1.
  int NullBranch() const;
  // Index of a record field by name, or -1.
  int FieldIndex(std::string_view field_name) const;
};

class AvroSchema {
 public:
  // Maximum nesting of schema nodes accepted by Parse.
  static constexpr int kMaxDepth = 64;

  static Result<AvroSchema> Parse(std::string_view json_text);
  static Result<AvroSchema> FromJson(const Json& json);

  const AvroNode& root() const { return *root_; }
  // The named type with this full name, or nullptr.
  const AvroNode* FindNamed(std::string_view full_name) const;

  Json ToJsonValue() const;
  // The schema as compact JSON text, built once per parsed schema (every
  // container file written with it carries it in its header).
  std::string ToJson() const;

  struct Storage;

 private:
  AvroSchema(std::shared_ptr<const Storage> storage, const AvroNode* root)
      : storage_(std::move(storage)), root_(root) {}

  std::shared_ptr<const Storage> storage_;
  const AvroNode* root_ = nullptr;
};

}  // namespace floe::avro
