#include "formats/connect/connect_schema.h"

#include <array>

namespace floe::connect {

using Json = nlohmann::ordered_json;

namespace {

constexpr std::array<std::pair<const char*, ConnectType>, 12> kTypeNames = {{
    {"int8", ConnectType::kInt8},
    {"int16", ConnectType::kInt16},
    {"int32", ConnectType::kInt32},
    {"int64", ConnectType::kInt64},
    {"float", ConnectType::kFloat32},
    {"double", ConnectType::kFloat64},
    {"boolean", ConnectType::kBoolean},
    {"string", ConnectType::kString},
    {"bytes", ConnectType::kBytes},
    {"array", ConnectType::kArray},
    {"map", ConnectType::kMap},
    {"struct", ConnectType::kStruct},
}};

constexpr std::array<std::pair<const char*, SemanticType>, 25> kSemanticNames = {{
    {"org.apache.kafka.connect.data.Decimal", SemanticType::kDecimal},
    {"org.apache.kafka.connect.data.Date", SemanticType::kDate},
    {"org.apache.kafka.connect.data.Time", SemanticType::kTime},
    {"org.apache.kafka.connect.data.Timestamp", SemanticType::kTimestamp},
    {"io.debezium.time.Date", SemanticType::kDebeziumDate},
    {"io.debezium.time.Time", SemanticType::kDebeziumTime},
    {"io.debezium.time.MicroTime", SemanticType::kDebeziumMicroTime},
    {"io.debezium.time.NanoTime", SemanticType::kDebeziumNanoTime},
    {"io.debezium.time.Timestamp", SemanticType::kDebeziumTimestamp},
    {"io.debezium.time.MicroTimestamp", SemanticType::kDebeziumMicroTimestamp},
    {"io.debezium.time.NanoTimestamp", SemanticType::kDebeziumNanoTimestamp},
    {"io.debezium.time.ZonedTimestamp", SemanticType::kDebeziumZonedTimestamp},
    {"io.debezium.time.ZonedTime", SemanticType::kDebeziumZonedTime},
    {"io.debezium.time.Year", SemanticType::kDebeziumYear},
    {"io.debezium.time.MicroDuration", SemanticType::kDebeziumMicroDuration},
    {"io.debezium.data.VariableScaleDecimal", SemanticType::kDebeziumVariableScaleDecimal},
    {"io.debezium.data.Json", SemanticType::kDebeziumJson},
    {"io.debezium.data.Uuid", SemanticType::kDebeziumUuid},
    {"io.debezium.data.Enum", SemanticType::kDebeziumEnum},
    {"io.debezium.data.EnumSet", SemanticType::kDebeziumEnumSet},
    {"io.debezium.data.Bits", SemanticType::kDebeziumBits},
    {"io.debezium.data.Xml", SemanticType::kDebeziumXml},
    // Older Debezium releases named Json and Xml without the package.
    {"io.debezium.data.json", SemanticType::kDebeziumJson},
    {"io.debezium.data.xml", SemanticType::kDebeziumXml},
    {"io.debezium.data.uuid", SemanticType::kDebeziumUuid},
}};

std::string Quoted(const Json& value) {
  std::string text = value.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (text.size() > 64) text = text.substr(0, 61) + "...";
  return text;
}

Result<ConnectSchema> Parse(const Json& json, const std::string& path, int depth) {
  if (depth > kMaxConnectSchemaDepth) {
    return Status::Corruption(path + ": Connect schema nested deeper than " +
                              std::to_string(kMaxConnectSchemaDepth) + " levels");
  }
  if (!json.is_object())
    return Status::Corruption(path + ": a Connect schema must be an object, got " + Quoted(json));
  ConnectSchema schema;
  auto type_it = json.find("type");
  if (type_it == json.end() || !type_it->is_string()) {
    return Status::Corruption(path + ".type: missing or not a string");
  }
  const std::string& type_name = type_it->get_ref<const std::string&>();
  bool known = false;
  for (const auto& [name, type] : kTypeNames) {
    if (type_name == name) {
      schema.type = type;
      known = true;
    }
  }
  if (!known) return Status::Corruption(path + ".type: unknown Connect type " + Quoted(*type_it));

  if (auto it = json.find("optional"); it != json.end() && !it->is_null()) {
    if (!it->is_boolean()) return Status::Corruption(path + ".optional: not a boolean: " + Quoted(*it));
    schema.optional = it->get<bool>();
  }
  if (auto it = json.find("name"); it != json.end() && !it->is_null()) {
    if (!it->is_string()) return Status::Corruption(path + ".name: not a string: " + Quoted(*it));
    schema.name = it->get<std::string>();
  }
  if (auto it = json.find("version"); it != json.end() && !it->is_null()) {
    if (!it->is_number_integer() || it->get<int64_t>() < INT32_MIN || it->get<int64_t>() > INT32_MAX) {
      return Status::Corruption(path + ".version: not a 32-bit integer: " + Quoted(*it));
    }
    schema.version = static_cast<int32_t>(it->get<int64_t>());
  }
  if (auto it = json.find("doc"); it != json.end() && !it->is_null()) {
    if (!it->is_string()) return Status::Corruption(path + ".doc: not a string: " + Quoted(*it));
    schema.doc = it->get<std::string>();
  }
  if (auto it = json.find("parameters"); it != json.end() && !it->is_null()) {
    if (!it->is_object()) return Status::Corruption(path + ".parameters: not an object: " + Quoted(*it));
    for (const auto& [key, value] : it->items()) {
      // The converter writes parameters as strings; numbers are accepted as their text.
      if (value.is_string()) {
        schema.parameters.emplace_back(key, value.get<std::string>());
      } else if (value.is_number_integer()) {
        schema.parameters.emplace_back(key, std::to_string(value.get<int64_t>()));
      } else {
        return Status::Corruption(path + ".parameters." + key + ": not a string: " + Quoted(value));
      }
    }
  }

  switch (schema.type) {
    case ConnectType::kStruct: {
      auto it = json.find("fields");
      if (it == json.end() || !it->is_array())
        return Status::Corruption(path + ".fields: missing or not an array");
      for (size_t i = 0; i < it->size(); ++i) {
        const Json& member = (*it)[i];
        std::string member_path = path + ".fields[" + std::to_string(i) + "]";
        if (!member.is_object()) return Status::Corruption(member_path + ": not an object");
        auto field_it = member.find("field");
        if (field_it == member.end() || !field_it->is_string()) {
          return Status::Corruption(member_path + ".field: missing or not a string");
        }
        ConnectField field;
        field.name = field_it->get<std::string>();
        member_path += "(" + field.name + ")";
        if (schema.Field(field.name) != nullptr) {
          return Status::Corruption(member_path + ": field name appears twice");
        }
        FLOE_ASSIGN_OR_RETURN(field.schema, Parse(member, member_path, depth + 1));
        schema.fields.push_back(std::move(field));
      }
      break;
    }
    case ConnectType::kArray: {
      auto it = json.find("items");
      if (it == json.end()) return Status::Corruption(path + ".items: missing for an array");
      FLOE_ASSIGN_OR_RETURN(ConnectSchema items, Parse(*it, path + ".items", depth + 1));
      schema.children.push_back(std::move(items));
      break;
    }
    case ConnectType::kMap: {
      auto keys = json.find("keys");
      auto values = json.find("values");
      if (keys == json.end() || values == json.end()) {
        return Status::Corruption(path + ": a map needs \"keys\" and \"values\"");
      }
      FLOE_ASSIGN_OR_RETURN(ConnectSchema key_schema, Parse(*keys, path + ".keys", depth + 1));
      FLOE_ASSIGN_OR_RETURN(ConnectSchema value_schema, Parse(*values, path + ".values", depth + 1));
      schema.children.push_back(std::move(key_schema));
      schema.children.push_back(std::move(value_schema));
      break;
    }
    default: break;
  }
  schema.semantic = SemanticTypeOfName(schema.name);
  return schema;
}

}  // namespace

const char* ConnectTypeName(ConnectType type) {
  for (const auto& [name, t] : kTypeNames) {
    if (t == type) return name;
  }
  return "?";
}

SemanticType SemanticTypeOfName(std::string_view name) {
  if (name.empty()) return SemanticType::kNone;
  for (const auto& [known, semantic] : kSemanticNames) {
    if (name == known) return semantic;
  }
  return SemanticType::kNone;
}

const std::string* ConnectSchema::Parameter(std::string_view key) const {
  for (const auto& [k, v] : parameters) {
    if (k == key) return &v;
  }
  return nullptr;
}

const ConnectField* ConnectSchema::Field(std::string_view field_name) const {
  for (const auto& f : fields) {
    if (f.name == field_name) return &f;
  }
  return nullptr;
}

Result<ConnectSchema> ConnectSchemaFromJson(const Json& json) {
  return Parse(json, "schema", 0);
}

Result<ConnectSchema> ParseConnectSchema(std::string_view json_text) {
  // The parser itself is iterative; the callback stops pathological nesting
  // before the tree is built (each schema level is at most three JSON levels).
  constexpr int kMaxJsonDepth = 3 * kMaxConnectSchemaDepth + 4;
  bool too_deep = false;
  Json json = Json::parse(
      json_text,
      [&](int depth, Json::parse_event_t, Json&) {
        if (depth > kMaxJsonDepth) too_deep = true;
        return !too_deep;
      },
      /*allow_exceptions=*/false);
  if (too_deep) {
    return Status::Corruption("Connect schema: JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                              " levels");
  }
  if (json.is_discarded()) return Status::Corruption("Connect schema: not valid JSON");
  return ConnectSchemaFromJson(json);
}

Result<std::shared_ptr<const ConnectSchema>> ConnectSchemaCache::Get(std::string_view json_text) {
  std::string key(json_text);
  {
    std::lock_guard lock(mutex_);
    if (auto it = schemas_.find(key); it != schemas_.end()) return it->second;
  }
  FLOE_ASSIGN_OR_RETURN(ConnectSchema parsed, ParseConnectSchema(json_text));
  auto schema = std::make_shared<const ConnectSchema>(std::move(parsed));
  std::lock_guard lock(mutex_);
  if (schemas_.size() >= capacity_) schemas_.clear();
  schemas_.emplace(std::move(key), schema);
  return schema;
}

}  // namespace floe::connect
