// OrderValue: a change's ordering value (CDA gwcbi___seqval_hex, a number, a
// timestamp, a DMS change sequence or timestamp string, or two of them)
// normalised to 16 bytes that compare with memcmp.
//
// Contract for one column: kPaddedHex accepts 1-32 hex digits (either case,
// no prefix), left-pads to 32 and stores the 16 bytes big-endian; kDigits
// accepts 1-38 decimal digits (leading zeros allowed) and stores the number
// as 16 bytes big-endian; kNumber and kTimestamp accept integer columns
// (int8..int64, uint8..uint32), dates, timestamps and decimals with scale 0
// up to 18 digits; kTimestampText accepts "yyyy-MM-dd HH:mm:ss" strings
// (also 'T' between date and time) with up to 9 fraction digits and an
// optional 'Z', years 1678-2261, read as nanoseconds since the epoch; these
// three are stored as the value with its sign bit flipped, big-endian, in
// the low 8 bytes (the high 8 bytes are zero).
//
// Two columns (OrderingSpec): each must be one of the 8-byte kinds; the
// first column's 8 bytes are the high half, the second's the low half, so
// the first decides and the second breaks ties, exactly. Hex and digit
// strings need all 16 bytes and can only order alone (CheckOrderingSpec
// refuses such specs). A null, empty or unusable value is InvalidArgument
// naming the column and the row, except with missing_is_oldest, where a row
// whose ordering column is null, an empty string or absent from its unit
// orders before every other value (all 16 bytes zero: DMS full-load rows).
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "ingest/config/config.h"

namespace floe::ingest {

struct OrderValue {
  std::array<uint8_t, 16> bytes{};
  auto operator<=>(const OrderValue&) const = default;
  bool operator==(const OrderValue&) const = default;
  // 32 lowercase hex digits.
  std::string ToHex() const;
};

// The big-endian 8-byte half of `order` at `offset` (0: high, 8: low), so
// halves compare like the bytes; and the value made of two halves.
inline uint64_t OrderValueHalf(const OrderValue& order, size_t offset) {
  uint64_t v = 0;
  for (size_t i = 0; i < 8; ++i) v = (v << 8) | order.bytes[offset + i];
  return v;
}
inline OrderValue OrderValueFromHalves(uint64_t hi, uint64_t lo) {
  OrderValue order;
  for (size_t i = 0; i < 8; ++i) {
    order.bytes[7 - i] = static_cast<uint8_t>(hi >> (8 * i));
    order.bytes[15 - i] = static_cast<uint8_t>(lo >> (8 * i));
  }
  return order;
}

// Whether `column`'s type can hold ordering values of `kind`.
Status CheckOrderColumn(const Column& column, OrderingKind kind, const std::string& column_name);
Result<OrderValue> OrderValueAt(const Column& column, int64_t row, OrderingKind kind,
                                const std::string& column_name);

// How a table's changes are ordered: [merge] order_by.
struct OrderingSpec {
  std::vector<OrderColumn> columns;  // one, or two 8-byte kinds
  bool missing_is_oldest = false;
  bool operator==(const OrderingSpec&) const = default;
  static OrderingSpec Of(const MergeConfig& merge) { return {merge.order_by, merge.unordered_rows_oldest}; }
  // "seq" or "ts,lsn"; and "hex" or "timestamp,number", as index files record them.
  std::string ColumnsText() const;
  std::string KindsText() const;
};

// One or two columns, two only of 8-byte kinds; InvalidArgument saying why not.
Status CheckOrderingSpec(const OrderingSpec& spec);

// The ordering value of `row`: `columns[i]` holds spec.columns[i], or is
// nullptr when the unit lacks that column (an error unless missing_is_oldest).
// The caller checked each present column with CheckOrderColumn.
Result<OrderValue> OrderingValueAt(const OrderingSpec& spec, const std::vector<const Column*>& columns,
                                   int64_t row);

}  // namespace floe::ingest
