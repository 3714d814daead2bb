#include "ingest/schema/type_compat.h"

namespace floe::ingest::internal {

namespace {

using iceberg::TypeKind;

bool IsTimestampKind(TypeKind kind) {
  return kind == TypeKind::kTimestamp || kind == TypeKind::kTimestampTz || kind == TypeKind::kTimestampNs ||
         kind == TypeKind::kTimestampTzNs;
}

bool IsUtcTimestampKind(TypeKind kind) {
  return kind == TypeKind::kTimestampTz || kind == TypeKind::kTimestampTzNs;
}

// Whether a column of type `from` may be widened to `to` by a schema update.
bool IsWidening(const iceberg::Type& from, const iceberg::Type& to) {
  switch (from.kind) {
    case TypeKind::kInt: return to.kind == TypeKind::kLong;
    case TypeKind::kFloat: return to.kind == TypeKind::kDouble;
    case TypeKind::kDecimal:
      return to.kind == TypeKind::kDecimal && to.scale == from.scale && to.precision > from.precision;
    default: return false;
  }
}

Result<iceberg::NestedField> FieldForSource(const Field& field, int format_version) {
  auto type = IcebergTypeForSource(field.type, format_version);
  if (!type.ok()) return type.status().WithContext("member '" + field.name + "'");
  return iceberg::MakeNestedField(0, field.name, std::move(type).value(), !field.nullable);
}

}  // namespace

Result<iceberg::Type> IcebergTypeForSource(const DataType& type, int format_version) {
  switch (type.id) {
    case TypeId::kUInt64: return iceberg::DecimalType(20, 0);
    case TypeId::kTimestamp:
      if (type.unit == TimeUnit::kNano && format_version < 3) {
        return iceberg::PrimitiveType(type.utc ? TypeKind::kTimestampTz : TypeKind::kTimestamp);
      }
      return iceberg::FromFloeType(type, format_version);
    case TypeId::kStruct: {
      std::vector<iceberg::NestedField> members;
      for (const Field& child : type.children) {
        FLOE_ASSIGN_OR_RETURN(iceberg::NestedField member, FieldForSource(child, format_version));
        members.push_back(std::move(member));
      }
      return iceberg::StructType(std::move(members));
    }
    case TypeId::kList: {
      if (type.children.size() != 1) return Status::InvalidArgument("list type needs exactly one child");
      FLOE_ASSIGN_OR_RETURN(iceberg::NestedField element, FieldForSource(type.children[0], format_version));
      return iceberg::ListType(0, std::move(element.type), element.required);
    }
    case TypeId::kMap: {
      if (type.children.size() != 2) return Status::InvalidArgument("map type needs key and value children");
      FLOE_ASSIGN_OR_RETURN(iceberg::NestedField key, FieldForSource(type.children[0], format_version));
      FLOE_ASSIGN_OR_RETURN(iceberg::NestedField value, FieldForSource(type.children[1], format_version));
      return iceberg::MapType(0, std::move(key.type), 0, std::move(value.type), value.required);
    }
    default: return iceberg::FromFloeType(type, format_version);
  }
}

PrimitiveMatch MatchPrimitive(const iceberg::Type& table, const iceberg::Type& incoming) {
  if (!table.is_primitive() || !incoming.is_primitive()) return PrimitiveMatch::kIncompatible;
  if (table == incoming) return PrimitiveMatch::kSame;
  if (IsTimestampKind(table.kind) && IsTimestampKind(incoming.kind)) {
    return IsUtcTimestampKind(table.kind) == IsUtcTimestampKind(incoming.kind)
               ? PrimitiveMatch::kCastUp
               : PrimitiveMatch::kIncompatible;
  }
  if (IsWidening(table, incoming)) return PrimitiveMatch::kPromote;
  if (IsWidening(incoming, table)) return PrimitiveMatch::kCastUp;
  // Numbers into a double column, when each value keeps its exact value:
  // ints always; longs within 2^53 and decimals of at most 15 significant
  // digits, both checked per value by the cast (their nearest double prints
  // back as the same digits). Text formats infer per file, so a file whose
  // prices are all "2" or "2.50" still fits the double column its siblings made.
  if (table.kind == TypeKind::kDouble &&
      (incoming.kind == TypeKind::kInt || incoming.kind == TypeKind::kLong ||
       incoming.kind == TypeKind::kDecimal)) {
    return PrimitiveMatch::kCastUp;
  }
  return PrimitiveMatch::kIncompatible;
}

void AssignFreshIds(iceberg::Type* type, int32_t* next_id) {
  for (iceberg::NestedField& field : type->fields) {
    field.id = (*next_id)++;
    AssignFreshIds(&field.type, next_id);
  }
}

}  // namespace floe::ingest::internal
