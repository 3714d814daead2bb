#include "iceberg/spec/schema.h"

#include <functional>
#include <set>

namespace floe::iceberg {

namespace {

template <typename Visit>
void WalkFields(const std::vector<NestedField>& fields, const std::string& prefix, Visit& visit) {
  for (const auto& f : fields) {
    std::string name = prefix.empty() ? f.name : prefix + "." + f.name;
    visit(f, name);
    WalkFields(f.type.fields, name, visit);
  }
}

}  // namespace

const NestedField* Schema::FindFieldById(int32_t id) const {
  const NestedField* found = nullptr;
  auto visit = [&](const NestedField& f, const std::string&) {
    if (found == nullptr && f.id == id) found = &f;
  };
  WalkFields(fields, "", visit);
  return found;
}

namespace {

// The sibling whose name is the longest prefix of `dotted_name` ending at a
// dot or at the end (names may contain dots themselves); sets `consumed`.
const NestedField* MatchSibling(const std::vector<NestedField>& level, std::string_view dotted_name,
                                size_t& consumed) {
  const NestedField* match = nullptr;
  consumed = 0;
  for (const auto& f : level) {
    if (dotted_name.substr(0, f.name.size()) == f.name &&
        (dotted_name.size() == f.name.size() || dotted_name[f.name.size()] == '.') &&
        (match == nullptr || f.name.size() > consumed)) {
      match = &f;
      consumed = f.name.size();
    }
  }
  return match;
}

}  // namespace

const NestedField* Schema::FindFieldByName(std::string_view dotted_name) const {
  const NestedField* match = nullptr;
  size_t consumed = 0;
  const NestedField* current = MatchSibling(fields, dotted_name, consumed);
  while (current != nullptr) {
    if (consumed == dotted_name.size()) return current;
    dotted_name.remove_prefix(consumed + 1);
    match = MatchSibling(current->type.fields, dotted_name, consumed);
    // Like Java, "points.x" also reaches the struct inside a list element or map value.
    if (match == nullptr && (current->type.kind == TypeKind::kList || current->type.kind == TypeKind::kMap)) {
      const NestedField& inner =
          current->type.kind == TypeKind::kList ? current->type.element() : current->type.value();
      if (inner.type.kind == TypeKind::kStruct)
        match = MatchSibling(inner.type.fields, dotted_name, consumed);
    }
    current = match;
  }
  return nullptr;
}

std::string Schema::FindNameById(int32_t id) const {
  std::string found;
  auto visit = [&](const NestedField& f, const std::string& name) {
    if (found.empty() && f.id == id) found = name;
  };
  WalkFields(fields, "", visit);
  return found;
}

int32_t Schema::HighestFieldId() const {
  int32_t highest = 0;
  auto visit = [&](const NestedField& f, const std::string&) { highest = std::max(highest, f.id); };
  WalkFields(fields, "", visit);
  return highest;
}

std::map<int32_t, const NestedField*> Schema::IndexById() const {
  std::map<int32_t, const NestedField*> index;
  auto visit = [&](const NestedField& f, const std::string&) { index.emplace(f.id, &f); };
  WalkFields(fields, "", visit);
  return index;
}

std::map<std::string, const NestedField*> Schema::IndexByName() const {
  std::map<std::string, const NestedField*> index;
  auto visit = [&](const NestedField& f, const std::string& name) { index.emplace(name, &f); };
  WalkFields(fields, "", visit);
  return index;
}

Status Schema::Validate() const {
  std::set<int32_t> ids;
  Status status;
  std::function<void(const std::vector<NestedField>&, const std::string&)> check =
      [&](const std::vector<NestedField>& level, const std::string& prefix) {
        std::set<std::string> names;
        for (const auto& f : level) {
          if (!status.ok()) return;
          std::string name = prefix.empty() ? f.name : prefix + "." + f.name;
          if (!ids.insert(f.id).second) {
            status = Status::Corruption("schema " + std::to_string(schema_id) + ": field id " +
                                        std::to_string(f.id) + " used twice (again by '" + name + "')");
            return;
          }
          if (!names.insert(f.name).second) {
            status = Status::Corruption("schema " + std::to_string(schema_id) + ": duplicate field name '" +
                                        name + "'");
            return;
          }
          if (f.type.kind == TypeKind::kList && f.type.fields.size() != 1) {
            status = Status::Corruption("list '" + name + "' must have exactly one element field");
            return;
          }
          if (f.type.kind == TypeKind::kMap && (f.type.fields.size() != 2 || !f.type.key().required)) {
            status = Status::Corruption("map '" + name + "' must have a required key and a value");
            return;
          }
          check(f.type.fields, name);
        }
      };
  check(fields, "");
  FLOE_RETURN_IF_ERROR(status);
  for (int32_t id : identifier_field_ids) {
    const NestedField* f = FindFieldById(id);
    if (f == nullptr) {
      return Status::Corruption("schema " + std::to_string(schema_id) + ": identifier field id " +
                                std::to_string(id) + " does not exist");
    }
    if (!f->required || !f->type.is_primitive() || f->type.kind == TypeKind::kFloat ||
        f->type.kind == TypeKind::kDouble) {
      return Status::Corruption("schema " + std::to_string(schema_id) + ": identifier field '" + f->name +
                                "' must be a required primitive that is not float or double");
    }
  }
  return Status::OK();
}

OrderedJson SchemaToJson(const Schema& schema) {
  OrderedJson out = OrderedJson::object();
  out["type"] = "struct";
  out["schema-id"] = schema.schema_id;
  if (!schema.identifier_field_ids.empty()) out["identifier-field-ids"] = schema.identifier_field_ids;
  OrderedJson fields = OrderedJson::array();
  for (const auto& f : schema.fields) fields.push_back(NestedFieldToJson(f));
  out["fields"] = std::move(fields);
  return out;
}

Result<Schema> SchemaFromJson(const Json& json) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "schema"));
  Schema schema;
  FLOE_ASSIGN_OR_RETURN(auto schema_id, GetOptionalInt32(json, "schema-id"));
  schema.schema_id = schema_id.value_or(0);
  const std::string where = "schema " + std::to_string(schema.schema_id);
  if (auto type = GetOptionalString(json, "type"); !type.ok() || (type->has_value() && **type != "struct")) {
    return Status::Corruption(where + ": field 'type' must be \"struct\"");
  }
  auto ids = GetOptionalArray(json, "identifier-field-ids");
  if (!ids.ok()) return ids.status().WithContext(where);
  if (*ids != nullptr) {
    auto list = Int32ListFromJson(**ids, "field 'identifier-field-ids'");
    if (!list.ok()) return list.status().WithContext(where);
    schema.identifier_field_ids = std::move(list).value();
  }
  auto fields = GetArray(json, "fields");
  if (!fields.ok()) return fields.status().WithContext(where);
  for (const Json& f : **fields) {
    auto field = NestedFieldFromJson(f, 0);
    if (!field.ok()) return field.status().WithContext(where);
    schema.fields.push_back(std::move(field).value());
  }
  Status valid = schema.Validate();
  if (!valid.ok()) return valid;
  return schema;
}

Result<floe::Schema> ToFloeSchema(const Schema& schema) {
  floe::Schema out;
  for (const auto& f : schema.fields) {
    FLOE_ASSIGN_OR_RETURN(Field field, ToFloeField(f));
    out.push_back(std::move(field));
  }
  return out;
}

Result<Schema> FromFloeSchema(const floe::Schema& fields, int format_version, int32_t* next_id) {
  Schema schema;
  for (const auto& f : fields) {
    FLOE_ASSIGN_OR_RETURN(NestedField field, FromFloeField(f, format_version, next_id));
    schema.fields.push_back(std::move(field));
  }
  FLOE_RETURN_IF_ERROR(schema.Validate());
  return schema;
}

}  // namespace floe::iceberg
