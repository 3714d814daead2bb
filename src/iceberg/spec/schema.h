// An Iceberg table schema: a struct with a schema id and identifier fields.
//
// Contract: lookups walk the field tree on each call (schemas are small) so a
// Schema stays a plain copyable value with no internal pointers. Dotted names
// address nested fields: "a.b" for struct members, "a.element" for list
// elements, "m.key" / "m.value" for maps; as in Java, members of a struct
// inside a list element or map value are also reachable without
// "element"/"value" ("points.x"). Validate() checks what every metadata
// reader and writer relies on: unique ids, unique sibling names, identifier
// fields that exist and are required primitives.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "columnar/types.h"
#include "common/status.h"
#include "iceberg/spec/json_util.h"
#include "iceberg/spec/types.h"

namespace floe::iceberg {

// Reserved field ids of the metadata columns delete files name (spec,
// "Reserved Field IDs"): a position delete file's file_path and pos; pos is
// the _pos row-position column, which deletion-vector blobs list as their field.
inline constexpr int32_t kDeleteFilePathFieldId = 2147483546;
inline constexpr int32_t kDeletePosFieldId = 2147483545;

struct Schema {
  int32_t schema_id = 0;
  std::vector<int32_t> identifier_field_ids;
  std::vector<NestedField> fields;

  Type AsStruct() const { return StructType(fields); }

  const NestedField* FindFieldById(int32_t id) const;
  const NestedField* FindFieldByName(std::string_view dotted_name) const;
  // The dotted full name of a field id, or "" when absent.
  std::string FindNameById(int32_t id) const;
  // Largest id of any field at any depth; 0 for an empty schema.
  int32_t HighestFieldId() const;
  // Every field at any depth, keyed by id (pointers into this schema).
  std::map<int32_t, const NestedField*> IndexById() const;
  // Every field at any depth, keyed by dotted full name.
  std::map<std::string, const NestedField*> IndexByName() const;

  Status Validate() const;
  bool operator==(const Schema& other) const = default;
};

OrderedJson SchemaToJson(const Schema& schema);
Result<Schema> SchemaFromJson(const Json& json);

// floe schema view with field ids; fails on unknown-typed columns.
Result<floe::Schema> ToFloeSchema(const Schema& schema);
// Builds a schema from floe fields; see FromFloeType for the id rules.
Result<Schema> FromFloeSchema(const floe::Schema& fields, int format_version, int32_t* next_id = nullptr);

}  // namespace floe::iceberg
