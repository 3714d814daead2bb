// Projection of data-file columns onto an Iceberg read schema by field id.
//
// Contract: a file column belongs to the table field with the same field id;
// files written without ids get them from the table's name mapping
// (property "schema.name-mapping.default"), else by the current schema's
// names. Table fields absent from the file read as their initial default
// (v3) or null; a required field with neither is SchemaMismatch. Values are
// converted to the read type where Iceberg allows promotion: any narrower
// integer to int/long, float to double, decimal precision widening (same
// scale), date to timestamp, time/timestamp unit changes, and string/binary
// or fixed/uuid relabelling of equal layouts; anything else is
// SchemaMismatch naming the field. Structs, lists and maps are projected
// member by member.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/spec/literal.h"
#include "iceberg/spec/schema.h"

namespace floe::iceberg {

inline constexpr const char* kNameMappingProperty = "schema.name-mapping.default";

// One entry of a name mapping (table spec "Column Projection").
struct MappedField {
  std::vector<std::string> names;
  std::optional<int32_t> field_id;
  std::vector<MappedField> fields;
};

Result<std::vector<MappedField>> ParseNameMapping(std::string_view json_text);

// Whether any field at any depth carries a field id.
bool HasAnyFieldId(const floe::Schema& schema);
// Sets field ids from a name mapping (unmapped fields keep none).
void ApplyNameMapping(const std::vector<MappedField>& mapping, floe::Schema* file_schema);
// Sets field ids by matching names against the table schema.
void AssignIdsByName(const Schema& table_schema, floe::Schema* file_schema);

// A column of `type` and `length` whose every value is `value` (null: all null).
Result<Column> MakeConstantColumn(const Type& type, const Literal& value, int64_t length);

// Maps the top-level columns of one file onto `read_fields`.
class FileProjection {
 public:
  static Result<FileProjection> Make(const floe::Schema& file_schema, std::vector<NestedField> read_fields);

  // Top-level file columns to read, in the order Project expects them.
  const std::vector<int>& file_columns() const { return file_columns_; }
  // `file_batch` holds file_columns() in order (anything, when that list is
  // empty: only its row count is used); the result has the columns of
  // ToFloeSchema(read_fields).
  Result<RecordBatch> Project(RecordBatch file_batch) const;

 private:
  std::vector<NestedField> read_fields_;
  floe::Schema output_schema_;
  std::vector<floe::Field> file_fields_;  // per read field: the file field (when found)
  std::vector<int> source_index_;         // per read field: index into file_columns_, or -1
  std::vector<int> file_columns_;
};

}  // namespace floe::iceberg
