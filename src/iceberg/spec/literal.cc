#include "iceberg/spec/literal.h"

#include <cstring>

#include "common/strings.h"

namespace floe::iceberg {

namespace {

Literal Integral(Literal::Kind kind, int64_t v) {
  Literal l;
  l.kind = kind;
  l.int_value = v;
  return l;
}

Literal Bytes(Literal::Kind kind, std::string bytes) {
  Literal l;
  l.kind = kind;
  l.bytes = std::move(bytes);
  return l;
}

}  // namespace

Literal Literal::Boolean(bool v) {
  return Integral(Kind::kBoolean, v ? 1 : 0);
}
Literal Literal::Int(int32_t v) {
  return Integral(Kind::kInt, v);
}
Literal Literal::Long(int64_t v) {
  return Integral(Kind::kLong, v);
}
Literal Literal::Float(float v) {
  Literal l;
  l.kind = Kind::kFloat;
  l.double_value = v;
  return l;
}
Literal Literal::Double(double v) {
  Literal l;
  l.kind = Kind::kDouble;
  l.double_value = v;
  return l;
}
Literal Literal::Decimal(Int128 unscaled, int32_t scale) {
  Literal l;
  l.kind = Kind::kDecimal;
  l.unscaled = unscaled;
  l.scale = scale;
  return l;
}
Literal Literal::Date(int32_t days) {
  return Integral(Kind::kDate, days);
}
Literal Literal::Time(int64_t micros) {
  return Integral(Kind::kTime, micros);
}
Literal Literal::Timestamp(int64_t micros) {
  return Integral(Kind::kTimestamp, micros);
}
Literal Literal::TimestampTz(int64_t micros) {
  return Integral(Kind::kTimestampTz, micros);
}
Literal Literal::TimestampNs(int64_t nanos) {
  return Integral(Kind::kTimestampNs, nanos);
}
Literal Literal::TimestampTzNs(int64_t nanos) {
  return Integral(Kind::kTimestampTzNs, nanos);
}
Literal Literal::String(std::string utf8) {
  return Bytes(Kind::kString, std::move(utf8));
}
Literal Literal::Uuid(std::string bytes16) {
  return Bytes(Kind::kUuid, std::move(bytes16));
}
Literal Literal::Fixed(std::string bytes) {
  return Bytes(Kind::kFixed, std::move(bytes));
}
Literal Literal::Binary(std::string bytes) {
  return Bytes(Kind::kBinary, std::move(bytes));
}

bool Literal::operator==(const Literal& other) const {
  if (kind != other.kind) return false;
  switch (kind) {
    case Kind::kNull: return true;
    case Kind::kFloat:
    case Kind::kDouble:
      // Bitwise equality so NaN == NaN and -0.0 != 0.0, as partition values compare.
      return std::memcmp(&double_value, &other.double_value, sizeof(double)) == 0;
    case Kind::kDecimal: return unscaled == other.unscaled && scale == other.scale;
    case Kind::kString:
    case Kind::kUuid:
    case Kind::kFixed:
    case Kind::kBinary: return bytes == other.bytes;
    default: return int_value == other.int_value;
  }
}

std::string DecimalToString(Int128 unscaled, int32_t scale) {
  bool negative = unscaled < 0;
  // Work on the magnitude as unsigned so INT128_MIN does not overflow.
  unsigned __int128 magnitude =
      negative ? -static_cast<unsigned __int128>(unscaled) : static_cast<unsigned __int128>(unscaled);
  std::string digits;
  do {
    digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  if (scale > 0) {
    if (digits.size() <= static_cast<size_t>(scale)) {
      digits.insert(0, static_cast<size_t>(scale) + 1 - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(scale), ".");
  }
  return negative ? "-" + digits : digits;
}

std::string Literal::ToString() const {
  switch (kind) {
    case Kind::kNull: return "null";
    case Kind::kBoolean: return int_value ? "boolean(true)" : "boolean(false)";
    case Kind::kInt: return "int(" + std::to_string(int_value) + ")";
    case Kind::kLong: return "long(" + std::to_string(int_value) + ")";
    case Kind::kFloat: return "float(" + std::to_string(double_value) + ")";
    case Kind::kDouble: return "double(" + std::to_string(double_value) + ")";
    case Kind::kDecimal: return "decimal(" + DecimalToString(unscaled, scale) + ")";
    case Kind::kDate: return "date(" + std::to_string(int_value) + ")";
    case Kind::kTime: return "time(" + std::to_string(int_value) + ")";
    case Kind::kTimestamp: return "timestamp(" + std::to_string(int_value) + ")";
    case Kind::kTimestampTz: return "timestamptz(" + std::to_string(int_value) + ")";
    case Kind::kTimestampNs: return "timestamp_ns(" + std::to_string(int_value) + ")";
    case Kind::kTimestampTzNs: return "timestamptz_ns(" + std::to_string(int_value) + ")";
    case Kind::kString: return "string(\"" + bytes + "\")";
    case Kind::kUuid: return bytes.size() == 16 ? "uuid(" + FormatUuid(bytes) + ")" : "uuid(?)";
    case Kind::kFixed:
    case Kind::kBinary: return (kind == Kind::kFixed ? "fixed(" : "binary(") + HexEncode(bytes) + ")";
  }
  return "?";
}

Result<Literal::Kind> LiteralKindFor(const Type& type) {
  using K = Literal::Kind;
  switch (type.kind) {
    case TypeKind::kBoolean: return K::kBoolean;
    case TypeKind::kInt: return K::kInt;
    case TypeKind::kLong: return K::kLong;
    case TypeKind::kFloat: return K::kFloat;
    case TypeKind::kDouble: return K::kDouble;
    case TypeKind::kDecimal: return K::kDecimal;
    case TypeKind::kDate: return K::kDate;
    case TypeKind::kTime: return K::kTime;
    case TypeKind::kTimestamp: return K::kTimestamp;
    case TypeKind::kTimestampTz: return K::kTimestampTz;
    case TypeKind::kTimestampNs: return K::kTimestampNs;
    case TypeKind::kTimestampTzNs: return K::kTimestampTzNs;
    case TypeKind::kString: return K::kString;
    case TypeKind::kUuid: return K::kUuid;
    case TypeKind::kFixed: return K::kFixed;
    case TypeKind::kBinary: return K::kBinary;
    default: return Status::NotSupported("no single value of type " + type.ToString());
  }
}

bool LiteralMatchesType(const Literal& literal, const Type& type) {
  if (literal.is_null()) return true;
  auto kind = LiteralKindFor(type);
  if (!kind.ok() || *kind != literal.kind) return false;
  if (type.kind == TypeKind::kDecimal) return literal.scale == type.scale;
  if (type.kind == TypeKind::kUuid) return literal.bytes.size() == 16;
  if (type.kind == TypeKind::kFixed) return literal.bytes.size() == static_cast<size_t>(type.length);
  return true;
}

}  // namespace floe::iceberg
