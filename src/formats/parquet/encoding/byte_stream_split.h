// BYTE_STREAM_SPLIT for any fixed width (FLOAT, DOUBLE, INT32, INT64, FLBA).
//
// Contract: `size` must equal count * width, else Corruption.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"

namespace floe::parquet {

// Writes count*width bytes to `out` (values in their natural byte order).
Status DecodeByteStreamSplit(const uint8_t* data, size_t size, int width, int64_t count, uint8_t* out);
std::vector<uint8_t> EncodeByteStreamSplit(const uint8_t* values, int width, int64_t count);

}  // namespace floe::parquet
