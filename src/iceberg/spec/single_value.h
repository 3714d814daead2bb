// Iceberg binary single-value serialization (table spec Appendix D), used for
// column lower/upper bounds and manifest-list partition summaries.
//
// Contract: int/date 4-byte LE, long/time/timestamps 8-byte LE, float/double
// IEEE LE, boolean one byte, string UTF-8, uuid 16 bytes big-endian,
// fixed/binary raw, decimal minimal big-endian two's complement of the
// unscaled value. Decoding checks lengths against the type and never reads
// past the input.
#pragma once

#include <string>
#include <string_view>

#include "common/status.h"
#include "iceberg/spec/literal.h"
#include "iceberg/spec/types.h"

namespace floe::iceberg {

// Fewest bytes that hold `unscaled` as big-endian two's complement (>= 1).
std::string DecimalToMinimalBytes(Int128 unscaled);
// Big-endian two's complement of 1..16 bytes.
Result<Int128> DecimalFromBytes(std::string_view bytes);

// Encodes a non-null literal as a value of `type` (the literal must match it).
Result<std::string> SerializeSingleValue(const Literal& value, const Type& type);
Result<Literal> DeserializeSingleValue(std::string_view bytes, const Type& type);

}  // namespace floe::iceberg
