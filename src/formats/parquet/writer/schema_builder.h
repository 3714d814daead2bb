// Mapping of a floe Schema onto a Parquet schema for writing: the flattened
// SchemaElement list of the footer plus, per leaf column, what the writer
// needs to shred values into levels and to order them for statistics.
//
// Contract: BuildWriterSchema accepts every floe type (see the mapping in
// schema_builder.cc) and returns InvalidArgument naming the field for types
// Parquet cannot hold (decimal precision outside 1..38, fixed width < 1,
// time units a physical type cannot carry). Lists use the three-level LIST
// layout and maps the MAP/key_value layout of parquet-format LogicalTypes.md;
// map keys are always REQUIRED.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "columnar/types.h"
#include "common/status.h"
#include "formats/parquet/thrift/parquet_types.h"

namespace floe::parquet {

// How min/max statistics of a leaf are ordered (parquet-format's sort orders).
enum class StatsOrder : uint8_t {
  kNone,        // INT96: no statistics
  kBoolean,     // false < true
  kSigned32,    // INT32 signed
  kUnsigned32,  // INT32 with an unsigned INTEGER annotation
  kSigned64,
  kUnsigned64,
  kFloat32,  // IEEE order, NaN excluded, -0.0/+0.0 per spec
  kFloat64,
  kFloat16,       // FLBA(2) FLOAT16, little-endian half floats
  kBytes,         // BYTE_ARRAY / FLBA: unsigned lexicographic
  kDecimalBytes,  // FLBA DECIMAL: signed big-endian two's complement
};

// One step on the way from a top-level column down to a leaf.
struct ShredStep {
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  bool nullable = true;
  int child = 0;          // struct member, or map 0 = key / 1 = value
  int16_t rep_level = 0;  // kList/kMap: repetition level of its repeated group
};

struct WriteLeaf {
  std::vector<std::string> path;  // path_in_schema
  int top_level_field = 0;
  std::vector<ShredStep> steps;  // steps[0] is the top-level column, back() the leaf
  Type physical_type = Type::INT32;
  int32_t type_length = 0;  // FLBA width, else 0
  int16_t max_def_level = 0;
  int16_t max_rep_level = 0;
  DataType type;  // floe type of the leaf values
  StatsOrder order = StatsOrder::kNone;
  bool is_float() const {
    return order == StatsOrder::kFloat32 || order == StatsOrder::kFloat64 || order == StatsOrder::kFloat16;
  }
};

struct WriterSchema {
  std::vector<SchemaElement> elements;  // root first, depth-first
  std::vector<WriteLeaf> leaves;        // in column chunk order
};

Result<WriterSchema> BuildWriterSchema(const Schema& schema);

// Bytes of the smallest FLBA that holds every unscaled decimal of `precision`
// digits (1..38) as big-endian two's complement.
int32_t DecimalByteWidth(int32_t precision);

}  // namespace floe::parquet
