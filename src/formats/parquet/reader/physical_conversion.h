// Conversion of decoded physical values (value_decoder.h layout) into the
// leaf's floe type (schema.h): narrowing of annotated INT32s, INT96 to
// microsecond timestamps, decimals (INT32/INT64/big-endian bytes) to 16-byte
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
// microseconds since the Unix epoch (floored), wrapping on overflow. Micro-
// rather than nanoseconds because Spark writes INT96 dates far outside the
// +-292 years int64 nanoseconds can hold (int96_from_spark.parquet).
int64_t Int96ToUnixMicros(const uint8_t* bytes);

}  // namespace floe::parquet
