// AvroProjection: reads data written with one schema as another (Avro schema
// resolution, with Iceberg's field-id matching).
//
// Contract: record fields match by the "field-id" attribute when both the
// reader's and the writer's field carry one, otherwise by name (or a reader
// alias). Writer fields the reader lacks are dropped; reader fields the writer
// lacks take their default, else null when optional (a union with "null"),
// else Make fails with SchemaMismatch naming the field. Promotions: int ->
// long/float/double, long -> float/double, float -> double, string <-> bytes.
// Record, enum and fixed names need not match (Iceberg writers name records
// differently); fixed sizes must. A writer union branch the reader cannot
// accept is an error only when a value actually uses it. The projected value
// has the reader's shape: fields in reader order, unions with reader branches.
#pragma once

#include <memory>
#include <vector>

#include "common/status.h"
#include "formats/avro/schema.h"
#include "formats/avro/value.h"

namespace floe::avro {

class AvroProjection {
 public:
  static Result<AvroProjection> Make(const AvroSchema& writer, const AvroSchema& reader);

  // `value` was decoded with the writer's schema.
  Status Project(const AvroValue& value, AvroValue* out) const;

  const AvroSchema& reader_schema() const { return reader_; }

  struct Plan;

 private:
  AvroProjection(AvroSchema writer, AvroSchema reader, std::shared_ptr<const std::vector<Plan>> plans)
      : writer_(std::move(writer)), reader_(std::move(reader)), plans_(std::move(plans)) {}

  AvroSchema writer_;
  AvroSchema reader_;
  std::shared_ptr<const std::vector<Plan>> plans_;  // plans_[0] is the root
};

// Converts a JSON default value (as found in a schema) to a value of `schema`.
Result<AvroValue> AvroValueFromJsonDefault(const AvroNode& schema, const Json& json);

}  // namespace floe::avro
