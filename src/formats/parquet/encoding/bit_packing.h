// Bit packing shared by the RLE/bit-packed hybrid and DELTA_BINARY_PACKED,
// plus the ULEB128/zigzag varints both use.
//
// Contract: values are packed LSB first in groups of 8; a group of 8 values
// of width w occupies exactly w bytes. The unpackers never read past
// `in_size` bytes: a short final group is read as if zero-padded.
// Unpacking dispatches once per call on the bit width (specialised loops per
// width), so callers should unpack many groups per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace floe::parquet::bits {

// Unpacks `groups` groups of 8 values of `bit_width` bits (0..32) from `in`
// (`in_size` readable bytes) into out[0, groups*8).
void UnpackGroups32(const uint8_t* in, size_t in_size, int bit_width, int64_t groups, uint32_t* out);
// Same for 64-bit values, bit_width 0..64.
void UnpackGroups64(const uint8_t* in, size_t in_size, int bit_width, int64_t groups, uint64_t* out);

// Appends `count` values (count a multiple of 8) of `bit_width` bits (0..64),
// packed LSB first; bits above bit_width in a value are ignored.
void PackGroups(const uint64_t* values, int64_t count, int bit_width, std::vector<uint8_t>* out);
void PackGroups(const uint32_t* values, int64_t count, int bit_width, std::vector<uint8_t>* out);

// ULEB128. Reading returns false on truncation or on more than 64 bits.
bool ReadUleb128(const uint8_t* data, size_t size, size_t* pos, uint64_t* value);
void WriteUleb128(uint64_t value, std::vector<uint8_t>* out);

inline uint64_t ZigZagEncode(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
inline int64_t ZigZagDecode(uint64_t v) {
  return static_cast<int64_t>((v >> 1) ^ (~(v & 1) + 1));
}

}  // namespace floe::parquet::bits
