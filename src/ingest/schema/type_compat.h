// The type rules of schema reconciliation: the Iceberg type a source column
// gets, and how an incoming Iceberg primitive type fits a table column's.
//
// Contract: IcebergTypeForSource maps floe types as the Parquet reader
// produces them (unsigned 8/16-bit -> int, uint32 -> long, uint64 ->
// decimal(20,0), float16 -> float, ms -> us, INT96 (already us) -> timestamp,
// ns timestamps -> timestamp_ns in v3, timestamp before); nested types keep
// their shape and nullability with field ids 0. Types Iceberg cannot hold
// (nanosecond times, decimals beyond 38 digits, zero-width fixed) are
// NotSupported. MatchPrimitive: widening the table (int->long,
// float->double, decimal precision with the same scale) is kPromote; the
// reverse is kCastUp; timestamps of the same zone kind fit each other in any
// unit (kCastUp, converted by ConformBatch); int, long and decimal cast up
// into double, and a value with no exact double (a long beyond 2^53, a
// decimal of more than kMaxExactDecimalDigitsInDouble significant digits) is
// an error naming the row, never rounded; date into timestamp is not a cast;
// anything else is kIncompatible.
#pragma once

#include "columnar/types.h"
#include "common/status.h"
#include "iceberg/spec/types.h"

namespace floe::ingest::internal {

// Decimal values of at most this many significant digits convert to a double
// that prints back as the same digits.
inline constexpr int32_t kMaxExactDecimalDigitsInDouble = 15;

Result<iceberg::Type> IcebergTypeForSource(const DataType& type, int format_version);

enum class PrimitiveMatch { kSame, kCastUp, kPromote, kIncompatible };

// How values of `incoming` fit a table column of type `table` (both primitive).
PrimitiveMatch MatchPrimitive(const iceberg::Type& table, const iceberg::Type& incoming);

// Sets every nested field id of `type` (recursively) from *next_id upwards,
// each field before its own children.
void AssignFreshIds(iceberg::Type* type, int32_t* next_id);

}  // namespace floe::ingest::internal
