#include "formats/parquet/reader/physical_conversion.h"

#include <cstring>
#include <string>

namespace floe::parquet {
namespace {

constexpr int64_t kJulianDayOfUnixEpoch = 2440588;
constexpr int64_t kMicrosPerDay = 86400LL * 1000 * 1000;

// Converts the column's `count` values from From to To in place: widening
// runs from the last value down (value i's wider slot never reaches an
// unread narrower one), narrowing from the first up. The buffer grows
// within its capacity when the reader reserved the wider size up front.
template <typename From, typename To>
void Recast(int64_t count, Column* column) {
  static_assert(sizeof(From) != sizeof(To));
  std::vector<uint8_t>& values = column->values;
  if constexpr (sizeof(To) > sizeof(From)) {
    values.resize(static_cast<size_t>(count) * sizeof(To));
    uint8_t* data = values.data();
    for (int64_t i = count - 1; i >= 0; --i) {
      From v;
      std::memcpy(&v, data + i * sizeof(From), sizeof(From));
      const To converted = static_cast<To>(v);
      std::memcpy(data + i * sizeof(To), &converted, sizeof(To));
    }
  } else {
    uint8_t* data = values.data();
    for (int64_t i = 0; i < count; ++i) {
      From v;
      std::memcpy(&v, data + i * sizeof(From), sizeof(From));
      const To converted = static_cast<To>(v);
      std::memcpy(data + i * sizeof(To), &converted, sizeof(To));
    }
    values.resize(static_cast<size_t>(count) * sizeof(To));
  }
}

// Big-endian two's complement bytes to int128; nullopt when it does not fit.
bool BigEndianToInt128(const uint8_t* bytes, size_t length, __int128* out) {
  if (length == 0) {
    *out = 0;
    return true;
  }
  const bool negative = bytes[0] & 0x80;
  size_t skip = 0;
  if (length > 16) {
    skip = length - 16;
    const uint8_t fill = negative ? 0xFF : 0x00;
    for (size_t i = 0; i < skip; ++i) {
      if (bytes[i] != fill) return false;
    }
    if (((bytes[skip] & 0x80) != 0) != negative) return false;
  }
  unsigned __int128 v = negative ? ~static_cast<unsigned __int128>(0) : 0;
  for (size_t i = skip; i < length; ++i) v = (v << 8) | bytes[i];
  *out = static_cast<__int128>(v);
  return true;
}

Status DecimalsFromBytes(const ColumnDescriptor& leaf, int64_t count, Column* column) {
  std::vector<uint8_t> out(static_cast<size_t>(count) * 16);
  const bool variable = leaf.physical_type == Type::BYTE_ARRAY;
  for (int64_t i = 0; i < count; ++i) {
    const uint8_t* bytes;
    size_t length;
    if (variable) {
      bytes = column->data.data() + column->offsets[i];
      length = static_cast<size_t>(column->offsets[i + 1] - column->offsets[i]);
    } else {
      bytes = column->values.data() + static_cast<size_t>(i) * leaf.type_length;
      length = static_cast<size_t>(leaf.type_length);
    }
    __int128 v;
    if (!BigEndianToInt128(bytes, length, &v)) {
      return Status::OutOfRange("decimal value " + std::to_string(i) + " of " + std::to_string(length) +
                                " bytes does not fit 128 bits");
    }
    std::memcpy(out.data() + i * 16, &v, 16);
  }
  column->values = std::move(out);
  column->offsets.clear();
  column->data.clear();
  return Status::OK();
}

}  // namespace

int64_t Int96ToUnixMicros(const uint8_t* bytes) {
  int64_t nanos_of_day;
  int32_t julian_day;
  std::memcpy(&nanos_of_day, bytes, 8);
  std::memcpy(&julian_day, bytes + 8, 4);
  const int64_t days = static_cast<int64_t>(julian_day) - kJulianDayOfUnixEpoch;
  const int64_t micros_of_day = nanos_of_day / 1000 - (nanos_of_day % 1000 < 0);
  // Unsigned arithmetic wraps instead of overflowing on garbage input.
  return static_cast<int64_t>(static_cast<uint64_t>(days) * static_cast<uint64_t>(kMicrosPerDay) +
                              static_cast<uint64_t>(micros_of_day));
}

Status ConvertPhysicalToLeafType(const ColumnDescriptor& leaf, int64_t count, Column* column) {
  const DataType& type = leaf.type;
  switch (leaf.physical_type) {
    case Type::INT32:
      switch (type.id) {
        case TypeId::kInt8: Recast<int32_t, int8_t>(count, column); break;
        case TypeId::kUInt8: Recast<int32_t, uint8_t>(count, column); break;
        case TypeId::kInt16: Recast<int32_t, int16_t>(count, column); break;
        case TypeId::kUInt16: Recast<int32_t, uint16_t>(count, column); break;
        case TypeId::kTime: Recast<int32_t, int64_t>(count, column); break;
        case TypeId::kDecimal: Recast<int32_t, __int128>(count, column); break;
        default: break;  // Int32, UInt32, Date: same bytes
      }
      break;
    case Type::INT64:
      if (type.id == TypeId::kDecimal) Recast<int64_t, __int128>(count, column);
      break;
    case Type::INT96: {
      // In place, first value up: value i's 8 bytes end before value i+1's 12 start.
      uint8_t* data = column->values.data();
      for (int64_t i = 0; i < count; ++i) {
        const int64_t micros = Int96ToUnixMicros(data + i * 12);
        std::memcpy(data + i * 8, &micros, 8);
      }
      column->values.resize(static_cast<size_t>(count) * 8);
      break;
    }
    case Type::BYTE_ARRAY:
    case Type::FIXED_LEN_BYTE_ARRAY:
      if (type.id == TypeId::kDecimal) FLOE_RETURN_IF_ERROR(DecimalsFromBytes(leaf, count, column));
      break;
    default: break;
  }
  if (!type.is_binary_like()) column->offsets.clear();
  column->type = type;
  column->type.children.clear();
  column->length = count;
  column->null_count = 0;
  column->validity.clear();
  return Status::OK();
}

}  // namespace floe::parquet
