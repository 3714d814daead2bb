// Mapping of a Parquet schema (the flattened SchemaElement list of the footer)
// onto floe's Schema, plus what the reader needs per leaf column.
//
// Contract: BuildParquetSchema validates the tree shape (child counts within
// the list, bounded depth, leaves with a physical type) and returns
// Corruption for malformed trees, NotSupported for types floe cannot
// represent (naming the column). LIST and MAP follow parquet-format's
// LogicalTypes.md including its backward-compatibility rules; a repeated
// field outside any LIST/MAP becomes a non-null list of required elements.
// The result also carries, per top-level field, a LevelNode tree telling
// record assembly how definition/repetition levels map onto floe columns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "columnar/types.h"
#include "common/status.h"
#include "formats/parquet/thrift/parquet_types.h"

namespace floe::parquet {

struct ColumnDescriptor {
  std::vector<std::string> path;  // path_in_schema, root excluded
  Type physical_type = Type::INT32;
  int32_t type_length = 0;  // FIXED_LEN_BYTE_ARRAY width
  int16_t max_def_level = 0;
  int16_t max_rep_level = 0;
  DataType type;  // floe type of the leaf's values
  std::optional<ConvertedType> converted_type;
  std::optional<LogicalType> logical_type;  // only when its kind is known
  int top_level_field = 0;                  // index of the top-level field holding this leaf

  std::string PathString() const;  // "a.b.c"
};

// How one floe column is rebuilt from the levels of the leaf `leaf`
// (for nested nodes: the first leaf below them). A level entry with
// rep <= rep_level and def >= slot_def starts a slot of this node; the slot
// is non-null when def >= valid_def.
struct LevelNode {
  enum class Kind : uint8_t { kLeaf, kStruct, kList, kMap };
  Kind kind = Kind::kLeaf;
  int leaf = 0;
  int16_t rep_level = 0;
  int16_t slot_def = 0;
  int16_t valid_def = 0;
  std::vector<LevelNode> children;  // struct members; list: element; map: key, value
};

struct ParquetSchema {
  Schema schema;                         // floe schema, one Field per top-level field
  std::vector<ColumnDescriptor> leaves;  // in footer (column chunk) order
  std::vector<LevelNode> assembly;       // one per top-level field
  std::vector<int> first_leaf;           // per top-level field: its first leaf; plus a final end
};

Result<ParquetSchema> BuildParquetSchema(const std::vector<SchemaElement>& elements);

// Text rendering of the raw Parquet schema tree ("message schema { ... }").
std::string ParquetSchemaTreeToString(const std::vector<SchemaElement>& elements);

}  // namespace floe::parquet
