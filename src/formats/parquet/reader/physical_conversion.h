// Conversion of decoded physical values (value_decoder.h layout) into the
// leaf's floe type (schema.h): narrowing of annotated INT32s, INT96 to
// nanosecond timestamps, decimals (INT32/INT64/big-endian bytes) to 16-byte
// int128, TIME_MILLIS to int64. Layout-identical cases move buffers.
//
// Contract: `column` holds `count` dense physical values; on return it is a
// valid Column of the leaf's floe type with no nulls. Decimal byte strings
// longer than 16 bytes must be sign extensions of an int128 (else OutOfRange).
#pragma once

#include <cstdint>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/schema.h"

namespace floe::parquet {

Status ConvertPhysicalToLeafType(const ColumnDescriptor& leaf, int64_t count, Column* column);

// INT96 (8 bytes nanoseconds of day + 4 bytes Julian day, little-endian) to
// nanoseconds since the Unix epoch, wrapping on overflow.
int64_t Int96ToUnixNanos(const uint8_t* bytes);

}  // namespace floe::parquet
