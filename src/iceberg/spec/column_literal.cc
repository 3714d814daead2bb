#include "iceberg/spec/column_literal.h"

#include <string>

namespace floe::iceberg {
namespace {

// Bytes per value a column of Iceberg `type` stores, 0 for variable-width
// (string, binary) and -1 for types without a single-value form.
int64_t ValueWidth(const Type& type) {
  switch (type.kind) {
    case TypeKind::kBoolean: return 1;
    case TypeKind::kInt:
    case TypeKind::kFloat:
    case TypeKind::kDate: return 4;
    case TypeKind::kLong:
    case TypeKind::kDouble:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: return 8;
    case TypeKind::kDecimal:
    case TypeKind::kUuid: return 16;
    case TypeKind::kFixed: return type.length;
    case TypeKind::kString:
    case TypeKind::kBinary: return 0;
    default: return -1;
  }
}

}  // namespace

Result<Literal> LiteralAt(const Column& column, int64_t row, const Type& type) {
  if (row < 0 || row >= column.length) {
    return Status::OutOfRange("row " + std::to_string(row) + " is outside the column's " +
                              std::to_string(column.length) + " rows");
  }
  const int64_t width = ValueWidth(type);
  if (width < 0) return Status::NotSupported("no literal form for values of type " + type.ToString());
  if (!column.validity.empty() && column.validity.size() * 8 < static_cast<size_t>(row) + 1) {
    return Status::InvalidArgument("column validity shorter than its length");
  }
  if (column.IsNull(row)) return Literal::Null();
  if (width > 0) {
    if (column.type.fixed_width() != width) {
      return Status::InvalidArgument("a column of " + column.type.ToString() + " holds no " +
                                     type.ToString() + " values");
    }
    if (column.values.size() < static_cast<size_t>(row + 1) * static_cast<size_t>(width)) {
      return Status::InvalidArgument("column values shorter than its length");
    }
  } else {
    if (!column.type.is_binary_like()) {
      return Status::InvalidArgument("a column of " + column.type.ToString() + " holds no " +
                                     type.ToString() + " values");
    }
    if (column.offsets.size() < static_cast<size_t>(row) + 2 || column.offsets[row] < 0 ||
        column.offsets[row] > column.offsets[row + 1] ||
        static_cast<uint64_t>(column.offsets[row + 1]) > column.data.size()) {
      return Status::InvalidArgument("column offsets outside its data");
    }
  }
  switch (type.kind) {
    case TypeKind::kBoolean: return Literal::Boolean(column.Value<uint8_t>(row) != 0);
    case TypeKind::kInt: return Literal::Int(column.Value<int32_t>(row));
    case TypeKind::kLong: return Literal::Long(column.Value<int64_t>(row));
    case TypeKind::kFloat: return Literal::Float(column.Value<float>(row));
    case TypeKind::kDouble: return Literal::Double(column.Value<double>(row));
    case TypeKind::kDecimal: return Literal::Decimal(column.Value<Int128>(row), type.scale);
    case TypeKind::kDate: return Literal::Date(column.Value<int32_t>(row));
    case TypeKind::kTime: return Literal::Time(column.Value<int64_t>(row));
    case TypeKind::kTimestamp: return Literal::Timestamp(column.Value<int64_t>(row));
    case TypeKind::kTimestampTz: return Literal::TimestampTz(column.Value<int64_t>(row));
    case TypeKind::kTimestampNs: return Literal::TimestampNs(column.Value<int64_t>(row));
    case TypeKind::kTimestampTzNs: return Literal::TimestampTzNs(column.Value<int64_t>(row));
    case TypeKind::kString: return Literal::String(std::string(column.StringAt(row)));
    case TypeKind::kBinary: return Literal::Binary(std::string(column.StringAt(row)));
    case TypeKind::kUuid:
    case TypeKind::kFixed: {
      std::string bytes(reinterpret_cast<const char*>(column.values.data()) + row * width,
                        static_cast<size_t>(width));
      return type.kind == TypeKind::kUuid ? Literal::Uuid(std::move(bytes))
                                          : Literal::Fixed(std::move(bytes));
    }
    default: break;
  }
  return Status::NotSupported("no literal form for values of type " + type.ToString());
}

}  // namespace floe::iceberg
