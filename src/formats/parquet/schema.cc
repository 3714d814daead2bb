#include "formats/parquet/schema.h"

#include <utility>

#include "common/strings.h"

namespace floe::parquet {
namespace {

// Deeper trees are rejected: record assembly and the tree walk recurse per level.
constexpr int kMaxSchemaDepth = 64;

struct RawNode {
  const SchemaElement* element = nullptr;
  std::vector<RawNode> children;
  bool is_group() const { return !element->type.has_value(); }
  FieldRepetitionType repetition() const {
    return element->repetition_type.value_or(FieldRepetitionType::OPTIONAL);
  }
};

Status ParseTree(const std::vector<SchemaElement>& elements, size_t* pos, int depth, RawNode* out) {
  if (depth > kMaxSchemaDepth) {
    return Status::Corruption("schema nesting deeper than " + std::to_string(kMaxSchemaDepth) + " levels");
  }
  if (*pos >= elements.size()) return Status::Corruption("schema element list ends inside a group");
  const SchemaElement& element = elements[*pos];
  ++*pos;
  out->element = &element;
  if (element.type.has_value()) {
    if (element.num_children.value_or(0) > 0) {
      return Status::Corruption("schema element '" + element.name + "' has a type and children");
    }
    return Status::OK();
  }
  const int32_t num_children = element.num_children.value_or(0);
  if (num_children < 0 || static_cast<size_t>(num_children) > elements.size() - *pos) {
    return Status::Corruption("schema group '" + element.name + "' claims " + std::to_string(num_children) +
                              " children but only " + std::to_string(elements.size() - *pos) +
                              " schema elements follow");
  }
  out->children.resize(static_cast<size_t>(num_children));
  for (auto& child : out->children) FLOE_RETURN_IF_ERROR(ParseTree(elements, pos, depth + 1, &child));
  return Status::OK();
}

bool IsKnownLogicalKind(int32_t kind) {
  return (kind >= LogicalType::STRING && kind <= LogicalType::TIMESTAMP) ||
         (kind >= LogicalType::INTEGER && kind <= LogicalType::GEOGRAPHY);
}

std::optional<LogicalType> KnownLogicalType(const SchemaElement& element) {
  if (element.logical_type && IsKnownLogicalKind(element.logical_type->kind)) return element.logical_type;
  return std::nullopt;
}

TimeUnit ToTimeUnit(TimeUnitKind unit) {
  switch (unit) {
    case TimeUnitKind::MILLIS: return TimeUnit::kMilli;
    case TimeUnitKind::MICROS: return TimeUnit::kMicro;
    case TimeUnitKind::NANOS: return TimeUnit::kNano;
  }
  return TimeUnit::kMicro;
}

DataType WithAnnotation(DataType type, DataType::Annotation annotation) {
  type.annotation = annotation;
  return type;
}

class LeafTypeMapper {
 public:
  LeafTypeMapper(const SchemaElement& element, std::string path) : e_(element), path_(std::move(path)) {}

  Result<DataType> Map() {
    const Type physical = *e_.type;
    if (physical == Type::FIXED_LEN_BYTE_ARRAY) {
      const int32_t width = e_.type_length.value_or(0);
      if (width <= 0 || width > (1 << 24)) {
        return Corrupt("FIXED_LEN_BYTE_ARRAY has invalid type_length " + std::to_string(width));
      }
    }
    if (auto logical = KnownLogicalType(e_)) return FromLogical(*logical);
    if (e_.converted_type) return FromConverted(*e_.converted_type);
    return FromPhysical();
  }

 private:
  Status Corrupt(const std::string& what) const {
    return Status::Corruption("column " + path_ + ": " + what);
  }
  Status Mismatch(const char* annotation) const {
    return Corrupt(std::string(annotation) + " annotation on physical type " + TypeName(*e_.type));
  }
  bool Is(Type t) const { return *e_.type == t; }

  Result<DataType> FromPhysical() const {
    switch (*e_.type) {
      case Type::BOOLEAN: return Bool();
      case Type::INT32: return Int32();
      case Type::INT64: return Int64();
      case Type::INT96:
        return WithAnnotation(Timestamp(TimeUnit::kMicro, false), DataType::Annotation::kInt96);
      case Type::FLOAT: return Float32();
      case Type::DOUBLE: return Float64();
      case Type::BYTE_ARRAY: return Binary();
      case Type::FIXED_LEN_BYTE_ARRAY: return FixedBinary(*e_.type_length);
    }
    return Corrupt("unknown physical type " + std::to_string(static_cast<int>(*e_.type)));
  }

  Result<DataType> StringLike(DataType::Annotation annotation, const char* name) const {
    if (!Is(Type::BYTE_ARRAY)) return Mismatch(name);
    return WithAnnotation(String(), annotation);
  }

  Result<DataType> DecimalOf(int32_t precision, int32_t scale) const {
    if (precision <= 0 || scale < 0 || scale > precision) {
      return Corrupt("invalid DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) + ")");
    }
    if (precision > 38) {
      return Status::NotSupported("column " + path_ + ": DECIMAL precision " + std::to_string(precision) +
                                  " not supported (floe decimals hold at most 38 digits)");
    }
    if (!Is(Type::INT32) && !Is(Type::INT64) && !Is(Type::FIXED_LEN_BYTE_ARRAY) && !Is(Type::BYTE_ARRAY)) {
      return Mismatch("DECIMAL");
    }
    return Decimal(precision, scale);
  }

  Result<DataType> IntegerOf(int bit_width, bool is_signed) const {
    const bool fits = bit_width == 64 ? Is(Type::INT64) : Is(Type::INT32);
    if (!fits) return Mismatch("INTEGER");
    switch (bit_width) {
      case 8: return is_signed ? Int8() : UInt8();
      case 16: return is_signed ? Int16() : UInt16();
      case 32: return is_signed ? Int32() : UInt32();
      case 64: return is_signed ? Int64() : UInt64();
      default: return Corrupt("INTEGER annotation with bit width " + std::to_string(bit_width));
    }
  }

  Result<DataType> TimeOf(TimeUnit unit) const {
    if (unit == TimeUnit::kMilli ? !Is(Type::INT32) : !Is(Type::INT64)) return Mismatch("TIME");
    return Time(unit);
  }

  Result<DataType> FromLogical(const LogicalType& logical) const {
    switch (logical.kind) {
      case LogicalType::STRING: return StringLike(DataType::Annotation::kNone, "STRING");
      case LogicalType::ENUM: return StringLike(DataType::Annotation::kEnum, "ENUM");
      case LogicalType::JSON: return StringLike(DataType::Annotation::kJson, "JSON");
      case LogicalType::BSON:
        if (!Is(Type::BYTE_ARRAY)) return Mismatch("BSON");
        return WithAnnotation(Binary(), DataType::Annotation::kBson);
      case LogicalType::UUID:
        if (!Is(Type::FIXED_LEN_BYTE_ARRAY) || *e_.type_length != 16) return Mismatch("UUID");
        return Uuid();
      case LogicalType::FLOAT16:
        if (!Is(Type::FIXED_LEN_BYTE_ARRAY) || *e_.type_length != 2) return Mismatch("FLOAT16");
        return Float16();
      case LogicalType::DECIMAL: return DecimalOf(logical.decimal_precision, logical.decimal_scale);
      case LogicalType::DATE:
        if (!Is(Type::INT32)) return Mismatch("DATE");
        return Date();
      case LogicalType::TIME: return TimeOf(ToTimeUnit(logical.time_unit));
      case LogicalType::TIMESTAMP:
        if (!Is(Type::INT64)) return Mismatch("TIMESTAMP");
        return Timestamp(ToTimeUnit(logical.time_unit), logical.is_adjusted_to_utc);
      case LogicalType::INTEGER: return IntegerOf(logical.bit_width, logical.is_signed);
      case LogicalType::VARIANT:
        return Status::NotSupported("column " + path_ +
                                    ": logical type VARIANT not supported: variant/geospatial types");
      case LogicalType::GEOMETRY:
      case LogicalType::GEOGRAPHY:
        return Status::NotSupported(
            "column " + path_ + ": logical type GEOMETRY/GEOGRAPHY not supported: variant/geospatial types");
      default:  // UNKNOWN (always null), MAP/LIST misplaced on a leaf: the physical type stands
        if (e_.converted_type) return FromConverted(*e_.converted_type);
        return FromPhysical();
    }
  }

  Result<DataType> FromConverted(ConvertedType converted) const {
    switch (converted) {
      case ConvertedType::UTF8: return StringLike(DataType::Annotation::kNone, "UTF8");
      case ConvertedType::ENUM: return StringLike(DataType::Annotation::kEnum, "ENUM");
      case ConvertedType::JSON: return StringLike(DataType::Annotation::kJson, "JSON");
      case ConvertedType::BSON:
        if (!Is(Type::BYTE_ARRAY)) return Mismatch("BSON");
        return WithAnnotation(Binary(), DataType::Annotation::kBson);
      case ConvertedType::DECIMAL: return DecimalOf(e_.precision.value_or(0), e_.scale.value_or(0));
      case ConvertedType::DATE:
        if (!Is(Type::INT32)) return Mismatch("DATE");
        return Date();
      case ConvertedType::TIME_MILLIS: return TimeOf(TimeUnit::kMilli);
      case ConvertedType::TIME_MICROS: return TimeOf(TimeUnit::kMicro);
      case ConvertedType::TIMESTAMP_MILLIS:
        if (!Is(Type::INT64)) return Mismatch("TIMESTAMP_MILLIS");
        return Timestamp(TimeUnit::kMilli, true);
      case ConvertedType::TIMESTAMP_MICROS:
        if (!Is(Type::INT64)) return Mismatch("TIMESTAMP_MICROS");
        return Timestamp(TimeUnit::kMicro, true);
      case ConvertedType::UINT_8: return IntegerOf(8, false);
      case ConvertedType::UINT_16: return IntegerOf(16, false);
      case ConvertedType::UINT_32: return IntegerOf(32, false);
      case ConvertedType::UINT_64: return IntegerOf(64, false);
      case ConvertedType::INT_8: return IntegerOf(8, true);
      case ConvertedType::INT_16: return IntegerOf(16, true);
      case ConvertedType::INT_32: return IntegerOf(32, true);
      case ConvertedType::INT_64: return IntegerOf(64, true);
      case ConvertedType::INTERVAL:
        if (!Is(Type::FIXED_LEN_BYTE_ARRAY) || *e_.type_length != 12) return Mismatch("INTERVAL");
        return WithAnnotation(FixedBinary(12), DataType::Annotation::kInterval);
      default:  // MAP/LIST/MAP_KEY_VALUE on a leaf carry no value meaning
        return FromPhysical();
    }
  }

  const SchemaElement& e_;
  std::string path_;
};

// Levels of the enclosing context while walking down the tree.
struct Context {
  int16_t def = 0;       // definition level reached when the parent is non-null
  int16_t rep = 0;       // repetition level of the parent
  int16_t slot_def = 0;  // slot context of the floe node the child sits in
  int16_t slot_rep = 0;
};

bool IsListGroup(const RawNode& n) {
  if (!n.is_group()) return false;
  if (auto logical = KnownLogicalType(*n.element)) return logical->kind == LogicalType::LIST;
  return n.element->converted_type == ConvertedType::LIST;
}

bool IsMapGroup(const RawNode& n) {
  if (!n.is_group()) return false;
  if (auto logical = KnownLogicalType(*n.element)) {
    if (logical->kind == LogicalType::MAP) return true;
  }
  if (n.element->converted_type == ConvertedType::MAP ||
      n.element->converted_type == ConvertedType::MAP_KEY_VALUE) {
    return true;
  }
  // Legacy writers annotated only the repeated key/value group.
  return n.children.size() == 1 && n.children[0].is_group() &&
         n.children[0].repetition() == FieldRepetitionType::REPEATED &&
         n.children[0].element->converted_type == ConvertedType::MAP_KEY_VALUE;
}

class SchemaConverter {
 public:
  Result<ParquetSchema> Convert(const RawNode& root) {
    for (size_t i = 0; i < root.children.size(); ++i) {
      top_field_ = static_cast<int>(i);
      result_.first_leaf.push_back(static_cast<int>(result_.leaves.size()));
      LevelNode node;
      FLOE_ASSIGN_OR_RETURN(Field field, ConvertField(root.children[i], Context{}, &node));
      result_.schema.push_back(std::move(field));
      result_.assembly.push_back(std::move(node));
    }
    result_.first_leaf.push_back(static_cast<int>(result_.leaves.size()));
    return std::move(result_);
  }

 private:
  std::string PathString() const {
    std::string s;
    for (const auto& part : path_) s += (s.empty() ? "" : ".") + part;
    return s;
  }
  static int16_t Next(int16_t level) { return static_cast<int16_t>(level + 1); }

  // Converts `n` seen from context `ctx`, honouring its own repetition.
  Result<Field> ConvertField(const RawNode& n, Context ctx, LevelNode* node) {
    path_.push_back(n.element->name);
    Result<Field> field = ConvertFieldInPath(n, ctx, node);
    path_.pop_back();
    return field;
  }

  Result<Field> ConvertFieldInPath(const RawNode& n, Context ctx, LevelNode* node) {
    const FieldRepetitionType repetition = n.repetition();
    if (repetition == FieldRepetitionType::REPEATED) {
      // A bare repeated field: a required list of required elements.
      node->kind = LevelNode::Kind::kList;
      node->rep_level = ctx.slot_rep;
      node->slot_def = ctx.slot_def;
      node->valid_def = ctx.def;
      node->leaf = static_cast<int>(result_.leaves.size());
      const int16_t d = Next(ctx.def), r = Next(ctx.rep);
      LevelNode element_node;
      FLOE_ASSIGN_OR_RETURN(DataType element_type, ConvertInner(n, d, r, Context{d, r, d, r}, &element_node));
      node->children.push_back(std::move(element_node));
      Field element = MakeField("element", std::move(element_type), false);
      return MakeField(n.element->name, List(std::move(element)), false, n.element->field_id);
    }
    const bool optional = repetition == FieldRepetitionType::OPTIONAL;
    const int16_t d = optional ? Next(ctx.def) : ctx.def;
    FLOE_ASSIGN_OR_RETURN(DataType type, ConvertInner(n, d, ctx.rep, ctx, node));
    return MakeField(n.element->name, std::move(type), optional, n.element->field_id);
  }

  // Converts the content of `n` whose own definition level is `d` and
  // repetition level `r`; `ctx` holds the slot context of the floe node.
  Result<DataType> ConvertInner(const RawNode& n, int16_t d, int16_t r, Context ctx, LevelNode* node) {
    node->rep_level = ctx.slot_rep;
    node->slot_def = ctx.slot_def;
    node->valid_def = d;
    node->leaf = static_cast<int>(result_.leaves.size());
    if (!n.is_group()) return ConvertLeaf(n, d, r, node);
    if (n.children.empty()) {
      return Status::Corruption("column " + PathString() + ": group has no children");
    }
    if (IsMapGroup(n)) return ConvertMap(n, d, r, node);
    if (IsListGroup(n)) return ConvertList(n, d, r, node);
    node->kind = LevelNode::Kind::kStruct;
    std::vector<Field> members;
    const Context member_ctx{d, r, ctx.slot_def, ctx.slot_rep};
    for (const auto& child : n.children) {
      LevelNode child_node;
      FLOE_ASSIGN_OR_RETURN(Field member, ConvertField(child, member_ctx, &child_node));
      members.push_back(std::move(member));
      node->children.push_back(std::move(child_node));
    }
    return Struct(std::move(members));
  }

  Result<DataType> ConvertLeaf(const RawNode& n, int16_t d, int16_t r, LevelNode* node) {
    node->kind = LevelNode::Kind::kLeaf;
    ColumnDescriptor leaf;
    leaf.path = path_;
    leaf.physical_type = *n.element->type;
    leaf.type_length = n.element->type_length.value_or(0);
    leaf.max_def_level = d;
    leaf.max_rep_level = r;
    leaf.converted_type = n.element->converted_type;
    leaf.logical_type = KnownLogicalType(*n.element);
    leaf.top_level_field = top_field_;
    FLOE_ASSIGN_OR_RETURN(leaf.type, LeafTypeMapper(*n.element, PathString()).Map());
    DataType type = leaf.type;
    result_.leaves.push_back(std::move(leaf));
    return type;
  }

  Result<DataType> ConvertList(const RawNode& n, int16_t d, int16_t r, LevelNode* node) {
    node->kind = LevelNode::Kind::kList;
    if (n.children.size() != 1 || n.children[0].repetition() != FieldRepetitionType::REPEATED) {
      return Status::Corruption("column " + PathString() +
                                ": LIST group must have exactly one repeated child");
    }
    const RawNode& repeated = n.children[0];
    const int16_t rd = Next(d), rr = Next(r);
    const Context element_ctx{rd, rr, rd, rr};
    LevelNode element_node;
    Field element;
    const bool repeated_is_element = !repeated.is_group() || repeated.children.size() > 1 ||
                                     repeated.element->name == "array" ||
                                     repeated.element->name == n.element->name + "_tuple";
    path_.push_back(repeated.element->name);
    if (repeated_is_element) {
      Result<DataType> type = ConvertInner(repeated, rd, rr, element_ctx, &element_node);
      if (!type.ok()) {
        path_.pop_back();
        return type.status();
      }
      element = MakeField(repeated.element->name, std::move(*type), false, repeated.element->field_id);
    } else {
      Result<Field> field = ConvertField(repeated.children[0], element_ctx, &element_node);
      if (!field.ok()) {
        path_.pop_back();
        return field.status();
      }
      element = std::move(*field);
    }
    path_.pop_back();
    node->children.push_back(std::move(element_node));
    return List(std::move(element));
  }

  Result<DataType> ConvertMap(const RawNode& n, int16_t d, int16_t r, LevelNode* node) {
    const RawNode& key_value = n.children[0];
    if (n.children.size() != 1 || !key_value.is_group() ||
        key_value.repetition() != FieldRepetitionType::REPEATED || key_value.children.empty() ||
        key_value.children.size() > 2) {
      return Status::Corruption("column " + PathString() +
                                ": MAP group must have one repeated group child with a key and a value");
    }
    const int16_t rd = Next(d), rr = Next(r);
    const Context entry_ctx{rd, rr, rd, rr};
    path_.push_back(key_value.element->name);
    std::vector<Field> entry_fields;
    for (const auto& child : key_value.children) {
      LevelNode child_node;
      Result<Field> field = ConvertField(child, entry_ctx, &child_node);
      if (!field.ok()) {
        path_.pop_back();
        return field.status();
      }
      entry_fields.push_back(std::move(*field));
      node->children.push_back(std::move(child_node));
    }
    path_.pop_back();
    if (entry_fields.size() == 1) {
      // A map without values (map_no_value.parquet): the keys as a list.
      node->kind = LevelNode::Kind::kList;
      entry_fields[0].nullable = false;
      return List(std::move(entry_fields[0]));
    }
    node->kind = LevelNode::Kind::kMap;
    return Map(std::move(entry_fields[0]), std::move(entry_fields[1]));
  }

  ParquetSchema result_;
  std::vector<std::string> path_;
  int top_field_ = 0;
};

const char* RepetitionName(FieldRepetitionType r) {
  switch (r) {
    case FieldRepetitionType::REQUIRED: return "required";
    case FieldRepetitionType::OPTIONAL: return "optional";
    case FieldRepetitionType::REPEATED: return "repeated";
  }
  return "?";
}

std::string LogicalTypeName(const LogicalType& t) {
  auto unit = [&] {
    return std::string(t.time_unit == TimeUnitKind::MILLIS   ? "MILLIS"
                       : t.time_unit == TimeUnitKind::MICROS ? "MICROS"
                                                             : "NANOS");
  };
  switch (t.kind) {
    case LogicalType::STRING: return "STRING";
    case LogicalType::MAP: return "MAP";
    case LogicalType::LIST: return "LIST";
    case LogicalType::ENUM: return "ENUM";
    case LogicalType::DECIMAL:
      return "DECIMAL(" + std::to_string(t.decimal_precision) + "," + std::to_string(t.decimal_scale) + ")";
    case LogicalType::DATE: return "DATE";
    case LogicalType::TIME: return "TIME(" + unit() + "," + (t.is_adjusted_to_utc ? "true" : "false") + ")";
    case LogicalType::TIMESTAMP:
      return "TIMESTAMP(" + unit() + "," + (t.is_adjusted_to_utc ? "true" : "false") + ")";
    case LogicalType::INTEGER:
      return "INTEGER(" + std::to_string(t.bit_width) + "," + (t.is_signed ? "true" : "false") + ")";
    case LogicalType::UNKNOWN: return "UNKNOWN";
    case LogicalType::JSON: return "JSON";
    case LogicalType::BSON: return "BSON";
    case LogicalType::UUID: return "UUID";
    case LogicalType::FLOAT16: return "FLOAT16";
    case LogicalType::VARIANT: return "VARIANT";
    case LogicalType::GEOMETRY: return "GEOMETRY";
    case LogicalType::GEOGRAPHY: return "GEOGRAPHY";
    default: return "logical type #" + std::to_string(t.kind);
  }
}

void RenderNode(const RawNode& n, int indent, std::string* out) {
  const SchemaElement& e = *n.element;
  out->append(static_cast<size_t>(indent), ' ');
  out->append(RepetitionName(n.repetition()));
  out->append(" ");
  if (n.is_group()) {
    out->append("group ");
  } else {
    std::string type = AsciiLower(TypeName(*e.type));
    if (*e.type == Type::FIXED_LEN_BYTE_ARRAY)
      type = "fixed_len_byte_array(" + std::to_string(e.type_length.value_or(0)) + ")";
    out->append(type + " ");
  }
  out->append(e.name);
  std::vector<std::string> notes;
  if (e.logical_type) notes.push_back(LogicalTypeName(*e.logical_type));
  if (e.converted_type) {
    std::string c = ConvertedTypeName(*e.converted_type);
    if (*e.converted_type == ConvertedType::DECIMAL) {
      c += "(" + std::to_string(e.precision.value_or(0)) + "," + std::to_string(e.scale.value_or(0)) + ")";
    }
    if (notes.empty() || notes[0].rfind(c, 0) != 0) notes.push_back(c);
  }
  if (!notes.empty()) {
    out->append(" (");
    for (size_t i = 0; i < notes.size(); ++i) out->append((i ? ", " : "") + notes[i]);
    out->append(")");
  }
  if (e.field_id) out->append(" = " + std::to_string(*e.field_id));
  if (n.is_group()) {
    out->append(" {\n");
    for (const auto& c : n.children) RenderNode(c, indent + 2, out);
    out->append(static_cast<size_t>(indent), ' ');
    out->append("}\n");
  } else {
    out->append(";\n");
  }
}

Result<RawNode> ParseRoot(const std::vector<SchemaElement>& elements) {
  if (elements.empty()) return Status::Corruption("schema has no elements");
  if (elements[0].type.has_value()) return Status::Corruption("schema root is not a group");
  RawNode root;
  size_t pos = 0;
  FLOE_RETURN_IF_ERROR(ParseTree(elements, &pos, 0, &root));
  if (pos != elements.size()) {
    return Status::Corruption("schema has " + std::to_string(elements.size() - pos) +
                              " elements outside the root group");
  }
  return root;
}

}  // namespace

std::string ColumnDescriptor::PathString() const {
  std::string s;
  for (const auto& part : path) s += (s.empty() ? "" : ".") + part;
  return s;
}

Result<ParquetSchema> BuildParquetSchema(const std::vector<SchemaElement>& elements) {
  FLOE_ASSIGN_OR_RETURN(RawNode root, ParseRoot(elements));
  return SchemaConverter().Convert(root);
}

std::string ParquetSchemaTreeToString(const std::vector<SchemaElement>& elements) {
  Result<RawNode> root = ParseRoot(elements);
  if (!root.ok()) return "(invalid schema: " + root.status().message() + ")\n";
  std::string out = "message " + root->element->name + " {\n";
  for (const auto& c : root->children) RenderNode(c, 2, &out);
  out += "}\n";
  return out;
}

}  // namespace floe::parquet
