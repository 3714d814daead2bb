#include "formats/avro/schema.h"

#include <limits>
#include <map>
#include <mutex>
#include <set>

#include "common/bounded_memo.h"

namespace floe::avro {

struct AvroSchema::Storage {
  std::vector<std::unique_ptr<AvroNode>> nodes;
  std::map<std::string, const AvroNode*, std::less<>> named;
  // ToJson's text of the root schema, made on first use (call_once: the
  // storage is shared between threads).
  mutable std::once_flag json_text_once;
  mutable std::string json_text;
};

const char* AvroTypeName(AvroType type) {
  switch (type) {
    case AvroType::kNull: return "null";
    case AvroType::kBoolean: return "boolean";
    case AvroType::kInt: return "int";
    case AvroType::kLong: return "long";
    case AvroType::kFloat: return "float";
    case AvroType::kDouble: return "double";
    case AvroType::kBytes: return "bytes";
    case AvroType::kString: return "string";
    case AvroType::kRecord: return "record";
    case AvroType::kEnum: return "enum";
    case AvroType::kArray: return "array";
    case AvroType::kMap: return "map";
    case AvroType::kUnion: return "union";
    case AvroType::kFixed: return "fixed";
  }
  return "unknown";
}

namespace {

std::optional<int32_t> IntFrom(const Json& object, std::string_view key) {
  if (!object.is_object()) return std::nullopt;
  auto it = object.find(key);
  if (it == object.end() || !it->is_number_integer()) return std::nullopt;
  if (it->is_number_unsigned() && it->get<uint64_t>() > uint64_t{std::numeric_limits<int32_t>::max()}) {
    return std::nullopt;
  }
  const int64_t value = it->get<int64_t>();
  if (value < std::numeric_limits<int32_t>::min() || value > std::numeric_limits<int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<int32_t>(value);
}

std::optional<AvroType> PrimitiveType(std::string_view name) {
  static const std::pair<std::string_view, AvroType> kPrimitives[] = {
      {"null", AvroType::kNull},   {"boolean", AvroType::kBoolean}, {"int", AvroType::kInt},
      {"long", AvroType::kLong},   {"float", AvroType::kFloat},     {"double", AvroType::kDouble},
      {"bytes", AvroType::kBytes}, {"string", AvroType::kString},
  };
  for (const auto& [primitive_name, type] : kPrimitives) {
    if (primitive_name == name) return type;
  }
  return std::nullopt;
}

bool IsValidNamePart(std::string_view part) {
  if (part.empty()) return false;
  auto alpha = [](char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; };
  if (!alpha(part[0])) return false;
  for (char c : part) {
    if (!alpha(c) && !(c >= '0' && c <= '9')) return false;
  }
  return true;
}

bool IsValidFullName(std::string_view name) {
  size_t start = 0;
  while (true) {
    const size_t dot = name.find('.', start);
    if (!IsValidNamePart(name.substr(start, dot == std::string_view::npos ? dot : dot - start))) return false;
    if (dot == std::string_view::npos) return true;
    start = dot + 1;
  }
}

// Quotes a name for an error message, shortened when long.
std::string Quote(std::string_view s) {
  std::string out = "'";
  out.append(s.substr(0, 80));
  if (s.size() > 80) out += "...";
  return out + "'";
}

class SchemaParser {
 public:
  explicit SchemaParser(AvroSchema::Storage* storage) : storage_(storage) {}

  Result<const AvroNode*> ParseNode(const Json& json, const std::string& enclosing_ns, int depth) {
    if (depth > AvroSchema::kMaxDepth) {
      return Status::Corruption("avro schema: nested deeper than " + std::to_string(AvroSchema::kMaxDepth) +
                                " levels");
    }
    if (json.is_string()) return ParseTypeName(json.get_ref<const std::string&>(), enclosing_ns);
    if (json.is_array()) return ParseUnion(json, enclosing_ns, depth);
    if (!json.is_object()) {
      return Status::Corruption("avro schema: expected a type name, object or union array, got " +
                                std::string(json.type_name()));
    }
    auto type_it = json.find("type");
    if (type_it == json.end()) return Status::Corruption("avro schema: object without \"type\"");
    if (type_it->is_object() || type_it->is_array()) return ParseNode(*type_it, enclosing_ns, depth + 1);
    if (!type_it->is_string()) return Status::Corruption("avro schema: \"type\" is not a string");
    const std::string& type = type_it->get_ref<const std::string&>();
    if (auto primitive = PrimitiveType(type)) {
      AvroNode* node = NewNode(*primitive);
      CopyAttributes(json, {"type"}, &node->attributes);
      ResolveLogicalType(node);
      return node;
    }
    if (type == "record" || type == "error") return ParseRecord(json, enclosing_ns, depth);
    if (type == "enum") return ParseEnum(json, enclosing_ns);
    if (type == "fixed") return ParseFixed(json, enclosing_ns);
    if (type == "array" || type == "map") {
      const bool is_array = type == "array";
      const char* child_key = is_array ? "items" : "values";
      auto child_it = json.find(child_key);
      if (child_it == json.end()) {
        return Status::Corruption("avro schema: " + type + " without \"" + child_key + "\"");
      }
      FLOE_ASSIGN_OR_RETURN(const AvroNode* child, ParseNode(*child_it, enclosing_ns, depth + 1));
      AvroNode* node = NewNode(is_array ? AvroType::kArray : AvroType::kMap);
      (is_array ? node->items : node->values) = child;
      CopyAttributes(json, {"type", child_key}, &node->attributes);
      ResolveLogicalType(node);
      return node;
    }
    // {"type": "SomeNamedType"} refers to a named type defined earlier.
    return ParseTypeName(type, enclosing_ns);
  }

 private:
  AvroNode* NewNode(AvroType type) {
    storage_->nodes.push_back(std::make_unique<AvroNode>());
    storage_->nodes.back()->type = type;
    return storage_->nodes.back().get();
  }

  static void CopyAttributes(const Json& json, std::initializer_list<std::string_view> reserved, Json* out) {
    for (auto it = json.begin(); it != json.end(); ++it) {
      bool is_reserved = false;
      for (std::string_view key : reserved) is_reserved = is_reserved || it.key() == key;
      if (!is_reserved) (*out)[it.key()] = it.value();
    }
  }

  Result<const AvroNode*> ParseTypeName(const std::string& name, const std::string& enclosing_ns) {
    if (auto primitive = PrimitiveType(name)) return static_cast<const AvroNode*>(NewNode(*primitive));
    if (name.find('.') == std::string::npos && !enclosing_ns.empty()) {
      if (auto it = storage_->named.find(enclosing_ns + "." + name); it != storage_->named.end()) {
        return it->second;
      }
    }
    if (auto it = storage_->named.find(name); it != storage_->named.end()) return it->second;
    return Status::Corruption("avro schema: unknown type " + Quote(name));
  }

  Result<const AvroNode*> ParseUnion(const Json& json, const std::string& enclosing_ns, int depth) {
    AvroNode* node = NewNode(AvroType::kUnion);
    for (const Json& branch_json : json) {
      FLOE_ASSIGN_OR_RETURN(const AvroNode* branch, ParseNode(branch_json, enclosing_ns, depth + 1));
      if (branch->type == AvroType::kUnion) {
        return Status::Corruption("avro schema: a union may not contain a union directly");
      }
      for (const AvroNode* other : node->branches) {
        const bool same = other->is_named() ? (branch->is_named() && other->full_name == branch->full_name)
                                            : other->type == branch->type;
        if (same) {
          return Status::Corruption("avro schema: union has two branches of type " +
                                    Quote(other->is_named() ? other->full_name : AvroTypeName(other->type)));
        }
      }
      node->branches.push_back(branch);
    }
    return static_cast<const AvroNode*>(node);
  }

  // Fills name, namespace, doc and aliases of a named type and registers it.
  Status DefineNamed(const Json& json, const std::string& enclosing_ns, AvroNode* node) {
    auto name_it = json.find("name");
    if (name_it == json.end() || !name_it->is_string()) {
      return Status::Corruption(std::string("avro schema: ") + AvroTypeName(node->type) + " without a name");
    }
    const std::string& name = name_it->get_ref<const std::string&>();
    if (const size_t dot = name.rfind('.'); dot != std::string::npos) {
      node->name = name.substr(dot + 1);
      node->name_space = name.substr(0, dot);
    } else {
      node->name = name;
      auto ns_it = json.find("namespace");
      if (ns_it != json.end() && !ns_it->is_null()) {
        if (!ns_it->is_string())
          return Status::Corruption("avro schema: namespace of " + Quote(name) + " is not a string");
        node->name_space = ns_it->get<std::string>();
      } else {
        node->name_space = enclosing_ns;
      }
    }
    node->full_name = node->name_space.empty() ? node->name : node->name_space + "." + node->name;
    if (!IsValidFullName(node->full_name))
      return Status::Corruption("avro schema: invalid type name " + Quote(node->full_name));
    if (PrimitiveType(node->name))
      return Status::Corruption("avro schema: cannot redefine primitive type " + Quote(node->name));
    if (!storage_->named.emplace(node->full_name, node).second) {
      return Status::Corruption("avro schema: type " + Quote(node->full_name) + " is defined twice");
    }
    if (auto doc_it = json.find("doc"); doc_it != json.end() && doc_it->is_string())
      node->doc = doc_it->get<std::string>();
    return ParseAliases(json, &node->aliases);
  }

  static Status ParseAliases(const Json& json, std::vector<std::string>* aliases) {
    auto it = json.find("aliases");
    if (it == json.end()) return Status::OK();
    if (!it->is_array()) return Status::Corruption("avro schema: \"aliases\" is not an array");
    for (const Json& alias : *it) {
      if (!alias.is_string()) return Status::Corruption("avro schema: an alias is not a string");
      aliases->push_back(alias.get<std::string>());
    }
    return Status::OK();
  }

  Result<const AvroNode*> ParseRecord(const Json& json, const std::string& enclosing_ns, int depth) {
    AvroNode* node = NewNode(AvroType::kRecord);
    FLOE_RETURN_IF_ERROR(DefineNamed(json, enclosing_ns, node));
    auto fields_it = json.find("fields");
    if (fields_it == json.end() || !fields_it->is_array()) {
      return Status::Corruption("avro schema: record " + Quote(node->full_name) + " has no \"fields\" array");
    }
    std::set<std::string, std::less<>> seen;
    for (const Json& field_json : *fields_it) {
      const std::string context = "avro schema: record " + Quote(node->full_name);
      if (!field_json.is_object()) return Status::Corruption(context + ": a field is not an object");
      auto name_it = field_json.find("name");
      if (name_it == field_json.end() || !name_it->is_string() ||
          name_it->get_ref<const std::string&>().empty()) {
        return Status::Corruption(context + ": a field has no name");
      }
      AvroField field;
      field.name = name_it->get<std::string>();
      if (!seen.insert(field.name).second)
        return Status::Corruption(context + ": field " + Quote(field.name) + " appears twice");
      auto type_it = field_json.find("type");
      if (type_it == field_json.end())
        return Status::Corruption(context + ": field " + Quote(field.name) + " has no type");
      auto type = ParseNode(*type_it, node->name_space, depth + 1);
      if (!type.ok()) return type.status().WithContext("field " + Quote(field.name));
      field.type = *type;
      if (auto it = field_json.find("doc"); it != field_json.end() && it->is_string())
        field.doc = it->get<std::string>();
      if (auto it = field_json.find("default"); it != field_json.end()) field.default_value = *it;
      if (auto it = field_json.find("order"); it != field_json.end() && it->is_string())
        field.order = it->get<std::string>();
      FLOE_RETURN_IF_ERROR(ParseAliases(field_json, &field.aliases));
      CopyAttributes(field_json, {"name", "type", "doc", "default", "order", "aliases"}, &field.attributes);
      node->fields.push_back(std::move(field));
    }
    CopyAttributes(json, {"type", "name", "namespace", "doc", "aliases", "fields"}, &node->attributes);
    return static_cast<const AvroNode*>(node);
  }

  Result<const AvroNode*> ParseEnum(const Json& json, const std::string& enclosing_ns) {
    AvroNode* node = NewNode(AvroType::kEnum);
    FLOE_RETURN_IF_ERROR(DefineNamed(json, enclosing_ns, node));
    const std::string context = "avro schema: enum " + Quote(node->full_name);
    auto symbols_it = json.find("symbols");
    if (symbols_it == json.end() || !symbols_it->is_array())
      return Status::Corruption(context + " has no \"symbols\" array");
    std::set<std::string, std::less<>> seen;
    for (const Json& symbol : *symbols_it) {
      if (!symbol.is_string()) return Status::Corruption(context + ": a symbol is not a string");
      if (!seen.insert(symbol.get<std::string>()).second) {
        return Status::Corruption(context + ": symbol " + Quote(symbol.get<std::string>()) +
                                  " appears twice");
      }
      node->symbols.push_back(symbol.get<std::string>());
    }
    if (auto it = json.find("default"); it != json.end()) {
      if (!it->is_string() || !seen.count(it->get<std::string>())) {
        return Status::Corruption(context + ": default is not one of its symbols");
      }
      node->enum_default = it->get<std::string>();
    }
    CopyAttributes(json, {"type", "name", "namespace", "doc", "aliases", "symbols", "default"},
                   &node->attributes);
    return static_cast<const AvroNode*>(node);
  }

  Result<const AvroNode*> ParseFixed(const Json& json, const std::string& enclosing_ns) {
    AvroNode* node = NewNode(AvroType::kFixed);
    FLOE_RETURN_IF_ERROR(DefineNamed(json, enclosing_ns, node));
    auto size = IntFrom(json, "size");
    if (!size || *size < 0) {
      return Status::Corruption("avro schema: fixed " + Quote(node->full_name) + " has no valid \"size\"");
    }
    node->fixed_size = *size;
    CopyAttributes(json, {"type", "name", "namespace", "doc", "aliases", "size"}, &node->attributes);
    ResolveLogicalType(node);
    return static_cast<const AvroNode*>(node);
  }

  // Sets logical_type when the attribute is known and valid for the node.
  static void ResolveLogicalType(AvroNode* node) {
    auto it = node->attributes.find("logicalType");
    if (it == node->attributes.end() || !it->is_string()) return;
    const std::string& logical = it->get_ref<const std::string&>();
    const AvroType t = node->type;
    if (logical == "decimal" && (t == AvroType::kBytes || t == AvroType::kFixed)) {
      auto precision = IntFrom(node->attributes, "precision");
      auto scale = IntFrom(node->attributes, "scale").value_or(0);
      if (!precision || *precision <= 0 || scale < 0 || scale > *precision) return;
      if (t == AvroType::kFixed) {
        // Largest precision whose unscaled values fit in fixed_size bytes of two's complement.
        const double max_digits =
            node->fixed_size > 0 ? (8.0 * node->fixed_size - 1) * 0.30102999566398120 : 0;
        if (*precision > static_cast<int32_t>(max_digits)) return;
      }
      node->logical_type = LogicalType::kDecimal;
      node->precision = *precision;
      node->scale = scale;
    } else if (logical == "uuid" &&
               (t == AvroType::kString || (t == AvroType::kFixed && node->fixed_size == 16))) {
      node->logical_type = LogicalType::kUuid;
    } else if (logical == "date" && t == AvroType::kInt) {
      node->logical_type = LogicalType::kDate;
    } else if (logical == "time-millis" && t == AvroType::kInt) {
      node->logical_type = LogicalType::kTimeMillis;
    } else if (logical == "time-micros" && t == AvroType::kLong) {
      node->logical_type = LogicalType::kTimeMicros;
    } else if (logical == "timestamp-millis" && t == AvroType::kLong) {
      node->logical_type = LogicalType::kTimestampMillis;
    } else if (logical == "timestamp-micros" && t == AvroType::kLong) {
      node->logical_type = LogicalType::kTimestampMicros;
    } else if (logical == "local-timestamp-millis" && t == AvroType::kLong) {
      node->logical_type = LogicalType::kLocalTimestampMillis;
    } else if (logical == "local-timestamp-micros" && t == AvroType::kLong) {
      node->logical_type = LogicalType::kLocalTimestampMicros;
    } else if (logical == "duration" && t == AvroType::kFixed && node->fixed_size == 12) {
      node->logical_type = LogicalType::kDuration;
    }
  }

  AvroSchema::Storage* storage_;
};

void AppendAttributes(const Json& attributes, Json* out) {
  for (auto it = attributes.begin(); it != attributes.end(); ++it) (*out)[it.key()] = it.value();
}

void AppendAliases(const std::vector<std::string>& aliases, Json* out) {
  if (aliases.empty()) return;
  Json list = Json::array();
  for (const auto& alias : aliases) list.push_back(alias);
  (*out)["aliases"] = std::move(list);
}

class SchemaWriter {
 public:
  Json Write(const AvroNode& node, const std::string& enclosing_ns) {
    switch (node.type) {
      case AvroType::kUnion: {
        Json out = Json::array();
        for (const AvroNode* branch : node.branches) out.push_back(Write(*branch, enclosing_ns));
        return out;
      }
      case AvroType::kRecord:
      case AvroType::kEnum:
      case AvroType::kFixed: return WriteNamed(node, enclosing_ns);
      case AvroType::kArray:
      case AvroType::kMap: {
        Json out = Json::object();
        out["type"] = AvroTypeName(node.type);
        if (node.type == AvroType::kArray) {
          out["items"] = Write(*node.items, enclosing_ns);
        } else {
          out["values"] = Write(*node.values, enclosing_ns);
        }
        AppendAttributes(node.attributes, &out);
        return out;
      }
      default: {
        if (node.attributes.empty()) return AvroTypeName(node.type);
        Json out = Json::object();
        out["type"] = AvroTypeName(node.type);
        AppendAttributes(node.attributes, &out);
        return out;
      }
    }
  }

 private:
  Json WriteNamed(const AvroNode& node, const std::string& enclosing_ns) {
    if (!defined_.insert(&node).second) return node.name_space == enclosing_ns ? node.name : node.full_name;
    Json out = Json::object();
    out["type"] = AvroTypeName(node.type);
    out["name"] = node.name;
    if (node.name_space != enclosing_ns) out["namespace"] = node.name_space;
    if (node.doc) out["doc"] = *node.doc;
    if (node.type == AvroType::kRecord) {
      Json fields = Json::array();
      for (const AvroField& field : node.fields) {
        Json f = Json::object();
        f["name"] = field.name;
        f["type"] = Write(*field.type, node.name_space);
        if (field.doc) f["doc"] = *field.doc;
        if (field.default_value) f["default"] = *field.default_value;
        if (field.order) f["order"] = *field.order;
        AppendAttributes(field.attributes, &f);
        AppendAliases(field.aliases, &f);
        fields.push_back(std::move(f));
      }
      out["fields"] = std::move(fields);
    } else if (node.type == AvroType::kEnum) {
      Json symbols = Json::array();
      for (const auto& symbol : node.symbols) symbols.push_back(symbol);
      out["symbols"] = std::move(symbols);
      if (node.enum_default) out["default"] = *node.enum_default;
    } else {
      out["size"] = node.fixed_size;
    }
    AppendAttributes(node.attributes, &out);
    AppendAliases(node.aliases, &out);
    return out;
  }

  std::set<const AvroNode*> defined_;
};

}  // namespace

std::optional<int32_t> AvroField::field_id() const {
  return IntFrom(attributes, "field-id");
}

std::optional<int32_t> AvroNode::IntAttribute(std::string_view key) const {
  return IntFrom(attributes, key);
}

int AvroNode::NullBranch() const {
  for (size_t i = 0; i < branches.size(); ++i) {
    if (branches[i]->type == AvroType::kNull) return static_cast<int>(i);
  }
  return -1;
}

int AvroNode::FieldIndex(std::string_view field_name) const {
  for (size_t i = 0; i < fields.size(); ++i) {
    if (fields[i].name == field_name) return static_cast<int>(i);
  }
  return -1;
}

namespace {

// Schemas parsed before, by their text. Every manifest and manifest list
// carries its writer schema in its header, and a process reads the same few
// texts over and over (one per partition type and format version): parsing
// one cost more than reading a small manifest's entries. Texts above 1 MiB
// are not kept.
constexpr size_t kMaxMemoizedSchemaText = 1 << 20;
BoundedMemo<std::string, AvroSchema>& ParsedSchemas() {
  static auto* memo = new BoundedMemo<std::string, AvroSchema>(256);  // never destroyed: usable during exit
  return *memo;
}

}  // namespace

Result<AvroSchema> AvroSchema::Parse(std::string_view json_text) {
  const bool memoized = json_text.size() <= kMaxMemoizedSchemaText;
  std::string key;
  if (memoized) {
    key.assign(json_text);
    if (std::optional<AvroSchema> known = ParsedSchemas().Find(key)) return *std::move(known);
  }
  Json json = Json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (json.is_discarded()) return Status::Corruption("avro schema: not valid JSON");
  FLOE_ASSIGN_OR_RETURN(AvroSchema schema, FromJson(json));
  if (memoized) ParsedSchemas().Add(std::move(key), schema);
  return schema;
}

Result<AvroSchema> AvroSchema::FromJson(const Json& json) {
  auto storage = std::make_shared<Storage>();
  SchemaParser parser(storage.get());
  FLOE_ASSIGN_OR_RETURN(const AvroNode* root, parser.ParseNode(json, "", 0));
  return AvroSchema(std::move(storage), root);
}

const AvroNode* AvroSchema::FindNamed(std::string_view full_name) const {
  auto it = storage_->named.find(full_name);
  return it == storage_->named.end() ? nullptr : it->second;
}

Json AvroSchema::ToJsonValue() const {
  return SchemaWriter().Write(*root_, "");
}

std::string AvroSchema::ToJson() const {
  // The text is kept only for the storage's own root: a schema made from a
  // node inside another's storage would share the storage, not the text.
  if (storage_->nodes.empty() || storage_->nodes.front().get() != root_)
    return ToJsonValue().dump(-1, ' ', false, Json::error_handler_t::replace);
  std::call_once(storage_->json_text_once, [this] {
    storage_->json_text = ToJsonValue().dump(-1, ' ', false, Json::error_handler_t::replace);
  });
  return storage_->json_text;
}

}  // namespace floe::avro
