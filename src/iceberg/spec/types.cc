#include "iceberg/spec/types.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include "common/strings.h"

namespace floe::iceberg {

namespace {

struct PrimitiveName {
  TypeKind kind;
  const char* name;
};

constexpr PrimitiveName kPrimitiveNames[] = {
    {TypeKind::kUnknown, "unknown"},
    {TypeKind::kBoolean, "boolean"},
    {TypeKind::kInt, "int"},
    {TypeKind::kLong, "long"},
    {TypeKind::kFloat, "float"},
    {TypeKind::kDouble, "double"},
    {TypeKind::kDate, "date"},
    {TypeKind::kTime, "time"},
    {TypeKind::kTimestamp, "timestamp"},
    {TypeKind::kTimestampTz, "timestamptz"},
    {TypeKind::kTimestampNs, "timestamp_ns"},
    {TypeKind::kTimestampTzNs, "timestamptz_ns"},
    {TypeKind::kString, "string"},
    {TypeKind::kUuid, "uuid"},
    {TypeKind::kBinary, "binary"},
};

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

std::optional<int32_t> ParseSmallInt(std::string_view s) {
  s = Trim(s);
  int32_t v = 0;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || ptr != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

bool StartsWith(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

}  // namespace

Type PrimitiveType(TypeKind kind) {
  Type t;
  t.kind = kind;
  return t;
}

Type DecimalType(int32_t precision, int32_t scale) {
  Type t = PrimitiveType(TypeKind::kDecimal);
  t.precision = precision;
  t.scale = scale;
  return t;
}

Type FixedType(int32_t length) {
  Type t = PrimitiveType(TypeKind::kFixed);
  t.length = length;
  return t;
}

Type StructType(std::vector<NestedField> fields) {
  Type t = PrimitiveType(TypeKind::kStruct);
  t.fields = std::move(fields);
  return t;
}

Type ListType(int32_t element_id, Type element, bool element_required) {
  Type t = PrimitiveType(TypeKind::kList);
  t.fields.push_back(MakeNestedField(element_id, "element", std::move(element), element_required));
  return t;
}

Type MapType(int32_t key_id, Type key, int32_t value_id, Type value, bool value_required) {
  Type t = PrimitiveType(TypeKind::kMap);
  t.fields.push_back(MakeNestedField(key_id, "key", std::move(key), true));
  t.fields.push_back(MakeNestedField(value_id, "value", std::move(value), value_required));
  return t;
}

NestedField MakeNestedField(int32_t id, std::string name, Type type, bool required) {
  NestedField f;
  f.id = id;
  f.name = std::move(name);
  f.type = std::move(type);
  f.required = required;
  return f;
}

bool Type::operator==(const Type& other) const {
  return kind == other.kind && precision == other.precision && scale == other.scale &&
         length == other.length && fields == other.fields;
}

bool NestedField::operator==(const NestedField& other) const {
  return id == other.id && name == other.name && required == other.required && type == other.type &&
         doc == other.doc && initial_default == other.initial_default && write_default == other.write_default;
}

std::string Type::ToString() const {
  switch (kind) {
    case TypeKind::kDecimal:
      return "decimal(" + std::to_string(precision) + "," + std::to_string(scale) + ")";
    case TypeKind::kFixed: return "fixed[" + std::to_string(length) + "]";
    case TypeKind::kStruct: {
      std::string out = "struct<";
      for (size_t i = 0; i < fields.size(); ++i) {
        if (i > 0) out += ", ";
        out += std::to_string(fields[i].id) + ": " + fields[i].name + ": " +
               (fields[i].required ? "required " : "optional ") + fields[i].type.ToString();
      }
      return out + ">";
    }
    case TypeKind::kList:
      return "list<" + (fields.empty() ? std::string("?") : element().type.ToString()) + ">";
    case TypeKind::kMap:
      if (fields.size() != 2) return "map<?>";
      return "map<" + key().type.ToString() + ", " + value().type.ToString() + ">";
    default:
      for (const auto& p : kPrimitiveNames) {
        if (p.kind == kind) return p.name;
      }
      return "?";
  }
}

Result<Type> ParsePrimitiveType(std::string_view raw) {
  const std::string lowered = AsciiLower(Trim(raw));
  std::string_view name = lowered;
  for (const auto& p : kPrimitiveNames) {
    if (name == p.name) return PrimitiveType(p.kind);
  }
  if (StartsWith(name, "decimal(") && name.back() == ')') {
    std::string_view args = name.substr(8, name.size() - 9);
    size_t comma = args.find(',');
    if (comma != std::string_view::npos) {
      auto precision = ParseSmallInt(args.substr(0, comma));
      auto scale = ParseSmallInt(args.substr(comma + 1));
      if (precision && scale) {
        if (*precision < 1 || *precision > 38 || *scale < 0 || *scale > 38) {
          return Status::Corruption("decimal precision must be 1..38 and scale 0..38: '" + std::string(raw) +
                                    "'");
        }
        return DecimalType(*precision, *scale);
      }
    }
  }
  if (StartsWith(name, "fixed[") && name.back() == ']') {
    auto length = ParseSmallInt(name.substr(6, name.size() - 7));
    if (length) {
      if (*length < 1) return Status::Corruption("fixed length must be positive: '" + std::string(raw) + "'");
      return FixedType(*length);
    }
  }
  return Status::Corruption("unknown Iceberg type '" + std::string(raw) + "'");
}

OrderedJson NestedFieldToJson(const NestedField& field) {
  OrderedJson out = OrderedJson::object();
  out["id"] = field.id;
  out["name"] = field.name;
  out["required"] = field.required;
  out["type"] = TypeToJson(field.type);
  if (field.doc) out["doc"] = *field.doc;
  if (field.initial_default) out["initial-default"] = *field.initial_default;
  if (field.write_default) out["write-default"] = *field.write_default;
  return out;
}

OrderedJson TypeToJson(const Type& type) {
  switch (type.kind) {
    case TypeKind::kStruct: {
      OrderedJson out = OrderedJson::object();
      out["type"] = "struct";
      OrderedJson fields = OrderedJson::array();
      for (const auto& f : type.fields) fields.push_back(NestedFieldToJson(f));
      out["fields"] = std::move(fields);
      return out;
    }
    case TypeKind::kList: {
      OrderedJson out = OrderedJson::object();
      out["type"] = "list";
      out["element-id"] = type.element().id;
      out["element"] = TypeToJson(type.element().type);
      out["element-required"] = type.element().required;
      return out;
    }
    case TypeKind::kMap: {
      OrderedJson out = OrderedJson::object();
      out["type"] = "map";
      out["key-id"] = type.key().id;
      out["key"] = TypeToJson(type.key().type);
      out["value-id"] = type.value().id;
      out["value"] = TypeToJson(type.value().type);
      out["value-required"] = type.value().required;
      return out;
    }
    default: return type.ToString();
  }
}

Result<NestedField> NestedFieldFromJson(const Json& json, int depth) {
  FLOE_RETURN_IF_ERROR(RequireObject(json, "struct field"));
  NestedField field;
  FLOE_ASSIGN_OR_RETURN(field.id, GetInt32(json, "id"));
  FLOE_ASSIGN_OR_RETURN(field.name, GetString(json, "name"));
  const std::string where = "field '" + field.name + "' (id " + std::to_string(field.id) + ")";
  auto required = GetBool(json, "required");
  if (!required.ok()) return required.status().WithContext(where);
  field.required = *required;
  const Json* type = FindMember(json, "type");
  if (type == nullptr) return Status::Corruption(where + ": missing required field 'type'");
  auto parsed = TypeFromJson(*type, depth + 1);
  if (!parsed.ok()) return parsed.status().WithContext(where);
  field.type = std::move(parsed).value();
  auto doc = GetOptionalString(json, "doc");
  if (!doc.ok()) return doc.status().WithContext(where);
  field.doc = *doc;
  for (auto [key, target] : {std::pair{"initial-default", &field.initial_default},
                             std::pair{"write-default", &field.write_default}}) {
    const Json* value = FindMember(json, key);
    if (value == nullptr) continue;
    if (JsonDeeperThan(*value, kMaxTypeDepth)) {
      return Status::Corruption(where + ": field '" + key + "' nests deeper than " +
                                std::to_string(kMaxTypeDepth));
    }
    *target = *value;
  }
  return field;
}

Result<Type> TypeFromJson(const Json& json, int depth) {
  if (depth > kMaxTypeDepth) {
    return Status::Corruption("type nesting deeper than " + std::to_string(kMaxTypeDepth));
  }
  if (json.is_string()) return ParsePrimitiveType(json.get<std::string>());
  if (!json.is_object()) {
    return Status::Corruption(std::string("type must be a string or an object, got ") + json.type_name());
  }
  FLOE_ASSIGN_OR_RETURN(std::string kind, GetString(json, "type"));
  if (kind == "struct") {
    FLOE_ASSIGN_OR_RETURN(const Json* fields, GetArray(json, "fields"));
    Type out = PrimitiveType(TypeKind::kStruct);
    out.fields.reserve(fields->size());
    for (const Json& f : *fields) {
      FLOE_ASSIGN_OR_RETURN(NestedField field, NestedFieldFromJson(f, depth));
      out.fields.push_back(std::move(field));
    }
    return out;
  }
  if (kind == "list") {
    FLOE_ASSIGN_OR_RETURN(int32_t element_id, GetInt32(json, "element-id"));
    FLOE_ASSIGN_OR_RETURN(bool element_required, GetBool(json, "element-required"));
    const Json* element = FindMember(json, "element");
    if (element == nullptr) return Status::Corruption("list: missing required field 'element'");
    FLOE_ASSIGN_OR_RETURN(Type element_type, TypeFromJson(*element, depth + 1));
    return ListType(element_id, std::move(element_type), element_required);
  }
  if (kind == "map") {
    FLOE_ASSIGN_OR_RETURN(int32_t key_id, GetInt32(json, "key-id"));
    FLOE_ASSIGN_OR_RETURN(int32_t value_id, GetInt32(json, "value-id"));
    FLOE_ASSIGN_OR_RETURN(bool value_required, GetBool(json, "value-required"));
    const Json* key = FindMember(json, "key");
    const Json* value = FindMember(json, "value");
    if (key == nullptr) return Status::Corruption("map: missing required field 'key'");
    if (value == nullptr) return Status::Corruption("map: missing required field 'value'");
    FLOE_ASSIGN_OR_RETURN(Type key_type, TypeFromJson(*key, depth + 1));
    FLOE_ASSIGN_OR_RETURN(Type value_type, TypeFromJson(*value, depth + 1));
    return MapType(key_id, std::move(key_type), value_id, std::move(value_type), value_required);
  }
  return Status::Corruption("unknown nested type '" + kind + "'");
}

int MinFormatVersion(const Type& type) {
  switch (type.kind) {
    case TypeKind::kUnknown:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: return 3;
    default: break;
  }
  int version = 1;
  for (const auto& f : type.fields) {
    version = std::max(version, MinFormatVersion(f.type));
    if (f.initial_default || f.write_default) version = std::max(version, 3);
  }
  return version;
}

bool CanPromote(const Type& from, const Type& to, int format_version) {
  if (from.is_primitive() && from == to) return true;
  switch (from.kind) {
    case TypeKind::kInt: return to.kind == TypeKind::kLong;
    case TypeKind::kFloat: return to.kind == TypeKind::kDouble;
    case TypeKind::kDecimal:
      return to.kind == TypeKind::kDecimal && to.scale == from.scale && to.precision >= from.precision;
    case TypeKind::kDate:
      return format_version >= 3 && (to.kind == TypeKind::kTimestamp || to.kind == TypeKind::kTimestampNs);
    default: return false;
  }
}

Result<Field> ToFloeField(const NestedField& field) {
  auto type = ToFloeType(field.type);
  if (!type.ok()) return type.status().WithContext("field '" + field.name + "'");
  return MakeField(field.name, std::move(type).value(), !field.required, field.id);
}

Result<DataType> ToFloeType(const Type& type) {
  switch (type.kind) {
    case TypeKind::kUnknown: return Status::NotSupported("Iceberg type 'unknown' has no floe column type");
    case TypeKind::kBoolean: return Bool();
    case TypeKind::kInt: return Int32();
    case TypeKind::kLong: return Int64();
    case TypeKind::kFloat: return Float32();
    case TypeKind::kDouble: return Float64();
    case TypeKind::kDecimal: return Decimal(type.precision, type.scale);
    case TypeKind::kDate: return Date();
    case TypeKind::kTime: return Time(TimeUnit::kMicro);
    case TypeKind::kTimestamp: return Timestamp(TimeUnit::kMicro, false);
    case TypeKind::kTimestampTz: return Timestamp(TimeUnit::kMicro, true);
    case TypeKind::kTimestampNs: return Timestamp(TimeUnit::kNano, false);
    case TypeKind::kTimestampTzNs: return Timestamp(TimeUnit::kNano, true);
    case TypeKind::kString: return String();
    case TypeKind::kUuid: return Uuid();
    case TypeKind::kFixed: return FixedBinary(type.length);
    case TypeKind::kBinary: return Binary();
    case TypeKind::kStruct: {
      std::vector<Field> members;
      for (const auto& f : type.fields) {
        FLOE_ASSIGN_OR_RETURN(Field member, ToFloeField(f));
        members.push_back(std::move(member));
      }
      return Struct(std::move(members));
    }
    case TypeKind::kList: {
      FLOE_ASSIGN_OR_RETURN(Field element, ToFloeField(type.element()));
      return List(std::move(element));
    }
    case TypeKind::kMap: {
      FLOE_ASSIGN_OR_RETURN(Field key, ToFloeField(type.key()));
      FLOE_ASSIGN_OR_RETURN(Field value, ToFloeField(type.value()));
      return Map(std::move(key), std::move(value));
    }
  }
  return Status::Internal("unhandled Iceberg type kind");
}

namespace {

Result<int32_t> FieldIdOf(const Field& field, int32_t* next_id) {
  if (field.field_id) return *field.field_id;
  if (next_id == nullptr) {
    return Status::InvalidArgument("field '" + field.name + "' has no field id");
  }
  return (*next_id)++;
}

}  // namespace

Result<NestedField> FromFloeField(const Field& field, int format_version, int32_t* next_id) {
  FLOE_ASSIGN_OR_RETURN(int32_t id, FieldIdOf(field, next_id));
  auto type = FromFloeType(field.type, format_version, next_id);
  if (!type.ok()) return type.status().WithContext("field '" + field.name + "'");
  return MakeNestedField(id, field.name, std::move(type).value(), !field.nullable);
}

Result<Type> FromFloeType(const DataType& type, int format_version, int32_t* next_id) {
  switch (type.id) {
    case TypeId::kBool: return PrimitiveType(TypeKind::kBoolean);
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kUInt8:
    case TypeId::kUInt16: return PrimitiveType(TypeKind::kInt);
    case TypeId::kInt64:
    case TypeId::kUInt32: return PrimitiveType(TypeKind::kLong);
    case TypeId::kUInt64:
      return Status::NotSupported("uint64 does not fit an Iceberg long; cast it to decimal(20,0) first");
    case TypeId::kFloat16:
    case TypeId::kFloat32: return PrimitiveType(TypeKind::kFloat);
    case TypeId::kFloat64: return PrimitiveType(TypeKind::kDouble);
    case TypeId::kDecimal:
      if (type.precision < 1 || type.precision > 38 || type.scale < 0 || type.scale > 38) {
        return Status::NotSupported("Iceberg decimals need precision 1..38 and scale 0..38, got " +
                                    type.ToString());
      }
      return DecimalType(type.precision, type.scale);
    case TypeId::kDate: return PrimitiveType(TypeKind::kDate);
    case TypeId::kTime:
      if (type.unit == TimeUnit::kNano) {
        return Status::NotSupported(
            "Iceberg time has microsecond precision; nanosecond times are not supported");
      }
      return PrimitiveType(TypeKind::kTime);
    case TypeId::kTimestamp:
      if (type.unit == TimeUnit::kNano) {
        if (format_version < 3) {
          return Status::NotSupported("nanosecond timestamps need Iceberg format version 3");
        }
        return PrimitiveType(type.utc ? TypeKind::kTimestampTzNs : TypeKind::kTimestampNs);
      }
      return PrimitiveType(type.utc ? TypeKind::kTimestampTz : TypeKind::kTimestamp);
    case TypeId::kString: return PrimitiveType(TypeKind::kString);
    case TypeId::kBinary: return PrimitiveType(TypeKind::kBinary);
    case TypeId::kFixedBinary:
      if (type.byte_width < 1) return Status::NotSupported("fixed binary needs a positive width");
      return FixedType(type.byte_width);
    case TypeId::kUuid: return PrimitiveType(TypeKind::kUuid);
    case TypeId::kStruct: {
      std::vector<NestedField> members;
      for (const auto& child : type.children) {
        FLOE_ASSIGN_OR_RETURN(NestedField member, FromFloeField(child, format_version, next_id));
        members.push_back(std::move(member));
      }
      return StructType(std::move(members));
    }
    case TypeId::kList: {
      if (type.children.size() != 1) return Status::InvalidArgument("list type needs exactly one child");
      FLOE_ASSIGN_OR_RETURN(NestedField element, FromFloeField(type.children[0], format_version, next_id));
      return ListType(element.id, std::move(element.type), element.required);
    }
    case TypeId::kMap: {
      if (type.children.size() != 2) return Status::InvalidArgument("map type needs key and value children");
      FLOE_ASSIGN_OR_RETURN(NestedField key, FromFloeField(type.children[0], format_version, next_id));
      FLOE_ASSIGN_OR_RETURN(NestedField value, FromFloeField(type.children[1], format_version, next_id));
      return MapType(key.id, std::move(key.type), value.id, std::move(value.type), value.required);
    }
  }
  return Status::Internal("unhandled floe type id");
}

}  // namespace floe::iceberg
