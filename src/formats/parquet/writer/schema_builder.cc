// floe type -> Parquet physical type + logical/converted annotations:
//   bool BOOLEAN; int8/16 INT32 INTEGER(8/16, signed) INT_8/INT_16; int32 INT32;
//   int64 INT64; uint8/16/32 INT32 INTEGER(n, unsigned) UINT_n; uint64 INT64
//   INTEGER(64, unsigned) UINT_64; float16 FLBA(2) FLOAT16; float32 FLOAT;
//   float64 DOUBLE; decimal INT32 (p <= 9) / INT64 (p <= 18) / FLBA(minimal)
//   DECIMAL; date INT32 DATE; time ms INT32 TIME_MILLIS, us/ns INT64;
//   timestamp INT64 TIMESTAMP (converted type only when UTC-adjusted, as the
//   spec's compatibility rules require) or INT96 when annotated kInt96;
//   string BYTE_ARRAY STRING (ENUM/JSON when annotated); binary BYTE_ARRAY
//   (BSON when annotated); fixed binary FLBA(n) (INTERVAL when annotated);
//   uuid FLBA(16) UUID.
#include "formats/parquet/writer/schema_builder.h"

#include <utility>

namespace floe::parquet {

namespace {

constexpr int kMaxNestingDepth = 64;

LogicalType IntegerLogical(int bits, bool is_signed) {
  LogicalType t;
  t.kind = LogicalType::INTEGER;
  t.bit_width = static_cast<int8_t>(bits);
  t.is_signed = is_signed;
  return t;
}

LogicalType SimpleLogical(int32_t kind) {
  LogicalType t;
  t.kind = kind;
  return t;
}

TimeUnitKind UnitKind(TimeUnit unit) {
  switch (unit) {
    case TimeUnit::kMilli: return TimeUnitKind::MILLIS;
    case TimeUnit::kMicro: return TimeUnitKind::MICROS;
    case TimeUnit::kNano: return TimeUnitKind::NANOS;
  }
  return TimeUnitKind::MICROS;
}

class SchemaMapper {
 public:
  Status AddTopLevel(const Field& field, int index) {
    top_level_ = index;
    std::vector<ShredStep> steps;
    std::vector<std::string> path;
    return AddField(field, field.nullable ? FieldRepetitionType::OPTIONAL : FieldRepetitionType::REQUIRED, 0,
                    0, &steps, &path, 0);
  }
  WriterSchema Take() { return std::move(out_); }

 private:
  // Appends the element(s) for `field`; `steps`/`path` describe its ancestors.
  Status AddField(const Field& field, FieldRepetitionType repetition, int16_t def, int16_t rep,
                  std::vector<ShredStep>* steps, std::vector<std::string>* path, int depth) {
    if (depth > kMaxNestingDepth) {
      return Status::InvalidArgument("field '" + field.name + "' is nested deeper than " +
                                     std::to_string(kMaxNestingDepth) + " levels");
    }
    const bool nullable = repetition == FieldRepetitionType::OPTIONAL;
    if (nullable) ++def;
    SchemaElement element;
    element.name = field.name;
    element.repetition_type = repetition;
    element.field_id = field.field_id;
    path->push_back(field.name);
    const DataType& type = field.type;
    Status status;
    switch (type.id) {
      case TypeId::kStruct: {
        if (type.children.empty()) {
          return Status::InvalidArgument("struct field '" + field.name +
                                         "' has no members; Parquet groups need at least one");
        }
        element.num_children = static_cast<int32_t>(type.children.size());
        out_.elements.push_back(std::move(element));
        for (size_t i = 0; i < type.children.size(); ++i) {
          const Field& member = type.children[i];
          steps->push_back({ShredStep::Kind::kStruct, nullable, static_cast<int>(i), 0});
          FLOE_RETURN_IF_ERROR(AddField(
              member, member.nullable ? FieldRepetitionType::OPTIONAL : FieldRepetitionType::REQUIRED, def,
              rep, steps, path, depth + 1));
          steps->pop_back();
        }
        break;
      }
      case TypeId::kList: {
        if (type.children.size() != 1) {
          return Status::InvalidArgument("list field '" + field.name +
                                         "' must have exactly one element field");
        }
        element.num_children = 1;
        element.converted_type = ConvertedType::LIST;
        element.logical_type = SimpleLogical(LogicalType::LIST);
        out_.elements.push_back(std::move(element));
        SchemaElement repeated;
        repeated.name = "list";
        repeated.repetition_type = FieldRepetitionType::REPEATED;
        repeated.num_children = 1;
        out_.elements.push_back(std::move(repeated));
        path->push_back("list");
        const Field& item = type.children[0];
        steps->push_back({ShredStep::Kind::kList, nullable, 0, static_cast<int16_t>(rep + 1)});
        FLOE_RETURN_IF_ERROR(
            AddField(item, item.nullable ? FieldRepetitionType::OPTIONAL : FieldRepetitionType::REQUIRED,
                     static_cast<int16_t>(def + 1), static_cast<int16_t>(rep + 1), steps, path, depth + 1));
        steps->pop_back();
        path->pop_back();
        break;
      }
      case TypeId::kMap: {
        if (type.children.size() != 2) {
          return Status::InvalidArgument("map field '" + field.name + "' must have a key and a value field");
        }
        element.num_children = 1;
        element.converted_type = ConvertedType::MAP;
        element.logical_type = SimpleLogical(LogicalType::MAP);
        out_.elements.push_back(std::move(element));
        SchemaElement key_value;
        key_value.name = "key_value";
        key_value.repetition_type = FieldRepetitionType::REPEATED;
        key_value.num_children = 2;
        out_.elements.push_back(std::move(key_value));
        path->push_back("key_value");
        for (int i = 0; i < 2; ++i) {
          const Field& child = type.children[static_cast<size_t>(i)];
          FieldRepetitionType child_rep =
              (i == 0 || !child.nullable) ? FieldRepetitionType::REQUIRED : FieldRepetitionType::OPTIONAL;
          steps->push_back({ShredStep::Kind::kMap, nullable, i, static_cast<int16_t>(rep + 1)});
          FLOE_RETURN_IF_ERROR(AddField(child, child_rep, static_cast<int16_t>(def + 1),
                                        static_cast<int16_t>(rep + 1), steps, path, depth + 1));
          steps->pop_back();
        }
        path->pop_back();
        break;
      }
      default: {
        WriteLeaf leaf;
        FLOE_RETURN_IF_ERROR(MapPrimitive(field, &element, &leaf));
        leaf.path = *path;
        leaf.top_level_field = top_level_;
        leaf.steps = *steps;
        leaf.steps.push_back({ShredStep::Kind::kLeaf, nullable, 0, 0});
        leaf.max_def_level = def;
        leaf.max_rep_level = rep;
        leaf.type = type;
        out_.elements.push_back(std::move(element));
        out_.leaves.push_back(std::move(leaf));
        break;
      }
    }
    path->pop_back();
    return Status::OK();
  }

  static Status MapPrimitive(const Field& field, SchemaElement* e, WriteLeaf* leaf) {
    const DataType& t = field.type;
    auto set = [&](Type physical, StatsOrder order) {
      e->type = physical;
      leaf->physical_type = physical;
      leaf->order = order;
    };
    auto set_flba = [&](int32_t width, StatsOrder order) {
      set(Type::FIXED_LEN_BYTE_ARRAY, order);
      e->type_length = width;
      leaf->type_length = width;
    };
    switch (t.id) {
      case TypeId::kBool: set(Type::BOOLEAN, StatsOrder::kBoolean); break;
      case TypeId::kInt8:
        set(Type::INT32, StatsOrder::kSigned32);
        e->logical_type = IntegerLogical(8, true);
        e->converted_type = ConvertedType::INT_8;
        break;
      case TypeId::kInt16:
        set(Type::INT32, StatsOrder::kSigned32);
        e->logical_type = IntegerLogical(16, true);
        e->converted_type = ConvertedType::INT_16;
        break;
      case TypeId::kInt32: set(Type::INT32, StatsOrder::kSigned32); break;
      case TypeId::kInt64: set(Type::INT64, StatsOrder::kSigned64); break;
      case TypeId::kUInt8:
        set(Type::INT32, StatsOrder::kUnsigned32);
        e->logical_type = IntegerLogical(8, false);
        e->converted_type = ConvertedType::UINT_8;
        break;
      case TypeId::kUInt16:
        set(Type::INT32, StatsOrder::kUnsigned32);
        e->logical_type = IntegerLogical(16, false);
        e->converted_type = ConvertedType::UINT_16;
        break;
      case TypeId::kUInt32:
        set(Type::INT32, StatsOrder::kUnsigned32);
        e->logical_type = IntegerLogical(32, false);
        e->converted_type = ConvertedType::UINT_32;
        break;
      case TypeId::kUInt64:
        set(Type::INT64, StatsOrder::kUnsigned64);
        e->logical_type = IntegerLogical(64, false);
        e->converted_type = ConvertedType::UINT_64;
        break;
      case TypeId::kFloat16:
        set_flba(2, StatsOrder::kFloat16);
        e->logical_type = SimpleLogical(LogicalType::FLOAT16);
        break;
      case TypeId::kFloat32: set(Type::FLOAT, StatsOrder::kFloat32); break;
      case TypeId::kFloat64: set(Type::DOUBLE, StatsOrder::kFloat64); break;
      case TypeId::kDecimal: {
        if (t.precision < 1 || t.precision > 38 || t.scale < 0 || t.scale > t.precision) {
          return Status::InvalidArgument(
              "field '" + field.name + "': decimal(" + std::to_string(t.precision) + "," +
              std::to_string(t.scale) +
              ") cannot be written to Parquet (precision 1..38, scale 0..precision)");
        }
        if (t.precision <= 9) {
          set(Type::INT32, StatsOrder::kSigned32);
        } else if (t.precision <= 18) {
          set(Type::INT64, StatsOrder::kSigned64);
        } else {
          set_flba(DecimalByteWidth(t.precision), StatsOrder::kDecimalBytes);
        }
        LogicalType logical = SimpleLogical(LogicalType::DECIMAL);
        logical.decimal_precision = t.precision;
        logical.decimal_scale = t.scale;
        e->logical_type = logical;
        e->converted_type = ConvertedType::DECIMAL;
        e->precision = t.precision;
        e->scale = t.scale;
        break;
      }
      case TypeId::kDate:
        set(Type::INT32, StatsOrder::kSigned32);
        e->logical_type = SimpleLogical(LogicalType::DATE);
        e->converted_type = ConvertedType::DATE;
        break;
      case TypeId::kTime: {
        LogicalType logical = SimpleLogical(LogicalType::TIME);
        logical.is_adjusted_to_utc = false;
        logical.time_unit = UnitKind(t.unit);
        e->logical_type = logical;
        if (t.unit == TimeUnit::kMilli) {
          set(Type::INT32, StatsOrder::kSigned32);
          e->converted_type = ConvertedType::TIME_MILLIS;
        } else {
          set(Type::INT64, StatsOrder::kSigned64);
          if (t.unit == TimeUnit::kMicro) e->converted_type = ConvertedType::TIME_MICROS;
        }
        break;
      }
      case TypeId::kTimestamp: {
        if (t.annotation == DataType::Annotation::kInt96) {
          set(Type::INT96, StatsOrder::kNone);
          break;
        }
        set(Type::INT64, StatsOrder::kSigned64);
        LogicalType logical = SimpleLogical(LogicalType::TIMESTAMP);
        logical.is_adjusted_to_utc = t.utc;
        logical.time_unit = UnitKind(t.unit);
        e->logical_type = logical;
        if (t.utc && t.unit == TimeUnit::kMilli) e->converted_type = ConvertedType::TIMESTAMP_MILLIS;
        if (t.utc && t.unit == TimeUnit::kMicro) e->converted_type = ConvertedType::TIMESTAMP_MICROS;
        break;
      }
      case TypeId::kString:
        set(Type::BYTE_ARRAY, StatsOrder::kBytes);
        if (t.annotation == DataType::Annotation::kEnum) {
          e->logical_type = SimpleLogical(LogicalType::ENUM);
          e->converted_type = ConvertedType::ENUM;
        } else if (t.annotation == DataType::Annotation::kJson) {
          e->logical_type = SimpleLogical(LogicalType::JSON);
          e->converted_type = ConvertedType::JSON;
        } else {
          e->logical_type = SimpleLogical(LogicalType::STRING);
          e->converted_type = ConvertedType::UTF8;
        }
        break;
      case TypeId::kBinary:
        set(Type::BYTE_ARRAY, StatsOrder::kBytes);
        if (t.annotation == DataType::Annotation::kBson) {
          e->logical_type = SimpleLogical(LogicalType::BSON);
          e->converted_type = ConvertedType::BSON;
        }
        break;
      case TypeId::kFixedBinary:
        if (t.byte_width < 1) {
          return Status::InvalidArgument("field '" + field.name + "': fixed binary width " +
                                         std::to_string(t.byte_width) + " must be at least 1");
        }
        if (t.annotation == DataType::Annotation::kInterval) {
          if (t.byte_width != 12) {
            return Status::InvalidArgument("field '" + field.name + "': INTERVAL needs a width of 12 bytes");
          }
          set_flba(12, StatsOrder::kNone);  // INTERVAL's sort order is undefined
          e->converted_type = ConvertedType::INTERVAL;
        } else {
          set_flba(t.byte_width, StatsOrder::kBytes);
        }
        break;
      case TypeId::kUuid:
        set_flba(16, StatsOrder::kBytes);
        e->logical_type = SimpleLogical(LogicalType::UUID);
        break;
      default:
        return Status::InvalidArgument("field '" + field.name + "': type " + t.ToString() +
                                       " is not a primitive type");
    }
    return Status::OK();
  }

  WriterSchema out_;
  int top_level_ = 0;
};

}  // namespace

int32_t DecimalByteWidth(int32_t precision) {
  unsigned __int128 max_unscaled = 1;
  for (int32_t i = 0; i < precision; ++i) max_unscaled *= 10;
  max_unscaled -= 1;  // largest magnitude that must fit
  for (int32_t bytes = 1; bytes < 16; ++bytes) {
    unsigned __int128 limit = static_cast<unsigned __int128>(1) << (8 * bytes - 1);  // 2^(8n-1)
    if (max_unscaled < limit) return bytes;
  }
  return 16;
}

Result<WriterSchema> BuildWriterSchema(const Schema& schema) {
  SchemaMapper mapper;
  for (size_t i = 0; i < schema.size(); ++i) {
    FLOE_RETURN_IF_ERROR(mapper.AddTopLevel(schema[i], static_cast<int>(i)));
  }
  WriterSchema out = mapper.Take();
  SchemaElement root;
  root.name = "schema";
  root.num_children = static_cast<int32_t>(schema.size());
  out.elements.insert(out.elements.begin(), std::move(root));
  return out;
}

}  // namespace floe::parquet
