// DELTA_LENGTH_BYTE_ARRAY and DELTA_BYTE_ARRAY (incremental/prefix encoding)
// for BYTE_ARRAY (and, for DELTA_BYTE_ARRAY, FIXED_LEN_BYTE_ARRAY).
//
// Contract: decoders append `count` values to `offsets`/`data` in the Column
// layout (offsets gets one new entry per value, each the end of that value
// in `data`). Untrusted input: negative lengths, prefixes longer than the
// previous value and short input are Corruption. A count of 0 reads nothing
// (the data may then be empty).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::parquet {

Status DecodeDeltaLengthByteArray(const uint8_t* data, size_t size, int64_t count,
                                  std::vector<int64_t>* offsets, std::vector<uint8_t>* out);
Status DecodeDeltaByteArray(const uint8_t* data, size_t size, int64_t count, std::vector<int64_t>* offsets,
                            std::vector<uint8_t>* out);

std::vector<uint8_t> EncodeDeltaLengthByteArray(const std::vector<std::string_view>& values);
std::vector<uint8_t> EncodeDeltaByteArray(const std::vector<std::string_view>& values);

}  // namespace floe::parquet
