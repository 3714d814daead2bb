#include "iceberg/spec/partition_spec.h"

#include <algorithm>
#include <limits>
#include <set>

namespace floe::iceberg {

bool PartitionSpec::is_unpartitioned() const {
  return std::all_of(fields.begin(), fields.end(),
                     [](const PartitionField& f) { return f.transform.kind() == Transform::Kind::kVoid; });
}

int32_t PartitionSpec::LastAssignedFieldId() const {
  int32_t last = kFirstPartitionFieldId - 1;
  for (const auto& f : fields) last = std::max(last, f.field_id);
  return last;
}

Result<Type> PartitionSpec::PartitionType(const Schema& schema) const {
  std::vector<NestedField> members;
  for (const auto& f : fields) {
    const NestedField* source = schema.FindFieldById(f.source_id);
    if (source == nullptr) {
      return Status::InvalidArgument("partition field '" + f.name + "': source column id " +
                                     std::to_string(f.source_id) + " is not in schema " +
                                     std::to_string(schema.schema_id));
    }
    auto result_type = f.transform.ResultType(source->type);
    if (!result_type.ok()) return result_type.status().WithContext("partition field '" + f.name + "'");
    members.push_back(MakeNestedField(f.field_id, f.name, std::move(result_type).value(), false));
  }
  return StructType(std::move(members));
}

Status PartitionSpec::Validate(const Schema& schema) const {
  std::set<int32_t> ids;
  std::set<std::string> names;
  for (const auto& f : fields) {
    const std::string where = "partition spec " + std::to_string(spec_id) + " field '" + f.name + "'";
    if (f.field_id < kFirstPartitionFieldId) {
      return Status::InvalidArgument(where + ": field id " + std::to_string(f.field_id) + " is below 1000");
    }
    if (!ids.insert(f.field_id).second) {
      return Status::InvalidArgument(where + ": field id " + std::to_string(f.field_id) + " used twice");
    }
    if (f.name.empty() || !names.insert(f.name).second) {
      return Status::InvalidArgument(where + ": name is empty or used twice");
    }
    if (f.transform.kind() == Transform::Kind::kUnknown) {
      return Status::NotSupported(where + ": unknown transform '" + f.transform.ToString() + "'");
    }
  }
  return PartitionType(schema).status();
}

Result<std::string> PartitionSpec::PartitionPath(const std::vector<Literal>& values) const {
  if (values.size() != fields.size()) {
    return Status::InvalidArgument("partition tuple has " + std::to_string(values.size()) + " values, spec " +
                                   std::to_string(spec_id) + " has " + std::to_string(fields.size()) +
                                   " fields");
  }
  std::string path;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) path += '/';
    path += EscapePathComponent(fields[i].name) + "=" +
            EscapePathComponent(fields[i].transform.ToHumanString(values[i]));
  }
  return path;
}

OrderedJson PartitionFieldsToJson(const PartitionSpec& spec) {
  OrderedJson fields = OrderedJson::array();
  for (const auto& f : spec.fields) {
    OrderedJson field = OrderedJson::object();
    field["name"] = f.name;
    field["transform"] = f.transform.ToString();
    field["source-id"] = f.source_id;
    field["field-id"] = f.field_id;
    fields.push_back(std::move(field));
  }
  return fields;
}

OrderedJson PartitionSpecToJson(const PartitionSpec& spec) {
  OrderedJson out = OrderedJson::object();
  out["spec-id"] = spec.spec_id;
  out["fields"] = PartitionFieldsToJson(spec);
  return out;
}

Result<PartitionSpec> PartitionSpecFromFieldsJson(const Json& fields, int32_t spec_id) {
  const std::string where = "partition spec " + std::to_string(spec_id);
  if (!fields.is_array()) return Status::Corruption(where + ": fields must be an array");
  PartitionSpec spec;
  spec.spec_id = spec_id;
  int64_t next_v1_id = kFirstPartitionFieldId;  // int64: a field id of INT32_MAX must not overflow it
  for (const Json& item : fields) {
    Status object = RequireObject(item, "partition field");
    if (!object.ok()) return object.WithContext(where);
    PartitionField field;
    auto parse = [&]() -> Status {
      FLOE_ASSIGN_OR_RETURN(field.name, GetString(item, "name"));
      FLOE_ASSIGN_OR_RETURN(std::string transform, GetString(item, "transform"));
      FLOE_ASSIGN_OR_RETURN(field.transform, Transform::Parse(transform));
      FLOE_ASSIGN_OR_RETURN(auto source_id, GetOptionalInt32(item, "source-id"));
      if (source_id) {
        field.source_id = *source_id;
      } else {
        FLOE_ASSIGN_OR_RETURN(const Json* source_ids, GetArray(item, "source-ids"));
        FLOE_ASSIGN_OR_RETURN(auto ids, Int32ListFromJson(*source_ids, "field 'source-ids'"));
        if (ids.size() != 1) {
          return Status::NotSupported("multi-argument transform '" + transform + "' is not supported");
        }
        field.source_id = ids[0];
      }
      FLOE_ASSIGN_OR_RETURN(auto field_id, GetOptionalInt32(item, "field-id"));
      if (!field_id && next_v1_id > std::numeric_limits<int32_t>::max()) {
        return Status::Corruption("cannot assign a partition field id after " +
                                  std::to_string(next_v1_id - 1));
      }
      field.field_id = field_id ? *field_id : static_cast<int32_t>(next_v1_id);
      next_v1_id = std::max<int64_t>(next_v1_id, field.field_id) + 1;
      return Status::OK();
    };
    Status status = parse();
    if (!status.ok()) return status.WithContext(where);
    spec.fields.push_back(std::move(field));
  }
  return spec;
}

Result<PartitionSpec> PartitionSpecFromJson(const Json& json) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "partition spec"));
  FLOE_ASSIGN_OR_RETURN(int32_t spec_id, GetInt32(json, "spec-id"));
  FLOE_ASSIGN_OR_RETURN(const Json* fields, GetArray(json, "fields"));
  return PartitionSpecFromFieldsJson(*fields, spec_id);
}

}  // namespace floe::iceberg
