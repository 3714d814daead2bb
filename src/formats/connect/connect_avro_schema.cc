#include "formats/connect/connect_avro_schema.h"

#include <string>

namespace floe::connect {

namespace {

using avro::AvroNode;
using avro::AvroType;
using avro::LogicalType;

const std::string* StringAttribute(const AvroNode& node, const char* key) {
  auto it = node.attributes.find(key);
  if (it == node.attributes.end() || !it->is_string()) return nullptr;
  return &it->get_ref<const std::string&>();
}

void SetParameter(ConnectSchema* schema, const std::string& key, const std::string& value) {
  for (auto& [k, v] : schema->parameters) {
    if (k == key) {
      v = value;
      return;
    }
  }
  schema->parameters.emplace_back(key, value);
}

// The record Confluent writes for one entry of a map with non-string keys.
bool IsMapEntry(const AvroNode& node) {
  if (node.type != AvroType::kRecord || node.fields.size() != 2) return false;
  if (node.fields[0].name != "key" || node.fields[1].name != "value") return false;
  return node.full_name == "io.confluent.connect.avro.MapEntry" || node.name == "MapEntry";
}

Result<ConnectSchema> FromAvro(const AvroNode& node, const std::string& path, int depth) {
  if (depth > kMaxConnectSchemaDepth) {
    return Status::Corruption(path + ": Avro schema nested deeper than " +
                              std::to_string(kMaxConnectSchemaDepth) + " levels");
  }
  if (node.type == AvroType::kUnion) {
    const int null_branch = node.NullBranch();
    if (node.branches.size() != 2 || null_branch < 0) {
      return Status::NotSupported(path + ": an Avro union of " + std::to_string(node.branches.size()) +
                                  " branches other than [\"null\", T] has no Connect schema floe maps");
    }
    FLOE_ASSIGN_OR_RETURN(ConnectSchema schema, FromAvro(*node.branches[1 - null_branch], path, depth + 1));
    schema.optional = true;
    return schema;
  }

  ConnectSchema schema;
  switch (node.type) {
    case AvroType::kNull:
      return Status::NotSupported(path + ": an Avro null outside a union has no Connect schema");
    case AvroType::kBoolean: schema.type = ConnectType::kBoolean; break;
    case AvroType::kInt: {
      schema.type = ConnectType::kInt32;
      if (const std::string* t = StringAttribute(node, "connect.type")) {
        if (*t == "int8") schema.type = ConnectType::kInt8;
        if (*t == "int16") schema.type = ConnectType::kInt16;
      }
      break;
    }
    case AvroType::kLong: schema.type = ConnectType::kInt64; break;
    case AvroType::kFloat: schema.type = ConnectType::kFloat32; break;
    case AvroType::kDouble: schema.type = ConnectType::kFloat64; break;
    case AvroType::kString:
    case AvroType::kEnum: schema.type = ConnectType::kString; break;
    case AvroType::kBytes:
    case AvroType::kFixed: schema.type = ConnectType::kBytes; break;
    case AvroType::kArray: {
      if (node.items != nullptr && IsMapEntry(*node.items)) {
        schema.type = ConnectType::kMap;
        FLOE_ASSIGN_OR_RETURN(ConnectSchema key,
                              FromAvro(*node.items->fields[0].type, path + ".key", depth + 1));
        FLOE_ASSIGN_OR_RETURN(ConnectSchema value,
                              FromAvro(*node.items->fields[1].type, path + ".value", depth + 1));
        schema.children.push_back(std::move(key));
        schema.children.push_back(std::move(value));
      } else {
        schema.type = ConnectType::kArray;
        if (node.items == nullptr) return Status::Corruption(path + ": array without items");
        FLOE_ASSIGN_OR_RETURN(ConnectSchema items, FromAvro(*node.items, path + ".items", depth + 1));
        schema.children.push_back(std::move(items));
      }
      break;
    }
    case AvroType::kMap: {
      schema.type = ConnectType::kMap;
      if (node.values == nullptr) return Status::Corruption(path + ": map without values");
      ConnectSchema key;
      key.type = ConnectType::kString;
      FLOE_ASSIGN_OR_RETURN(ConnectSchema value, FromAvro(*node.values, path + ".values", depth + 1));
      schema.children.push_back(std::move(key));
      schema.children.push_back(std::move(value));
      break;
    }
    case AvroType::kRecord: {
      schema.type = ConnectType::kStruct;
      schema.name = node.full_name;
      for (const auto& field : node.fields) {
        if (field.type == nullptr)
          return Status::Corruption(path + "." + field.name + ": field without a type");
        FLOE_ASSIGN_OR_RETURN(ConnectSchema member,
                              FromAvro(*field.type, path + "." + field.name, depth + 1));
        schema.fields.push_back({field.name, std::move(member)});
      }
      break;
    }
    case AvroType::kUnion: break;  // handled above
  }

  if (const std::string* name = StringAttribute(node, "connect.name")) schema.name = *name;
  if (auto it = node.attributes.find("connect.version");
      it != node.attributes.end() && it->is_number_integer()) {
    schema.version = it->get<int32_t>();
  }
  if (const std::string* doc = StringAttribute(node, "connect.doc")) {
    schema.doc = *doc;
  } else if (node.doc) {
    schema.doc = node.doc;
  }
  if (auto it = node.attributes.find("connect.parameters"); it != node.attributes.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      if (value.is_string()) SetParameter(&schema, key, value.get<std::string>());
    }
  }
  schema.semantic = SemanticTypeOfName(schema.name);

  // Logical types speak where no Connect name did.
  if (schema.semantic == SemanticType::kNone) {
    switch (node.logical_type) {
      case LogicalType::kDecimal:
        schema.semantic = SemanticType::kDecimal;
        if (schema.name.empty() || node.type == AvroType::kFixed)
          schema.name = "org.apache.kafka.connect.data.Decimal";
        break;
      case LogicalType::kDate: schema.semantic = SemanticType::kDate; break;
      case LogicalType::kTimeMillis: schema.semantic = SemanticType::kTime; break;
      case LogicalType::kTimestampMillis: schema.semantic = SemanticType::kTimestamp; break;
      case LogicalType::kTimeMicros: schema.semantic = SemanticType::kAvroTimeMicros; break;
      case LogicalType::kTimestampMicros: schema.semantic = SemanticType::kAvroTimestampMicros; break;
      case LogicalType::kLocalTimestampMillis:
        schema.semantic = SemanticType::kAvroLocalTimestampMillis;
        break;
      case LogicalType::kLocalTimestampMicros:
        schema.semantic = SemanticType::kAvroLocalTimestampMicros;
        break;
      case LogicalType::kUuid: schema.semantic = SemanticType::kAvroUuid; break;
      default: break;
    }
  }
  if (node.logical_type == LogicalType::kDecimal && schema.semantic == SemanticType::kDecimal) {
    if (schema.Parameter("scale") == nullptr) SetParameter(&schema, "scale", std::to_string(node.scale));
    if (schema.Parameter("connect.decimal.precision") == nullptr) {
      SetParameter(&schema, "connect.decimal.precision", std::to_string(node.precision));
    }
  }
  return schema;
}

}  // namespace

Result<ConnectSchema> ConnectSchemaFromAvro(const avro::AvroNode& node) {
  return FromAvro(node, "avro schema", 0);
}

}  // namespace floe::connect
