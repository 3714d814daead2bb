// Iceberg data types (table spec "Schemas and Data Types").
//
// Contract: a Type is a value (copyable, comparable). Primitive kinds carry
// their parameters (decimal precision/scale, fixed length); nested kinds carry
// NestedFields with ids: struct members, a list's single "element" field, a
// map's "key" and "value" fields (the key is always required). JSON serde
// follows Appendix C; conversion to floe's DataType keeps ids in
// Field::field_id. Parsing rejects nesting deeper than kMaxTypeDepth.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "columnar/types.h"
#include "common/status.h"
#include "iceberg/spec/json_util.h"

namespace floe::iceberg {

enum class TypeKind : uint8_t {
  kUnknown,  // v3: always-null column
  kBoolean,
  kInt,
  kLong,
  kFloat,
  kDouble,
  kDecimal,
  kDate,
  kTime,           // microseconds since midnight
  kTimestamp,      // microseconds since epoch, no zone
  kTimestampTz,    // microseconds since epoch, UTC
  kTimestampNs,    // v3: nanoseconds, no zone
  kTimestampTzNs,  // v3: nanoseconds, UTC
  kString,
  kUuid,
  kFixed,
  kBinary,
  kStruct,
  kList,
  kMap,
};

inline constexpr int kMaxTypeDepth = 64;

struct NestedField;

struct Type {
  TypeKind kind = TypeKind::kUnknown;
  int32_t precision = 0;  // kDecimal
  int32_t scale = 0;      // kDecimal
  int32_t length = 0;     // kFixed
  // kStruct: members; kList: {element}; kMap: {key, value}.
  std::vector<NestedField> fields;

  bool is_primitive() const { return kind < TypeKind::kStruct; }
  bool is_nested() const { return !is_primitive(); }
  // Appendix C spelling for primitives ("decimal(9,2)", "fixed[16]"), and
  // "struct<...>", "list<...>", "map<...,...>" for nested types.
  std::string ToString() const;
  bool operator==(const Type& other) const;

  const NestedField& element() const;  // kList
  const NestedField& key() const;      // kMap
  const NestedField& value() const;    // kMap
};

struct NestedField {
  int32_t id = 0;
  std::string name;
  bool required = false;
  Type type;
  std::optional<std::string> doc;
  // v3 default values, kept in their JSON single-value form (Appendix D).
  std::optional<Json> initial_default;
  std::optional<Json> write_default;

  bool operator==(const NestedField& other) const;
};

inline const NestedField& Type::element() const {
  return fields.at(0);
}
inline const NestedField& Type::key() const {
  return fields.at(0);
}
inline const NestedField& Type::value() const {
  return fields.at(1);
}

// Factories.
Type PrimitiveType(TypeKind kind);
Type DecimalType(int32_t precision, int32_t scale);
Type FixedType(int32_t length);
Type StructType(std::vector<NestedField> fields);
Type ListType(int32_t element_id, Type element, bool element_required);
Type MapType(int32_t key_id, Type key, int32_t value_id, Type value, bool value_required);
NestedField MakeNestedField(int32_t id, std::string name, Type type, bool required = false);

// Parses a primitive type name ("long", "decimal(9, 2)", "fixed[16]").
Result<Type> ParsePrimitiveType(std::string_view name);

OrderedJson TypeToJson(const Type& type);
Result<Type> TypeFromJson(const Json& json, int depth = 0);
OrderedJson NestedFieldToJson(const NestedField& field);
Result<NestedField> NestedFieldFromJson(const Json& json, int depth = 0);

// The lowest format version that allows this type (3 for unknown, *_ns), recursively.
int MinFormatVersion(const Type& type);

// Whether values of `from` may be read as `to` after a schema update
// (int->long, float->double, decimal(P,S)->decimal(P',S) with P'>=P, and in
// v3 date->timestamp/timestamp_ns). Identical primitive types are allowed.
bool CanPromote(const Type& from, const Type& to, int format_version = 2);

// Iceberg -> floe. Timestamps keep their unit; ids go to Field::field_id.
// unknown has no floe counterpart: NotSupported.
Result<DataType> ToFloeType(const Type& type);
Result<Field> ToFloeField(const NestedField& field);

// floe -> Iceberg. Small ints widen to int, uint32 to long, float16 to float,
// milli timestamps/times to micros; nanos need format_version >= 3. Every
// field must carry field_id unless `next_id` is given, in which case missing
// ids are assigned from *next_id upwards.
Result<Type> FromFloeType(const DataType& type, int format_version, int32_t* next_id = nullptr);
Result<NestedField> FromFloeField(const Field& field, int format_version, int32_t* next_id = nullptr);

}  // namespace floe::iceberg
