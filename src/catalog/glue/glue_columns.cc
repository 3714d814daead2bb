#include "catalog/glue/glue_columns.h"

#include <set>

namespace floe::catalog::glue {

using iceberg::TypeKind;

std::string GlueTypeString(const iceberg::Type& type) {
  switch (type.kind) {
    case TypeKind::kBoolean: return "boolean";
    case TypeKind::kInt: return "int";
    case TypeKind::kLong: return "bigint";
    case TypeKind::kFloat: return "float";
    case TypeKind::kDouble: return "double";
    case TypeKind::kDate: return "date";
    case TypeKind::kTime:
    case TypeKind::kString:
    case TypeKind::kUuid: return "string";
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz: return "timestamp";
    case TypeKind::kFixed:
    case TypeKind::kBinary: return "binary";
    case TypeKind::kDecimal:
      return "decimal(" + std::to_string(type.precision) + "," + std::to_string(type.scale) + ")";
    case TypeKind::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < type.fields.size(); ++i) {
        if (i > 0) out += ",";
        out += type.fields[i].name + ":" + GlueTypeString(type.fields[i].type);
      }
      return out + ">";
    }
    case TypeKind::kList: return "array<" + GlueTypeString(type.element().type) + ">";
    case TypeKind::kMap:
      return "map<" + GlueTypeString(type.key().type) + "," + GlueTypeString(type.value().type) + ">";
    // Java's default branch: the lower-cased type id (TIMESTAMP_NANO, UNKNOWN).
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: return "timestamp_nano";
    case TypeKind::kUnknown: return "unknown";
  }
  return "unknown";
}

json::Json GlueColumns(const iceberg::TableMetadata& metadata,
                       const std::map<std::string, std::string>& existing_comments) {
  json::Json columns = json::Json::array();
  std::set<std::string> listed;
  auto add = [&](const iceberg::NestedField& field, bool current) {
    if (!listed.insert(field.name).second) return;
    json::Json column = json::Json::object();
    column["Name"] = field.name;
    column["Type"] = GlueTypeString(field.type);
    if (field.doc && !field.doc->empty()) {
      column["Comment"] = *field.doc;
    } else if (auto it = existing_comments.find(field.name); it != existing_comments.end()) {
      column["Comment"] = it->second;
    }
    column["Parameters"] = {{"iceberg.field.id", std::to_string(field.id)},
                            {"iceberg.field.optional", field.required ? "false" : "true"},
                            {"iceberg.field.current", current ? "true" : "false"}};
    columns.push_back(std::move(column));
  };
  if (const iceberg::Schema* current = metadata.CurrentSchema()) {
    for (const iceberg::NestedField& field : current->fields) add(field, true);
  }
  for (const iceberg::Schema& schema : metadata.schemas) {
    if (schema.schema_id == metadata.current_schema_id) continue;
    for (const iceberg::NestedField& field : schema.fields) add(field, false);
  }
  return columns;
}

}  // namespace floe::catalog::glue
