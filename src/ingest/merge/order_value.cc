// OrderValue: see order_value.h for the contract.
#include "ingest/merge/order_value.h"

#include <cstring>
#include <limits>
#include <string_view>

namespace floe::ingest {
namespace {

constexpr size_t kMaxQuotedChars = 80;

const char* KindName(OrderingKind kind) {
  switch (kind) {
    case OrderingKind::kPaddedHex: return "hex";
    case OrderingKind::kNumber: return "number";
    case OrderingKind::kTimestamp: return "timestamp";
  }
  return "unknown";
}

// The value quoted for an error message, cut short so a huge cell cannot flood a log.
std::string Quoted(std::string_view text) {
  std::string out = "\"";
  if (text.size() > kMaxQuotedChars) {
    out.append(text.substr(0, kMaxQuotedChars));
    out.append("...");
  } else {
    out.append(text);
  }
  out.push_back('"');
  return out;
}

std::string Where(const std::string& column_name, int64_t row) {
  return "column " + column_name + " row " + std::to_string(row) + ": ";
}

int HexDigitValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool IsIntegerLike(TypeId id) {
  switch (id) {
    case TypeId::kInt8:
    case TypeId::kInt16:
    case TypeId::kInt32:
    case TypeId::kInt64:
    case TypeId::kUInt8:
    case TypeId::kUInt16:
    case TypeId::kUInt32:
    case TypeId::kDate:
    case TypeId::kTimestamp: return true;
    default: return false;
  }
}

bool IsNumericOrderType(const DataType& type) {
  if (IsIntegerLike(type.id)) return true;
  return type.id == TypeId::kDecimal && type.scale == 0 && type.precision <= 18;
}

// The value of a numeric ordering column as int64; the caller checked the type.
Result<int64_t> NumericValue(const Column& column, int64_t row, const std::string& column_name) {
  switch (column.type.id) {
    case TypeId::kInt8: return int64_t{column.Value<int8_t>(row)};
    case TypeId::kInt16: return int64_t{column.Value<int16_t>(row)};
    case TypeId::kInt32:
    case TypeId::kDate: return int64_t{column.Value<int32_t>(row)};
    case TypeId::kInt64:
    case TypeId::kTimestamp: return column.Value<int64_t>(row);
    case TypeId::kUInt8: return int64_t{column.Value<uint8_t>(row)};
    case TypeId::kUInt16: return int64_t{column.Value<uint16_t>(row)};
    case TypeId::kUInt32: return int64_t{column.Value<uint32_t>(row)};
    case TypeId::kDecimal: {
      __int128 unscaled = column.Value<__int128>(row);
      if (unscaled > std::numeric_limits<int64_t>::max() || unscaled < std::numeric_limits<int64_t>::min()) {
        return Status::InvalidArgument(Where(column_name, row) + "decimal value does not fit in 18 digits");
      }
      return static_cast<int64_t>(unscaled);
    }
    default: break;
  }
  return Status::Internal(Where(column_name, row) + "not a numeric ordering column");
}

Result<OrderValue> PaddedHexValue(std::string_view text, int64_t row, const std::string& column_name) {
  if (text.empty()) {
    return Status::InvalidArgument(Where(column_name, row) + "empty string is not a hex ordering value");
  }
  if (text.size() > 32) {
    return Status::InvalidArgument(Where(column_name, row) + Quoted(text) + " has " +
                                   std::to_string(text.size()) + " hex digits, at most 32");
  }
  // Left-pad to 32 digits: digit k of the padded string is nibble k of the 16 bytes.
  OrderValue out;
  const size_t pad = 32 - text.size();
  for (size_t i = 0; i < text.size(); ++i) {
    int digit = HexDigitValue(text[i]);
    if (digit < 0) {
      return Status::InvalidArgument(Where(column_name, row) + Quoted(text) +
                                     " is not a hex number (character " + std::to_string(i) + ")");
    }
    size_t nibble = pad + i;
    out.bytes[nibble / 2] |= static_cast<uint8_t>(nibble % 2 == 0 ? digit << 4 : digit);
  }
  return out;
}

}  // namespace

std::string OrderValue::ToHex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(32, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xF];
  }
  return out;
}

Status CheckOrderColumn(const Column& column, OrderingKind kind, const std::string& column_name) {
  const DataType& type = column.type;
  if (kind == OrderingKind::kPaddedHex) {
    if (type.id == TypeId::kString || type.id == TypeId::kBinary) return Status::OK();
    return Status::InvalidArgument("ordering column " + column_name + " has type " + type.ToString() +
                                   "; hex ordering needs a string column");
  }
  if (IsNumericOrderType(type)) return Status::OK();
  return Status::InvalidArgument("ordering column " + column_name + " has type " + type.ToString() + "; " +
                                 KindName(kind) +
                                 " ordering needs an integer, date, timestamp or decimal(<=18, 0) column");
}

Result<OrderValue> OrderValueAt(const Column& column, int64_t row, OrderingKind kind,
                                const std::string& column_name) {
  FLOE_RETURN_IF_ERROR(CheckOrderColumn(column, kind, column_name));
  if (row < 0 || row >= column.length) {
    return Status::OutOfRange(Where(column_name, row) + "row outside the column's " +
                              std::to_string(column.length) + " rows");
  }
  if (column.IsNull(row)) {
    return Status::InvalidArgument(Where(column_name, row) + "ordering value is null");
  }
  if (kind == OrderingKind::kPaddedHex) {
    if (column.offsets.size() <= static_cast<size_t>(row) + 1) {
      return Status::Internal(Where(column_name, row) + "column has too few offsets");
    }
    return PaddedHexValue(column.StringAt(row), row, column_name);
  }
  const size_t width = static_cast<size_t>(column.type.fixed_width());
  if (column.values.size() < (static_cast<size_t>(row) + 1) * width) {
    return Status::Internal(Where(column_name, row) + "column has too few values");
  }
  FLOE_ASSIGN_OR_RETURN(int64_t value, NumericValue(column, row, column_name));
  // Flipping the sign bit maps int64 order onto unsigned (memcmp) order.
  uint64_t biased = static_cast<uint64_t>(value) ^ (uint64_t{1} << 63);
  OrderValue out;
  for (int i = 0; i < 8; ++i) out.bytes[15 - i] = static_cast<uint8_t>(biased >> (8 * i));
  return out;
}

}  // namespace floe::ingest
