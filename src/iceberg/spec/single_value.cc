#include "iceberg/spec/single_value.h"

#include <cstring>

namespace floe::iceberg {

namespace {

std::string LittleEndian(uint64_t v, int width) {
  std::string out(static_cast<size_t>(width), '\0');
  for (int i = 0; i < width; ++i) out[static_cast<size_t>(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
  return out;
}

uint64_t ReadLittleEndian(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes.size(); ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i])) << (8 * i);
  return v;
}

Status ExpectLength(std::string_view bytes, size_t expected, const Type& type) {
  if (bytes.size() != expected) {
    return Status::Corruption("single value of type " + type.ToString() + " must be " +
                              std::to_string(expected) + " bytes, got " + std::to_string(bytes.size()));
  }
  return Status::OK();
}

}  // namespace

std::string DecimalToMinimalBytes(Int128 unscaled) {
  auto u = static_cast<unsigned __int128>(unscaled);
  std::string big_endian(16, '\0');
  for (int i = 0; i < 16; ++i)
    big_endian[static_cast<size_t>(15 - i)] = static_cast<char>((u >> (8 * i)) & 0xff);
  // Drop leading bytes that only repeat the sign of the next byte.
  size_t start = 0;
  while (start < 15) {
    auto lead = static_cast<unsigned char>(big_endian[start]);
    auto next = static_cast<unsigned char>(big_endian[start + 1]);
    bool redundant = (lead == 0x00 && (next & 0x80) == 0) || (lead == 0xff && (next & 0x80) != 0);
    if (!redundant) break;
    ++start;
  }
  return big_endian.substr(start);
}

Result<Int128> DecimalFromBytes(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > 16) {
    return Status::Corruption("decimal value must be 1..16 bytes, got " + std::to_string(bytes.size()));
  }
  unsigned __int128 u =
      (static_cast<unsigned char>(bytes[0]) & 0x80) ? ~static_cast<unsigned __int128>(0) : 0;
  for (unsigned char c : bytes) u = (u << 8) | c;
  return static_cast<Int128>(u);
}

Result<std::string> SerializeSingleValue(const Literal& value, const Type& type) {
  if (value.is_null()) return Status::InvalidArgument("null has no single-value serialization");
  if (!LiteralMatchesType(value, type)) {
    return Status::InvalidArgument("value " + value.ToString() + " does not match type " + type.ToString());
  }
  switch (type.kind) {
    case TypeKind::kBoolean: return std::string(1, value.int_value ? '\x01' : '\x00');
    case TypeKind::kInt:
    case TypeKind::kDate: return LittleEndian(static_cast<uint64_t>(value.int_value), 4);
    case TypeKind::kLong:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: return LittleEndian(static_cast<uint64_t>(value.int_value), 8);
    case TypeKind::kFloat: {
      auto f = static_cast<float>(value.double_value);
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof bits);
      return LittleEndian(bits, 4);
    }
    case TypeKind::kDouble: {
      uint64_t bits;
      std::memcpy(&bits, &value.double_value, sizeof bits);
      return LittleEndian(bits, 8);
    }
    case TypeKind::kDecimal: return DecimalToMinimalBytes(value.unscaled);
    case TypeKind::kString:
    case TypeKind::kUuid:
    case TypeKind::kFixed:
    case TypeKind::kBinary: return value.bytes;
    default: return Status::NotSupported("no single-value serialization for type " + type.ToString());
  }
}

Result<Literal> DeserializeSingleValue(std::string_view bytes, const Type& type) {
  switch (type.kind) {
    case TypeKind::kBoolean:
      FLOE_RETURN_IF_ERROR(ExpectLength(bytes, 1, type));
      return Literal::Boolean(bytes[0] != 0);
    case TypeKind::kInt:
    case TypeKind::kDate: {
      FLOE_RETURN_IF_ERROR(ExpectLength(bytes, 4, type));
      auto v = static_cast<int32_t>(static_cast<uint32_t>(ReadLittleEndian(bytes)));
      return type.kind == TypeKind::kInt ? Literal::Int(v) : Literal::Date(v);
    }
    case TypeKind::kLong:
    case TypeKind::kTime:
    case TypeKind::kTimestamp:
    case TypeKind::kTimestampTz:
    case TypeKind::kTimestampNs:
    case TypeKind::kTimestampTzNs: {
      FLOE_RETURN_IF_ERROR(ExpectLength(bytes, 8, type));
      auto v = static_cast<int64_t>(ReadLittleEndian(bytes));
      FLOE_ASSIGN_OR_RETURN(Literal::Kind kind, LiteralKindFor(type));
      Literal out;
      out.kind = kind;
      out.int_value = v;
      return out;
    }
    case TypeKind::kFloat: {
      FLOE_RETURN_IF_ERROR(ExpectLength(bytes, 4, type));
      auto bits = static_cast<uint32_t>(ReadLittleEndian(bytes));
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return Literal::Float(f);
    }
    case TypeKind::kDouble: {
      FLOE_RETURN_IF_ERROR(ExpectLength(bytes, 8, type));
      uint64_t bits = ReadLittleEndian(bytes);
      double d;
      std::memcpy(&d, &bits, sizeof d);
      return Literal::Double(d);
    }
    case TypeKind::kDecimal: {
      FLOE_ASSIGN_OR_RETURN(Int128 unscaled, DecimalFromBytes(bytes));
      return Literal::Decimal(unscaled, type.scale);
    }
    case TypeKind::kString: return Literal::String(std::string(bytes));
    case TypeKind::kUuid:
      FLOE_RETURN_IF_ERROR(ExpectLength(bytes, 16, type));
      return Literal::Uuid(std::string(bytes));
    case TypeKind::kFixed:
      FLOE_RETURN_IF_ERROR(ExpectLength(bytes, static_cast<size_t>(type.length), type));
      return Literal::Fixed(std::string(bytes));
    case TypeKind::kBinary: return Literal::Binary(std::string(bytes));
    default: return Status::NotSupported("no single-value serialization for type " + type.ToString());
  }
}

}  // namespace floe::iceberg
