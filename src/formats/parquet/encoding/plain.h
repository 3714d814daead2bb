// PLAIN encoding: booleans bit-packed LSB first, BYTE_ARRAY as 4-byte
// little-endian length + bytes, fixed-width values back to back.
//
// Contract: decoders read untrusted bytes and never read past `size`; input
// shorter than `count` values is Corruption. Byte-array decoders append in the
// Column layout: `offsets` gets one entry per value, the end of that value in
// `out`. `consumed` reports the bytes the `count` values occupied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "common/status.h"

namespace floe::parquet {

// Writes `count` bytes of 0/1 to `out`.
Status DecodePlainBooleans(const uint8_t* data, size_t size, int64_t count, uint8_t* out);
Status DecodePlainByteArray(const uint8_t* data, size_t size, int64_t count, std::vector<int64_t>* offsets,
                            std::vector<uint8_t>* out, size_t* consumed);
// Copies count*width bytes to `out`.
Status DecodePlainFixed(const uint8_t* data, size_t size, int width, int64_t count, uint8_t* out,
                        size_t* consumed);

// Appends ceil(count/8) bytes; a value is true when its byte is non-zero.
void EncodePlainBooleans(const uint8_t* values, int64_t count, std::vector<uint8_t>* out);
// Appends one value.
void EncodePlainByteArray(std::string_view value, std::vector<uint8_t>* out);
// Appends `count` values in the Column layout: value i is
// data[offsets[i], offsets[i+1]) (offsets has count+1 entries).
void EncodePlainByteArrays(const int64_t* offsets, const uint8_t* data, int64_t count,
                           std::vector<uint8_t>* out);

}  // namespace floe::parquet
