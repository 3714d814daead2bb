// The logical type system of floe's in-memory columns.
//
// Contract: a DataType describes how a Column's buffers are laid out (see
// column.h) and what its values mean. It is format-neutral: Parquet, Avro and
// Iceberg readers map their types onto it and writers map back. Nested types
// (struct, list, map) carry their children as Fields.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace floe {

enum class TypeId : uint8_t {
  kBool,  // values: 1 byte per value, 0 or 1
  kInt8,  // values: little-endian, sizeof(type) bytes per value
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kFloat16,  // values: IEEE 754 binary16 bits, 2 bytes per value
  kFloat32,
  kFloat64,
  kDecimal,      // values: 16-byte little-endian two's complement unscaled (__int128)
  kDate,         // values: int32 days since 1970-01-01
  kTime,         // values: int64 in `unit` since midnight
  kTimestamp,    // values: int64 in `unit` since epoch; `utc` = adjusted to UTC
  kString,       // UTF-8; offsets (int64, length+1) + data
  kBinary,       // offsets + data
  kFixedBinary,  // values: byte_width bytes per value
  kUuid,         // values: 16 bytes, big-endian as written
  kStruct,       // children: one Field per member, each column the same length
  kList,         // offsets (int64, length+1) into children[0] (the element)
  kMap,          // offsets into children[0] (key) and children[1] (value)
};

enum class TimeUnit : uint8_t { kMilli, kMicro, kNano };

// How many ticks of `unit` make a second: 1000, 1000000 or 1000000000.
int64_t TicksPerSecond(TimeUnit unit);

struct Field;

struct DataType {
  TypeId id = TypeId::kInt32;
  int32_t precision = 0;             // kDecimal
  int32_t scale = 0;                 // kDecimal
  int32_t byte_width = 0;            // kFixedBinary
  TimeUnit unit = TimeUnit::kMicro;  // kTime, kTimestamp
  bool utc = false;                  // kTimestamp: instant (true) or local (false)
  // Extra Parquet annotations that readers keep so writers can round-trip them.
  enum class Annotation : uint8_t {
    kNone,
    kEnum,
    kJson,
    kBson,
    kInterval,
    kInt96
  } annotation = Annotation::kNone;
  std::vector<Field> children;  // kStruct: members; kList: element; kMap: key, value

  bool is_nested() const { return id == TypeId::kStruct || id == TypeId::kList || id == TypeId::kMap; }
  bool is_binary_like() const { return id == TypeId::kString || id == TypeId::kBinary; }
  // Bytes per value in Column::values for fixed-width types; 0 for others.
  int32_t fixed_width() const;
  // "int64", "decimal(38,2)", "timestamp[us, utc]", "list<string>", "struct<a: int32, ...>".
  std::string ToString() const;
  bool operator==(const DataType& other) const;
};

struct Field {
  std::string name;
  DataType type;
  bool nullable = true;
  std::optional<int32_t> field_id;  // Parquet field_id / Iceberg field id

  bool operator==(const Field& other) const;
};

using Schema = std::vector<Field>;

// Factories for readability: Int64(), Decimal(10, 2), Timestamp(TimeUnit::kMicro, true)...
DataType Bool();
DataType Int8();
DataType Int16();
DataType Int32();
DataType Int64();
DataType UInt8();
DataType UInt16();
DataType UInt32();
DataType UInt64();
DataType Float16();
DataType Float32();
DataType Float64();
DataType Decimal(int32_t precision, int32_t scale);
DataType Date();
DataType Time(TimeUnit unit);
DataType Timestamp(TimeUnit unit, bool utc);
DataType String();
DataType Binary();
DataType FixedBinary(int32_t width);
DataType Uuid();
DataType Struct(std::vector<Field> members);
DataType List(Field element);
DataType Map(Field key, Field value);

Field MakeField(std::string name, DataType type, bool nullable = true,
                std::optional<int32_t> field_id = std::nullopt);

std::string SchemaToString(const Schema& schema);

}  // namespace floe
