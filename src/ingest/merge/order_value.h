// OrderValue: a change's ordering value (CDA gwcbi___seqval_hex, a number or
// a timestamp) normalised to 16 bytes that compare with memcmp.
//
// Contract: kPaddedHex accepts 1-32 hex digits (either case, no prefix),
// left-pads to 32 and stores the 16 bytes big-endian; kNumber and
// kTimestamp accept integer columns (int8..int64, uint8..uint32), dates,
// timestamps and decimals with scale 0 up to 18 digits, stored as the value
// with its sign bit flipped, big-endian, in the low 8 bytes. A null or an
// unusable value is InvalidArgument naming the column and the row.
#pragma once

#include <array>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <string>

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

}  // namespace floe::ingest
