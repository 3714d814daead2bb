#include "formats/connect/connect_types.h"

#include <charconv>

namespace floe::connect {

namespace {

std::optional<int32_t> ParseInt(const std::string& text) {
  int32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

Status WrongPhysicalType(const ConnectSchema& schema, std::string_view path, const char* expected) {
  return Status::SchemaMismatch(std::string(path) + ": " + schema.name + " needs Connect type " + expected +
                                ", got " + ConnectTypeName(schema.type));
}

Result<DataType> PhysicalType(const ConnectSchema& schema, std::string_view path,
                              const ConnectTypeOptions& options) {
  switch (schema.type) {
    case ConnectType::kInt8: return Int8();
    case ConnectType::kInt16: return Int16();
    case ConnectType::kInt32: return Int32();
    case ConnectType::kInt64: return Int64();
    case ConnectType::kFloat32: return Float32();
    case ConnectType::kFloat64: return Float64();
    case ConnectType::kBoolean: return Bool();
    case ConnectType::kString: return String();
    case ConnectType::kBytes: return Binary();
    case ConnectType::kArray: {
      if (schema.children.size() != 1) return Status::Corruption(std::string(path) + ": array without items");
      FLOE_ASSIGN_OR_RETURN(Field element,
                            FloeFieldOf("element", schema.children[0], std::string(path) + "[]", options));
      return List(std::move(element));
    }
    case ConnectType::kMap: {
      if (schema.children.size() != 2)
        return Status::Corruption(std::string(path) + ": map without keys and values");
      FLOE_ASSIGN_OR_RETURN(Field key,
                            FloeFieldOf("key", schema.children[0], std::string(path) + ".key", options));
      FLOE_ASSIGN_OR_RETURN(Field value,
                            FloeFieldOf("value", schema.children[1], std::string(path) + ".value", options));
      key.nullable = false;  // map keys are never null
      return Map(std::move(key), std::move(value));
    }
    case ConnectType::kStruct: {
      FLOE_ASSIGN_OR_RETURN(Schema members, FloeSchemaOf(schema, path, options));
      return Struct(std::move(members));
    }
  }
  return Status::Internal(std::string(path) + ": unknown Connect type");
}

}  // namespace

Result<std::pair<int32_t, int32_t>> DecimalPrecisionAndScale(const ConnectSchema& schema,
                                                             std::string_view path) {
  const std::string* scale_text = schema.Parameter("scale");
  if (scale_text == nullptr) {
    return Status::SchemaMismatch(std::string(path) + ": Decimal schema without its \"scale\" parameter");
  }
  std::optional<int32_t> scale = ParseInt(*scale_text);
  if (!scale) {
    return Status::SchemaMismatch(std::string(path) + ": Decimal scale \"" + *scale_text +
                                  "\" is not an integer");
  }
  if (*scale < 0 || *scale > 38) {
    return Status::SchemaMismatch(std::string(path) + ": Decimal scale " + *scale_text +
                                  " is outside 0..38 (floe decimals hold at most 38 digits)");
  }
  int32_t precision = 38;
  if (const std::string* text = schema.Parameter("connect.decimal.precision")) {
    std::optional<int32_t> p = ParseInt(*text);
    if (!p || *p < 1 || *p > 38) {
      return Status::SchemaMismatch(std::string(path) + ": Decimal precision \"" + *text +
                                    "\" is outside 1..38 (floe decimals hold at most 38 digits)");
    }
    precision = std::max(*p, *scale);
  }
  return std::make_pair(precision, *scale);
}

Result<DataType> FloeTypeOf(const ConnectSchema& schema, std::string_view path,
                            const ConnectTypeOptions& options) {
  auto need = [&](ConnectType type, const char* name) -> Status {
    return schema.type == type ? Status::OK() : WrongPhysicalType(schema, path, name);
  };
  switch (schema.semantic) {
    case SemanticType::kNone: return PhysicalType(schema, path, options);
    case SemanticType::kDecimal: {
      FLOE_RETURN_IF_ERROR(need(ConnectType::kBytes, "bytes"));
      FLOE_ASSIGN_OR_RETURN(auto ps, DecimalPrecisionAndScale(schema, path));
      return Decimal(ps.first, ps.second);
    }
    case SemanticType::kDate:
    case SemanticType::kDebeziumDate: FLOE_RETURN_IF_ERROR(need(ConnectType::kInt32, "int32")); return Date();
    case SemanticType::kTime:
    case SemanticType::kDebeziumTime:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kInt32, "int32"));
      return Time(TimeUnit::kMilli);
    case SemanticType::kDebeziumMicroTime:
    case SemanticType::kAvroTimeMicros:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kInt64, "int64"));
      return Time(TimeUnit::kMicro);
    case SemanticType::kDebeziumNanoTime:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kInt64, "int64"));
      return Time(TimeUnit::kNano);
    case SemanticType::kTimestamp:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kInt64, "int64"));
      return Timestamp(TimeUnit::kMilli, true);
    case SemanticType::kDebeziumTimestamp:
    case SemanticType::kAvroLocalTimestampMillis:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kInt64, "int64"));
      return Timestamp(TimeUnit::kMilli, false);
    case SemanticType::kDebeziumMicroTimestamp:
    case SemanticType::kAvroLocalTimestampMicros:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kInt64, "int64"));
      return Timestamp(TimeUnit::kMicro, false);
    case SemanticType::kAvroTimestampMicros:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kInt64, "int64"));
      return Timestamp(TimeUnit::kMicro, true);
    case SemanticType::kDebeziumNanoTimestamp:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kInt64, "int64"));
      return Timestamp(TimeUnit::kNano, false);
    case SemanticType::kDebeziumZonedTimestamp:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kString, "string"));
      return Timestamp(TimeUnit::kMicro, true);
    case SemanticType::kDebeziumZonedTime:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kString, "string"));
      return Time(TimeUnit::kMicro);
    case SemanticType::kDebeziumVariableScaleDecimal: {
      FLOE_RETURN_IF_ERROR(need(ConnectType::kStruct, "struct"));
      const ConnectField* scale = schema.Field("scale");
      const ConnectField* value = schema.Field("value");
      if (scale == nullptr || value == nullptr || scale->schema.type != ConnectType::kInt32 ||
          value->schema.type != ConnectType::kBytes) {
        return Status::SchemaMismatch(
            std::string(path) + ": VariableScaleDecimal needs the fields scale (int32) and value (bytes)");
      }
      if (options.variable_scale_decimal_scale) {
        const int32_t s = *options.variable_scale_decimal_scale;
        if (s < 0 || s > 38) return Status::InvalidArgument("variable-scale decimal scale must be 0..38");
        return Decimal(38, s);
      }
      return String();
    }
    case SemanticType::kDebeziumJson: {
      FLOE_RETURN_IF_ERROR(need(ConnectType::kString, "string"));
      DataType type = String();
      type.annotation = DataType::Annotation::kJson;
      return type;
    }
    case SemanticType::kDebeziumEnum: {
      FLOE_RETURN_IF_ERROR(need(ConnectType::kString, "string"));
      DataType type = String();
      type.annotation = DataType::Annotation::kEnum;
      return type;
    }
    case SemanticType::kDebeziumEnumSet:
    case SemanticType::kDebeziumXml:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kString, "string"));
      return String();
    case SemanticType::kDebeziumUuid:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kString, "string"));
      return Uuid();
    case SemanticType::kAvroUuid:
      if (schema.type != ConnectType::kString && schema.type != ConnectType::kBytes) {
        return WrongPhysicalType(schema, path, "string or bytes");
      }
      return Uuid();
    case SemanticType::kDebeziumBits:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kBytes, "bytes"));
      return Binary();
    case SemanticType::kDebeziumYear:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kInt32, "int32"));
      return Int32();
    case SemanticType::kDebeziumMicroDuration:
      FLOE_RETURN_IF_ERROR(need(ConnectType::kInt64, "int64"));
      return Int64();
  }
  return Status::Internal(std::string(path) + ": unknown semantic type");
}

Result<Field> FloeFieldOf(const std::string& name, const ConnectSchema& schema, std::string_view path,
                          const ConnectTypeOptions& options) {
  FLOE_ASSIGN_OR_RETURN(DataType type, FloeTypeOf(schema, path, options));
  return MakeField(name, std::move(type), schema.optional);
}

Result<Schema> FloeSchemaOf(const ConnectSchema& struct_schema, std::string_view path,
                            const ConnectTypeOptions& options) {
  if (struct_schema.type != ConnectType::kStruct) {
    return Status::SchemaMismatch(std::string(path) + ": expected a struct schema, got " +
                                  ConnectTypeName(struct_schema.type));
  }
  Schema members;
  for (const auto& field : struct_schema.fields) {
    std::string member_path = path.empty() ? field.name : std::string(path) + "." + field.name;
    FLOE_ASSIGN_OR_RETURN(Field member, FloeFieldOf(field.name, field.schema, member_path, options));
    members.push_back(std::move(member));
  }
  return members;
}

}  // namespace floe::connect
