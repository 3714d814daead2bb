#include "iceberg/transaction/update_partition_spec.h"

#include <algorithm>

#include "iceberg/transaction/commit_retry.h"
#include "iceberg/transaction/table.h"

namespace floe::iceberg {

namespace {

std::string DefaultFieldName(const std::string& column, const Transform& t) {
  switch (t.kind()) {
    case Transform::Kind::kIdentity: return column;
    case Transform::Kind::kBucket: return column + "_bucket_" + std::to_string(t.parameter());
    case Transform::Kind::kTruncate: return column + "_trunc_" + std::to_string(t.parameter());
    case Transform::Kind::kYear: return column + "_year";
    case Transform::Kind::kMonth: return column + "_month";
    case Transform::Kind::kDay: return column + "_day";
    case Transform::Kind::kHour: return column + "_hour";
    case Transform::Kind::kVoid: return column + "_null";
    case Transform::Kind::kUnknown: break;
  }
  return column + "_" + t.ToString();
}

}  // namespace

UpdatePartitionSpec& UpdatePartitionSpec::AddField(const std::string& source_column,
                                                   const Transform& transform, const std::string& name) {
  additions_.push_back(Addition{source_column, transform, name});
  return *this;
}

UpdatePartitionSpec& UpdatePartitionSpec::RemoveField(const std::string& partition_field_name) {
  removals_.push_back(partition_field_name);
  return *this;
}

Result<PartitionSpec> UpdatePartitionSpec::Apply(const TableMetadata& base) const {
  const Schema* schema = base.CurrentSchema();
  const PartitionSpec* current = base.DefaultSpec();
  if (schema == nullptr || current == nullptr)
    return Status::Corruption("table has no current schema or spec");
  PartitionSpec spec;
  spec.fields = current->fields;
  for (const auto& name : removals_) {
    auto it = std::find_if(spec.fields.begin(), spec.fields.end(),
                           [&](const PartitionField& f) { return f.name == name; });
    if (it == spec.fields.end()) {
      return Status::InvalidArgument("partition field '" + name + "' is not in the default spec");
    }
    if (base.format_version == 1) {
      it->transform = Transform::Void();
    } else {
      spec.fields.erase(it);
    }
  }
  int32_t last_partition_id = base.last_partition_id;
  for (const auto& a : additions_) {
    const NestedField* source = schema->FindFieldByName(a.source_column);
    if (source == nullptr)
      return Status::InvalidArgument("column '" + a.source_column + "' is not in the schema");
    if (!a.transform.CanApply(source->type)) {
      return Status::InvalidArgument("transform " + a.transform.ToString() + " cannot apply to column '" +
                                     a.source_column + "' of type " + source->type.ToString());
    }
    for (const auto& f : spec.fields) {
      if (f.source_id == source->id && f.transform == a.transform) {
        return Status::InvalidArgument("partition field '" + f.name + "' already partitions '" +
                                       a.source_column + "' by " + a.transform.ToString());
      }
    }
    PartitionField field;
    field.source_id = source->id;
    field.transform = a.transform;
    field.name = a.name.empty() ? DefaultFieldName(a.source_column, a.transform) : a.name;
    field.field_id = 0;
    for (const auto& old_spec : base.partition_specs) {
      for (const auto& f : old_spec.fields) {
        if (f.source_id == field.source_id && f.transform == field.transform) field.field_id = f.field_id;
      }
    }
    if (field.field_id == 0) field.field_id = ++last_partition_id;
    spec.fields.push_back(std::move(field));
  }
  FLOE_RETURN_IF_ERROR(spec.Validate(*schema).WithContext("updated partition spec"));
  return spec;
}

Result<PartitionSpec> UpdatePartitionSpec::Commit() {
  auto attempt = [&](const LoadedTable& base) -> Result<LoadedTable> {
    FLOE_ASSIGN_OR_RETURN(PartitionSpec spec, Apply(base.metadata));
    std::vector<TableRequirement> requirements = {
        requirement::AssertTableUuid{base.metadata.table_uuid},
        requirement::AssertDefaultSpecId{base.metadata.default_spec_id},
        requirement::AssertLastAssignedPartitionId{base.metadata.last_partition_id},
    };
    std::vector<TableUpdate> updates = {update::AddSpec{spec}, update::SetDefaultSpec{-1}};
    return table_.ops().Commit(requirements, updates);
  };
  FLOE_ASSIGN_OR_RETURN(LoadedTable committed,
                        CommitWithRetry(table_.ops(), table_.current(), table_.retry_policy(), attempt));
  table_.SetCurrent(std::move(committed));
  const PartitionSpec* spec = table_.metadata().DefaultSpec();
  if (spec == nullptr) return Status::Internal("committed metadata has no default spec");
  return *spec;
}

}  // namespace floe::iceberg
