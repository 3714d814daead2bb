// MurmurHash3 x86_32 (seed 0 by default) and Iceberg's value hashing rules
// (table spec Appendix B), used by the bucket transform.
//
// Contract: pure functions. Integral values (int, long, date, time,
// timestamps) hash as the 8-byte little-endian long, nanosecond timestamps
// after floor-division to micros; strings as UTF-8; uuids as 16 big-endian
// bytes; decimals as the minimal two's-complement big-endian unscaled bytes.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/status.h"
#include "iceberg/spec/literal.h"

namespace floe::iceberg {

int32_t Murmur3Hash32(std::string_view bytes, uint32_t seed = 0);
int32_t HashLong(int64_t value);

// The Appendix B hash of a non-null literal; float/double/boolean follow the
// "not bucketable" table. Null has no hash: InvalidArgument.
Result<int32_t> HashLiteral(const Literal& value);

}  // namespace floe::iceberg
