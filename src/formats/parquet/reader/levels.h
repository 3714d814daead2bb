// Decoding of definition and repetition levels of one data page.
//
// Contract: levels are decoded into int16 and every level is checked to be
// <= max_level (Corruption otherwise, naming the level kind). Data page v1
// levels are RLE with a 4-byte length prefix, or the legacy BIT_PACKED
// encoding (MSB-first, no prefix); v2 levels are RLE without prefix over a
// byte range the page header gives.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"
#include "formats/parquet/thrift/parquet_types.h"

namespace floe::parquet {

// Decodes `count` v1 levels starting at data[0]; returns the bytes used.
Result<size_t> DecodeLevelsV1(Encoding encoding, const uint8_t* data, size_t size, int16_t max_level,
                              int64_t count, const char* kind, int16_t* out);

// Decodes `count` RLE levels occupying exactly data[0, size) (data page v2).
Status DecodeLevelsV2(const uint8_t* data, size_t size, int16_t max_level, int64_t count, const char* kind,
                      int16_t* out);

// The same into one byte per level, for max_level <= 255 (flat columns, whose
// definition level is the slot's validity). `present`, when not null,
// receives the number of levels equal to max_level.
Result<size_t> DecodeLevelsV1(Encoding encoding, const uint8_t* data, size_t size, int16_t max_level,
                              int64_t count, const char* kind, uint8_t* out, int64_t* present = nullptr);
Status DecodeLevelsV2(const uint8_t* data, size_t size, int16_t max_level, int64_t count, const char* kind,
                      uint8_t* out, int64_t* present = nullptr);

}  // namespace floe::parquet
