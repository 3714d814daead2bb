// OrderValue: see order_value.h for the contract.
#include "ingest/merge/order_value.h"

#include <cstring>
#include <limits>
#include <string_view>

#include "iceberg/spec/literal.h"
#include "columnar/integer_cells.h"
#include "common/strings.h"

namespace floe::ingest {
namespace {

constexpr size_t kMaxQuotedChars = 80;
constexpr size_t kMaxDigits = 38;  // 10^38 - 1 < 2^128

bool IsTextKind(OrderingKind kind) {
  return kind == OrderingKind::kPaddedHex || kind == OrderingKind::kDigits ||
         kind == OrderingKind::kTimestampText;
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

// Integers that fit int64 exactly (uint64 does not), dates and timestamps.
bool IsIntegerLike(TypeId id) {
  return (IsIntegerType(id) && id != TypeId::kUInt64) || id == TypeId::kDate || id == TypeId::kTimestamp;
}

bool IsNumericOrderType(const DataType& type) {
  if (IsIntegerLike(type.id)) return true;
  return type.id == TypeId::kDecimal && type.scale == 0 && type.precision <= 18;
}

// The value of a numeric ordering column as int64; the caller checked the type.
Result<int64_t> NumericValue(const Column& column, int64_t row, const std::string& column_name) {
  if (IsIntegerLike(column.type.id)) return IntegerCellAt(column, row);
  switch (column.type.id) {
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

Result<OrderValue> DigitsValue(std::string_view text, int64_t row, const std::string& column_name) {
  if (text.empty()) {
    return Status::InvalidArgument(Where(column_name, row) + "empty string is not a digits ordering value");
  }
  size_t first = 0;
  while (first + 1 < text.size() && text[first] == '0') ++first;  // leading zeros do not count
  if (text.size() - first > kMaxDigits) {
    return Status::InvalidArgument(Where(column_name, row) + Quoted(text) + " has more than " +
                                   std::to_string(kMaxDigits) + " significant digits");
  }
  unsigned __int128 value = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') {
      return Status::InvalidArgument(Where(column_name, row) + Quoted(text) +
                                     " is not a decimal number (character " + std::to_string(i) + ")");
    }
    value = value * 10 + static_cast<unsigned>(text[i] - '0');
  }
  return OrderValueFromHalves(static_cast<uint64_t>(value >> 64), static_cast<uint64_t>(value));
}

// Parses exactly `width` decimal digits at text[*pos] and advances.
bool ReadDigits(std::string_view text, size_t* pos, size_t width, int64_t* out) {
  if (*pos + width > text.size()) return false;
  int64_t value = 0;
  for (size_t i = 0; i < width; ++i) {
    const char c = text[*pos + i];
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  *pos += width;
  *out = value;
  return true;
}

// "yyyy-MM-dd HH:mm:ss[.f{1,9}][Z]" as nanoseconds since the epoch.
Result<int64_t> TimestampTextValue(std::string_view text, int64_t row, const std::string& column_name) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument(Where(column_name, row) + Quoted(text) +
                                   " is not a timestamp like \"2024-03-08 14:22:34.123456\" (" + why + ")");
  };
  size_t pos = 0;
  int64_t year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  auto separator = [&](char want) {
    if (pos >= text.size() || text[pos] != want) return false;
    ++pos;
    return true;
  };
  if (!ReadDigits(text, &pos, 4, &year) || !separator('-') || !ReadDigits(text, &pos, 2, &month) ||
      !separator('-') || !ReadDigits(text, &pos, 2, &day)) {
    return bad("date");
  }
  if (pos >= text.size() || (text[pos] != ' ' && text[pos] != 'T')) return bad("no time");
  ++pos;
  if (!ReadDigits(text, &pos, 2, &hour) || !separator(':') || !ReadDigits(text, &pos, 2, &minute) ||
      !separator(':') || !ReadDigits(text, &pos, 2, &second)) {
    return bad("time");
  }
  int64_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    size_t digits = 0;
    while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
      if (++digits > 9) return bad("more than 9 fraction digits");
      nanos = nanos * 10 + (text[pos++] - '0');
    }
    if (digits == 0) return bad("no fraction digits after '.'");
    for (size_t i = digits; i < 9; ++i) nanos *= 10;
  }
  if (pos < text.size() && text[pos] == 'Z') ++pos;
  if (pos != text.size()) return bad("unexpected text after the time");
  const int64_t month_days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12 || day < 1 || day > month_days[month - 1] || hour > 23 || minute > 59 ||
      second > 60) {
    return bad("field out of range");
  }
  // Nanoseconds since 1970 fit int64 from 1677-09-21 to 2262-04-11; whole years only.
  if (year < 1678 || year > 2261) return bad("years 1678 to 2261");
  const int64_t days = iceberg::DaysFromCivil(year, static_cast<int32_t>(month), static_cast<int32_t>(day));
  if (month == 2 && day == 29 && iceberg::CivilFromDays(days).month != 2) return bad("not a leap year");
  const int64_t seconds = days * 86'400 + hour * 3'600 + minute * 60 + second;
  return seconds * 1'000'000'000 + nanos;
}

// A value of an 8-byte kind with its sign bit flipped (memcmp order of int64).
Result<uint64_t> BiasedValue(const Column& column, int64_t row, OrderingKind kind,
                             const std::string& column_name) {
  int64_t value = 0;
  if (kind == OrderingKind::kTimestampText) {
    FLOE_ASSIGN_OR_RETURN(value, TimestampTextValue(column.StringAt(row), row, column_name));
  } else {
    const size_t width = static_cast<size_t>(column.type.fixed_width());
    if (column.values.size() < (static_cast<size_t>(row) + 1) * width) {
      return Status::Internal(Where(column_name, row) + "column has too few values");
    }
    FLOE_ASSIGN_OR_RETURN(value, NumericValue(column, row, column_name));
  }
  return static_cast<uint64_t>(value) ^ (uint64_t{1} << 63);
}

}  // namespace

std::string OrderValue::ToHex() const {
  return HexEncode(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

Status CheckOrderColumn(const Column& column, OrderingKind kind, const std::string& column_name) {
  const DataType& type = column.type;
  if (IsTextKind(kind)) {
    if (type.id == TypeId::kString || type.id == TypeId::kBinary) return Status::OK();
    return Status::InvalidArgument("ordering column " + column_name + " has type " + type.ToString() + "; " +
                                   OrderingKindName(kind) + " ordering needs a string column");
  }
  if (IsNumericOrderType(type)) return Status::OK();
  return Status::InvalidArgument("ordering column " + column_name + " has type " + type.ToString() + "; " +
                                 OrderingKindName(kind) +
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
  if (IsTextKind(kind) && column.offsets.size() <= static_cast<size_t>(row) + 1) {
    return Status::Internal(Where(column_name, row) + "column has too few offsets");
  }
  if (kind == OrderingKind::kPaddedHex) return PaddedHexValue(column.StringAt(row), row, column_name);
  if (kind == OrderingKind::kDigits) return DigitsValue(column.StringAt(row), row, column_name);
  // Flipping the sign bit maps int64 order onto unsigned (memcmp) order.
  FLOE_ASSIGN_OR_RETURN(uint64_t biased, BiasedValue(column, row, kind, column_name));
  return OrderValueFromHalves(0, biased);
}

std::string OrderingSpec::ColumnsText() const {
  std::string text;
  for (const OrderColumn& column : columns) text += (text.empty() ? "" : ",") + column.name;
  return text;
}

std::string OrderingSpec::KindsText() const {
  std::string text;
  for (const OrderColumn& column : columns) {
    text += std::string(text.empty() ? "" : ",") + OrderingKindName(column.kind);
  }
  if (missing_is_oldest) text += ";missing=oldest";
  return text;
}

Status CheckOrderingSpec(const OrderingSpec& spec) {
  if (spec.columns.empty()) return Status::InvalidArgument("no ordering column");
  if (spec.columns.size() > 2) {
    return Status::InvalidArgument("ordering by " + std::to_string(spec.columns.size()) +
                                   " columns; an ordering value holds two 8-byte columns at most");
  }
  if (spec.columns.size() == 2) {
    for (const OrderColumn& column : spec.columns) {
      if (column.kind == OrderingKind::kPaddedHex || column.kind == OrderingKind::kDigits) {
        return Status::InvalidArgument("ordering column " + column.name + " of kind " +
                                       OrderingKindName(column.kind) +
                                       " needs all 16 bytes of an ordering value; it can only order alone");
      }
    }
  }
  return Status::OK();
}

Result<OrderValue> OrderingValueAt(const OrderingSpec& spec, const std::vector<const Column*>& columns,
                                   int64_t row) {
  if (columns.size() != spec.columns.size() || columns.empty() || columns.size() > 2) {
    return Status::Internal("ordering: " + std::to_string(columns.size()) + " columns for a spec of " +
                            std::to_string(spec.columns.size()));
  }
  // A missing value: an absent column, a null, or an empty string.
  for (size_t i = 0; i < columns.size(); ++i) {
    const Column* column = columns[i];
    const bool missing =
        column == nullptr || (row >= 0 && row < column->length && column->IsNull(row)) ||
        (IsTextKind(spec.columns[i].kind) && row >= 0 && row < column->length &&
         column->offsets.size() > static_cast<size_t>(row) + 1 && column->StringAt(row).empty());
    if (!missing) continue;
    if (spec.missing_is_oldest) return OrderValue{};
    if (column == nullptr) {
      return Status::InvalidArgument("missing ordering column " + spec.columns[i].name);
    }
  }
  if (columns.size() == 1) return OrderValueAt(*columns[0], row, spec.columns[0].kind, spec.columns[0].name);
  uint64_t halves[2] = {0, 0};
  for (size_t i = 0; i < 2; ++i) {
    const Column& column = *columns[i];
    const OrderColumn& wanted = spec.columns[i];
    FLOE_RETURN_IF_ERROR(CheckOrderColumn(column, wanted.kind, wanted.name));
    if (row < 0 || row >= column.length) {
      return Status::OutOfRange(Where(wanted.name, row) + "row outside the column's " +
                                std::to_string(column.length) + " rows");
    }
    if (column.IsNull(row))
      return Status::InvalidArgument(Where(wanted.name, row) + "ordering value is null");
    if (IsTextKind(wanted.kind) && column.offsets.size() <= static_cast<size_t>(row) + 1) {
      return Status::Internal(Where(wanted.name, row) + "column has too few offsets");
    }
    FLOE_ASSIGN_OR_RETURN(halves[i], BiasedValue(column, row, wanted.kind, wanted.name));
  }
  return OrderValueFromHalves(halves[0], halves[1]);
}

}  // namespace floe::ingest
