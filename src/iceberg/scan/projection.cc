#include "iceberg/scan/projection.h"

#include <cstring>
#include <utility>

#include "iceberg/scan/predicate.h"
#include "iceberg/spec/json_util.h"

namespace floe::iceberg {
namespace {

constexpr int kMaxMappingDepth = 64;

Result<std::vector<MappedField>> ParseMappedFields(const Json& json, int depth) {
  if (depth > kMaxMappingDepth) return Status::Corruption("name mapping nests too deeply");
  if (!json.is_array()) return Status::Corruption("name mapping: expected an array of fields");
  std::vector<MappedField> out;
  for (const Json& entry : json) {
    FLOE_RETURN_IF_ERROR(RequireObject(entry, "name mapping field"));
    MappedField field;
    if (const Json* id = FindMember(entry, "field-id"); id != nullptr && !id->is_null()) {
      FLOE_ASSIGN_OR_RETURN(field.field_id, JsonToInt32(*id, "name mapping field-id"));
    }
    if (const Json* names = FindMember(entry, "names"); names != nullptr) {
      if (!names->is_array()) return Status::Corruption("name mapping: 'names' is not an array");
      for (const Json& name : *names) {
        if (!name.is_string()) return Status::Corruption("name mapping: a name is not a string");
        field.names.push_back(name.get<std::string>());
      }
    }
    if (const Json* fields = FindMember(entry, "fields"); fields != nullptr && !fields->is_null()) {
      FLOE_ASSIGN_OR_RETURN(field.fields, ParseMappedFields(*fields, depth + 1));
    }
    out.push_back(std::move(field));
  }
  return out;
}

const MappedField* FindMapped(const std::vector<MappedField>& mapping, const std::string& name) {
  for (const MappedField& field : mapping) {
    for (const std::string& candidate : field.names) {
      if (candidate == name) return &field;
    }
  }
  return nullptr;
}

void ApplyMappingToField(const MappedField& mapped, floe::Field* field) {
  field->field_id = mapped.field_id;
  DataType& type = field->type;
  if (type.id == TypeId::kStruct) {
    for (floe::Field& child : type.children) {
      if (const MappedField* m = FindMapped(mapped.fields, child.name)) ApplyMappingToField(*m, &child);
    }
  } else if (type.id == TypeId::kList && !type.children.empty()) {
    const MappedField* m = FindMapped(mapped.fields, "element");
    if (m == nullptr && !mapped.fields.empty()) m = &mapped.fields[0];
    if (m != nullptr) ApplyMappingToField(*m, &type.children[0]);
  } else if (type.id == TypeId::kMap && type.children.size() == 2) {
    if (const MappedField* m = FindMapped(mapped.fields, "key")) ApplyMappingToField(*m, &type.children[0]);
    if (const MappedField* m = FindMapped(mapped.fields, "value")) ApplyMappingToField(*m, &type.children[1]);
  }
}

void AssignByName(const std::vector<NestedField>& table_fields, std::vector<floe::Field>* file_fields) {
  for (floe::Field& field : *file_fields) {
    for (const NestedField& table_field : table_fields) {
      if (table_field.name != field.name) continue;
      field.field_id = table_field.id;
      if (field.type.id == TypeId::kStruct && table_field.type.kind == TypeKind::kStruct) {
        AssignByName(table_field.type.fields, &field.type.children);
      } else if (field.type.id == TypeId::kList && table_field.type.kind == TypeKind::kList &&
                 !field.type.children.empty()) {
        floe::Field& element = field.type.children[0];
        element.field_id = table_field.type.element().id;
        if (element.type.id == TypeId::kStruct && table_field.type.element().type.kind == TypeKind::kStruct) {
          AssignByName(table_field.type.element().type.fields, &element.type.children);
        }
      } else if (field.type.id == TypeId::kMap && table_field.type.kind == TypeKind::kMap &&
                 field.type.children.size() == 2) {
        field.type.children[0].field_id = table_field.type.key().id;
        field.type.children[1].field_id = table_field.type.value().id;
        if (field.type.children[1].type.id == TypeId::kStruct &&
            table_field.type.value().type.kind == TypeKind::kStruct) {
          AssignByName(table_field.type.value().type.fields, &field.type.children[1].type.children);
        }
      }
      break;
    }
  }
}

bool AnyId(const std::vector<floe::Field>& fields) {
  for (const floe::Field& field : fields) {
    if (field.field_id.has_value() || AnyId(field.type.children)) return true;
  }
  return false;
}

void SetAllNull(Column* column) {
  column->null_count = column->length;
  column->validity.assign(static_cast<size_t>((column->length + 7) / 8), 0);
}

// A column of `type` and `length` whose every slot is null (children too).
Column MakeNullColumnOfType(const DataType& type, int64_t length) {
  Column column = MakeEmptyColumn(type);
  column.length = length;
  SetAllNull(&column);
  const int32_t width = type.fixed_width();
  if (width > 0) column.values.assign(static_cast<size_t>(length) * static_cast<size_t>(width), 0);
  if (type.is_binary_like() || type.id == TypeId::kList || type.id == TypeId::kMap) {
    column.offsets.assign(static_cast<size_t>(length) + 1, 0);
  }
  if (type.id == TypeId::kStruct) {
    for (size_t i = 0; i < type.children.size(); ++i) {
      column.children[i] = MakeNullColumnOfType(type.children[i].type, length);
    }
  }
  return column;
}

Result<Literal> DefaultLiteral(const NestedField& field) {
  const Json& json = *field.initial_default;
  if (json.is_null()) return Literal::Null();
  if (!field.type.is_primitive()) {
    return Status::NotSupported("initial-default of nested field '" + field.name + "' is not supported");
  }
  if (json.is_boolean()) {
    if (field.type.kind != TypeKind::kBoolean)
      return Status::Corruption("bad initial-default of '" + field.name + "'");
    return Literal::Boolean(json.get<bool>());
  }
  if (json.is_number_integer() || json.is_number_unsigned()) {
    const int64_t v = json.get<int64_t>();
    switch (field.type.kind) {
      case TypeKind::kInt: return Literal::Int(static_cast<int32_t>(v));
      case TypeKind::kLong: return Literal::Long(v);
      case TypeKind::kFloat: return Literal::Float(static_cast<float>(v));
      case TypeKind::kDouble: return Literal::Double(static_cast<double>(v));
      default: break;
    }
  }
  if (json.is_number_float()) {
    if (field.type.kind == TypeKind::kFloat) return Literal::Float(json.get<float>());
    if (field.type.kind == TypeKind::kDouble) return Literal::Double(json.get<double>());
  }
  if (json.is_string()) {
    auto literal = ParseLiteral(json.get<std::string>(), field.type);
    if (!literal.ok()) return literal.status().WithContext("initial-default of '" + field.name + "'");
    return literal;
  }
  return Status::Corruption("initial-default of '" + field.name + "' does not fit type " +
                            field.type.ToString());
}

// Reads any integer column as int64 values.
Result<std::vector<int64_t>> IntegersOf(const Column& column) {
  std::vector<int64_t> out(static_cast<size_t>(column.length));
  for (int64_t i = 0; i < column.length; ++i) {
    switch (column.type.id) {
      case TypeId::kInt8: out[i] = column.Value<int8_t>(i); break;
      case TypeId::kInt16: out[i] = column.Value<int16_t>(i); break;
      case TypeId::kInt32: out[i] = column.Value<int32_t>(i); break;
      case TypeId::kInt64: out[i] = column.Value<int64_t>(i); break;
      case TypeId::kUInt8: out[i] = column.Value<uint8_t>(i); break;
      case TypeId::kUInt16: out[i] = column.Value<uint16_t>(i); break;
      case TypeId::kUInt32: out[i] = column.Value<uint32_t>(i); break;
      default: return Status::Internal("not an integer column");
    }
  }
  return out;
}

bool IsSmallInteger(TypeId id) {
  return id == TypeId::kInt8 || id == TypeId::kInt16 || id == TypeId::kInt32 || id == TypeId::kUInt8 ||
         id == TypeId::kUInt16 || id == TypeId::kUInt32;
}

template <typename T>
void StoreValues(const std::vector<T>& values, Column* column) {
  column->values.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(column->values.data(), values.data(), column->values.size());
}

// Rescales int64 time values between units (floor division when coarsening).
Status RescaleTime(Column* column, TimeUnit from, TimeUnit to, const std::string& name) {
  if (from == to) return Status::OK();
  const int64_t f = TicksPerSecond(from), t = TicksPerSecond(to);
  for (int64_t i = 0; i < column->length; ++i) {
    int64_t v = column->Value<int64_t>(i);
    if (t > f) {
      const int64_t factor = t / f;
      if (__builtin_mul_overflow(v, factor, &v)) {
        return Status::OutOfRange("value of '" + name + "' overflows when converted to a finer time unit");
      }
    } else {
      v = FloorDiv(v, f / t);
    }
    std::memcpy(column->values.data() + i * 8, &v, 8);
  }
  return Status::OK();
}

Result<Column> ConvertColumn(Column column, const NestedField& target);

Result<Column> ConvertPrimitive(Column column, const NestedField& target, const DataType& want) {
  const DataType& have = column.type;
  auto mismatch = [&]() {
    return Status::SchemaMismatch("column '" + target.name + "' (field id " + std::to_string(target.id) +
                                  ") has file type " + have.ToString() + ", which cannot be read as " +
                                  target.type.ToString());
  };
  if (have == want) return column;
  if (have.is_binary_like() && want.is_binary_like()) {
    column.type = want;
    return column;
  }
  if ((want.id == TypeId::kInt32 && IsSmallInteger(have.id) && have.id != TypeId::kUInt32) ||
      (want.id == TypeId::kInt64 && (IsSmallInteger(have.id) || have.id == TypeId::kInt64))) {
    FLOE_ASSIGN_OR_RETURN(std::vector<int64_t> values, IntegersOf(column));
    if (want.id == TypeId::kInt32) {
      std::vector<int32_t> narrow(values.begin(), values.end());
      StoreValues(narrow, &column);
    } else {
      StoreValues(values, &column);
    }
    column.type = want;
    return column;
  }
  if (want.id == TypeId::kFloat64 && have.id == TypeId::kFloat32) {
    std::vector<double> values(static_cast<size_t>(column.length));
    for (int64_t i = 0; i < column.length; ++i) values[i] = column.Value<float>(i);
    StoreValues(values, &column);
    column.type = want;
    return column;
  }
  if (want.id == TypeId::kDecimal && have.id == TypeId::kDecimal) {
    if (have.scale != want.scale || have.precision > want.precision) return mismatch();
    column.type = want;
    return column;
  }
  if ((want.id == TypeId::kUuid || want.id == TypeId::kFixedBinary) &&
      (have.id == TypeId::kUuid || have.id == TypeId::kFixedBinary) &&
      have.fixed_width() == want.fixed_width()) {
    column.type = want;
    return column;
  }
  if ((want.id == TypeId::kTimestamp && have.id == TypeId::kTimestamp) ||
      (want.id == TypeId::kTime && have.id == TypeId::kTime)) {
    FLOE_RETURN_IF_ERROR(RescaleTime(&column, have.unit, want.unit, target.name));
    column.type = want;
    return column;
  }
  if (want.id == TypeId::kTimestamp && have.id == TypeId::kDate) {
    std::vector<int64_t> values(static_cast<size_t>(column.length));
    const int64_t per_day = 86400 * TicksPerSecond(want.unit);
    for (int64_t i = 0; i < column.length; ++i) values[i] = int64_t{column.Value<int32_t>(i)} * per_day;
    StoreValues(values, &column);
    column.type = want;
    return column;
  }
  return mismatch();
}

Result<Column> ConvertStruct(Column column, const NestedField& target, const DataType& want) {
  if (column.type.id != TypeId::kStruct) {
    return Status::SchemaMismatch("column '" + target.name + "' is " + column.type.ToString() +
                                  " in the file but a struct in the table");
  }
  Column out = MakeEmptyColumn(want);
  out.length = column.length;
  out.null_count = column.null_count;
  out.validity = std::move(column.validity);
  out.children.clear();
  for (const NestedField& member : target.type.fields) {
    int found = -1;
    for (size_t i = 0; i < column.type.children.size(); ++i) {
      if (column.type.children[i].field_id == member.id) found = static_cast<int>(i);
    }
    if (found >= 0) {
      auto converted = ConvertColumn(std::move(column.children[static_cast<size_t>(found)]), member);
      if (!converted.ok()) return converted.status().WithContext(target.name);
      out.children.push_back(std::move(*converted));
    } else {
      Literal fill = Literal::Null();
      if (member.initial_default.has_value()) {
        FLOE_ASSIGN_OR_RETURN(fill, DefaultLiteral(member));
      }
      FLOE_ASSIGN_OR_RETURN(Column filled, MakeConstantColumn(member.type, fill, out.length));
      out.children.push_back(std::move(filled));
    }
  }
  return out;
}

Result<Column> ConvertColumn(Column column, const NestedField& target) {
  FLOE_ASSIGN_OR_RETURN(DataType want, ToFloeType(target.type));
  switch (target.type.kind) {
    case TypeKind::kStruct: return ConvertStruct(std::move(column), target, want);
    case TypeKind::kList: {
      if (column.type.id != TypeId::kList || column.children.size() != 1) {
        return Status::SchemaMismatch("column '" + target.name + "' is not a list in the file");
      }
      FLOE_ASSIGN_OR_RETURN(column.children[0],
                            ConvertColumn(std::move(column.children[0]), target.type.element()));
      column.type = want;
      return column;
    }
    case TypeKind::kMap: {
      if (column.type.id != TypeId::kMap || column.children.size() != 2) {
        return Status::SchemaMismatch("column '" + target.name + "' is not a map in the file");
      }
      FLOE_ASSIGN_OR_RETURN(column.children[0],
                            ConvertColumn(std::move(column.children[0]), target.type.key()));
      FLOE_ASSIGN_OR_RETURN(column.children[1],
                            ConvertColumn(std::move(column.children[1]), target.type.value()));
      column.type = want;
      return column;
    }
    default: return ConvertPrimitive(std::move(column), target, want);
  }
}

}  // namespace

Result<std::vector<MappedField>> ParseNameMapping(std::string_view json_text) {
  FLOE_ASSIGN_OR_RETURN(Json json, ParseJson(json_text));
  auto mapping = ParseMappedFields(json, 0);
  if (!mapping.ok()) return mapping.status().WithContext(kNameMappingProperty);
  return mapping;
}

bool HasAnyFieldId(const floe::Schema& schema) {
  return AnyId(schema);
}

void ApplyNameMapping(const std::vector<MappedField>& mapping, floe::Schema* file_schema) {
  for (floe::Field& field : *file_schema) {
    if (const MappedField* m = FindMapped(mapping, field.name)) ApplyMappingToField(*m, &field);
  }
}

void AssignIdsByName(const Schema& table_schema, floe::Schema* file_schema) {
  AssignByName(table_schema.fields, file_schema);
}

Result<Column> MakeConstantColumn(const Type& type, const Literal& value, int64_t length) {
  FLOE_ASSIGN_OR_RETURN(DataType floe_type, ToFloeType(type));
  if (value.is_null()) return MakeNullColumnOfType(floe_type, length);
  Column column = MakeEmptyColumn(floe_type);
  for (int64_t i = 0; i < length; ++i) {
    switch (type.kind) {
      case TypeKind::kBoolean: column.AppendValue<uint8_t>(value.int_value != 0 ? 1 : 0); break;
      case TypeKind::kInt:
      case TypeKind::kDate: column.AppendValue<int32_t>(static_cast<int32_t>(value.int_value)); break;
      case TypeKind::kLong:
      case TypeKind::kTime:
      case TypeKind::kTimestamp:
      case TypeKind::kTimestampTz:
      case TypeKind::kTimestampNs:
      case TypeKind::kTimestampTzNs: column.AppendValue<int64_t>(value.int_value); break;
      case TypeKind::kFloat: column.AppendValue<float>(static_cast<float>(value.double_value)); break;
      case TypeKind::kDouble: column.AppendValue<double>(value.double_value); break;
      case TypeKind::kDecimal: column.AppendValue<Int128>(value.unscaled); break;
      case TypeKind::kString:
      case TypeKind::kBinary: column.AppendBytes(value.bytes); break;
      case TypeKind::kUuid:
      case TypeKind::kFixed:
        if (static_cast<int32_t>(value.bytes.size()) != floe_type.fixed_width()) {
          return Status::InvalidArgument("constant of the wrong width for " + type.ToString());
        }
        column.AppendFixed(reinterpret_cast<const uint8_t*>(value.bytes.data()));
        break;
      default: return Status::NotSupported("constant columns of type " + type.ToString());
    }
  }
  column.length = length;
  return column;
}

Result<FileProjection> FileProjection::Make(const floe::Schema& file_schema,
                                            std::vector<NestedField> read_fields) {
  FileProjection projection;
  Schema read_schema_view;
  read_schema_view.fields = read_fields;
  FLOE_ASSIGN_OR_RETURN(projection.output_schema_, ToFloeSchema(read_schema_view));
  projection.read_fields_ = std::move(read_fields);
  for (const NestedField& field : projection.read_fields_) {
    int found = -1;
    for (size_t i = 0; i < file_schema.size(); ++i) {
      if (file_schema[i].field_id == field.id) found = static_cast<int>(i);
    }
    if (found < 0) {
      if (field.required && !field.initial_default.has_value()) {
        return Status::SchemaMismatch("required column '" + field.name + "' (field id " +
                                      std::to_string(field.id) +
                                      ") is missing from the data file and has no initial-default");
      }
      projection.source_index_.push_back(-1);
      projection.file_fields_.push_back(floe::Field{});
    } else {
      projection.source_index_.push_back(static_cast<int>(projection.file_columns_.size()));
      projection.file_columns_.push_back(found);
      projection.file_fields_.push_back(file_schema[static_cast<size_t>(found)]);
    }
  }
  return projection;
}

Result<RecordBatch> FileProjection::Project(RecordBatch file_batch) const {
  // Readers treat an empty column selection as "all columns"; only the row
  // count matters then.
  if (file_columns_.empty()) file_batch.columns.clear();
  if (file_batch.columns.size() != file_columns_.size()) {
    return Status::Internal("projection got " + std::to_string(file_batch.columns.size()) +
                            " columns, expected " + std::to_string(file_columns_.size()));
  }
  RecordBatch out;
  out.schema = output_schema_;
  out.num_rows = file_batch.num_rows;
  for (size_t i = 0; i < read_fields_.size(); ++i) {
    const NestedField& field = read_fields_[i];
    if (source_index_[i] < 0) {
      Literal fill = Literal::Null();
      if (field.initial_default.has_value()) {
        FLOE_ASSIGN_OR_RETURN(fill, DefaultLiteral(field));
      }
      FLOE_ASSIGN_OR_RETURN(Column column, MakeConstantColumn(field.type, fill, out.num_rows));
      out.columns.push_back(std::move(column));
      continue;
    }
    Column& source = file_batch.columns[static_cast<size_t>(source_index_[i])];
    source.type = file_fields_[i].type;  // carries the (possibly mapped) field ids of members
    FLOE_ASSIGN_OR_RETURN(Column column, ConvertColumn(std::move(source), field));
    out.columns.push_back(std::move(column));
  }
  return out;
}

}  // namespace floe::iceberg
