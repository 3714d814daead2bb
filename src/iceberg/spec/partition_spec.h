// Iceberg partition specs: how partition tuples derive from source columns.
//
// Contract: partition field ids start at 1000 (kFirstPartitionFieldId) and
// are unique across a table's specs; the partition type is a struct of
// optional fields (id = partition field id, type = transform result type).
// v1 specs without field ids get 1000, 1001, ... in order, as Java assigns.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/status.h"
#include "iceberg/spec/json_util.h"
#include "iceberg/spec/literal.h"
#include "iceberg/spec/schema.h"
#include "iceberg/spec/transform.h"

namespace floe::iceberg {

inline constexpr int32_t kFirstPartitionFieldId = 1000;

struct PartitionField {
  int32_t source_id = 0;
  int32_t field_id = kFirstPartitionFieldId;
  std::string name;
  Transform transform;

  bool operator==(const PartitionField& other) const = default;
};

struct PartitionSpec {
  int32_t spec_id = 0;
  std::vector<PartitionField> fields;

  static PartitionSpec Unpartitioned() { return PartitionSpec{}; }
  bool is_unpartitioned() const;  // no fields, or only void transforms
  // Highest partition field id, or 999 when there are no fields.
  int32_t LastAssignedFieldId() const;
  // struct<field_id: name: optional result type, ...> over `schema`.
  Result<Type> PartitionType(const Schema& schema) const;
  // Sources exist and accept their transforms; ids >= 1000 and unique; names unique.
  Status Validate(const Schema& schema) const;
  // "name=value/..." with Java's human strings and URL escaping, for the
  // partition tuple `values` (one Apply() result per field).
  Result<std::string> PartitionPath(const std::vector<Literal>& values) const;

  bool operator==(const PartitionSpec& other) const = default;
};

OrderedJson PartitionFieldsToJson(const PartitionSpec& spec);
OrderedJson PartitionSpecToJson(const PartitionSpec& spec);
// The object form {spec-id, fields}.
Result<PartitionSpec> PartitionSpecFromJson(const Json& json);
// The bare field list (v1 "partition-spec"); `spec_id` is given by the caller.
Result<PartitionSpec> PartitionSpecFromFieldsJson(const Json& fields, int32_t spec_id);

}  // namespace floe::iceberg
