#include "formats/parquet/encoding/plain.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>

namespace floe::parquet {

namespace {

// kBitsToBytes[b] holds the 8 bits of b, LSB first, as 8 bytes of 0/1.
constexpr std::array<uint64_t, 256> MakeBitsToBytes() {
  std::array<uint64_t, 256> table{};
  for (int b = 0; b < 256; ++b) {
    uint64_t bytes = 0;
    for (int bit = 0; bit < 8; ++bit) bytes |= static_cast<uint64_t>((b >> bit) & 1) << (8 * bit);
    table[static_cast<size_t>(b)] = bytes;
  }
  return table;
}
constexpr std::array<uint64_t, 256> kBitsToBytes = MakeBitsToBytes();

uint32_t LoadLength(const uint8_t* p) {
  return static_cast<uint32_t>(p[0]) | static_cast<uint32_t>(p[1]) << 8 | static_cast<uint32_t>(p[2]) << 16 |
         static_cast<uint32_t>(p[3]) << 24;
}

void StoreLength(uint32_t length, std::vector<uint8_t>* out) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<uint8_t>(length >> (8 * i)));
}

}  // namespace

Status DecodePlainBooleans(const uint8_t* data, size_t size, int64_t count, uint8_t* out) {
  if (count < 0) return Status::InvalidArgument("PLAIN boolean decode of a negative count");
  const uint64_t needed = (static_cast<uint64_t>(count) + 7) / 8;
  if (needed > size) {
    return Status::Corruption("PLAIN booleans: " + std::to_string(count) + " values need " +
                              std::to_string(needed) + " bytes, only " + std::to_string(size) + " present");
  }
  const int64_t full_bytes = count / 8;
  for (int64_t j = 0; j < full_bytes; ++j) std::memcpy(out + j * 8, &kBitsToBytes[data[j]], 8);
  for (int64_t i = full_bytes * 8; i < count; ++i) out[i] = (data[i / 8] >> (i % 8)) & 1;
  return Status::OK();
}

Status DecodePlainByteArray(const uint8_t* data, size_t size, int64_t count, std::vector<int64_t>* offsets,
                            std::vector<uint8_t>* out, size_t* consumed) {
  if (count < 0) return Status::InvalidArgument("PLAIN byte array decode of a negative count");
  // Every value takes at least its 4-byte length, which bounds both buffers:
  // they are sized once up front, written directly, and trimmed at the end.
  if (static_cast<uint64_t>(count) > size / 4) {
    return Status::Corruption("PLAIN byte array: " + std::to_string(count) + " values cannot fit in " +
                              std::to_string(size) + " bytes");
  }
  const size_t old_offsets = offsets->size();
  const size_t old_bytes = out->size();
  offsets->resize(old_offsets + static_cast<size_t>(count));
  const size_t capacity = size - static_cast<size_t>(count) * 4;
  out->resize(old_bytes + capacity);
  int64_t* offset_dst = offsets->data() + old_offsets;
  uint8_t* byte_dst = out->data() + old_bytes;
  size_t written = 0;
  size_t pos = 0;
  for (int64_t i = 0; i < count; ++i) {
    if (size - pos < 4) {
      offsets->resize(old_offsets);
      out->resize(old_bytes);
      return Status::Corruption("PLAIN byte array value " + std::to_string(i) + " of " +
                                std::to_string(count) + ": length prefix truncated at offset " +
                                std::to_string(pos));
    }
    const uint32_t length = LoadLength(data + pos);
    pos += 4;
    if (length > size - pos) {
      offsets->resize(old_offsets);
      out->resize(old_bytes);
      return Status::Corruption("PLAIN byte array value " + std::to_string(i) + " at offset " +
                                std::to_string(pos - 4) + " declares " + std::to_string(length) +
                                " bytes, only " + std::to_string(size - pos) + " remain");
    }
    // The buffer holds size - 4 * count bytes: the values, if every one of
    // the `count` length prefixes is present. A value that leaves no room for
    // the prefixes still to come means the page is truncated; refusing it here
    // also keeps the write inside the buffer.
    if (length > capacity - written) {
      offsets->resize(old_offsets);
      out->resize(old_bytes);
      return Status::Corruption("PLAIN byte array value " + std::to_string(i) + " of " +
                                std::to_string(count) + " at offset " + std::to_string(pos - 4) +
                                " declares " + std::to_string(length) + " bytes, leaving no room for the " +
                                std::to_string(count - i - 1) + " length prefixes that follow");
    }
    // Short values: one 16-byte copy, when both buffers have the room (the
    // bytes past the value are overwritten by the next ones or trimmed).
    // An empty buffer may have a null data(); memcpy must not see it.
    if (length <= 16 && size - pos >= 16 && capacity - written >= 16) {
      std::memcpy(byte_dst + written, data + pos, 16);
    } else if (length > 0) {
      std::memcpy(byte_dst + written, data + pos, length);
    }
    written += length;
    pos += length;
    offset_dst[i] = static_cast<int64_t>(old_bytes + written);
  }
  out->resize(old_bytes + written);
  *consumed = pos;
  return Status::OK();
}

Status DecodePlainFixed(const uint8_t* data, size_t size, int width, int64_t count, uint8_t* out,
                        size_t* consumed) {
  if (width <= 0 || count < 0) {
    return Status::InvalidArgument("PLAIN fixed-width decode with width " + std::to_string(width) +
                                   " and count " + std::to_string(count));
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(count), static_cast<uint64_t>(width), &bytes) ||
      bytes > size) {
    return Status::Corruption("PLAIN fixed-width data has " + std::to_string(size) + " bytes, " +
                              std::to_string(count) + " values of " + std::to_string(width) +
                              " bytes need more");
  }
  if (bytes > 0) std::memcpy(out, data, bytes);
  *consumed = bytes;
  return Status::OK();
}

void EncodePlainBooleans(const uint8_t* values, int64_t count, std::vector<uint8_t>* out) {
  const size_t start = out->size();
  out->resize(start + static_cast<size_t>((count + 7) / 8), 0);
  uint8_t* dst = out->data() + start;
  for (int64_t i = 0; i < count; ++i) {
    dst[i / 8] |= static_cast<uint8_t>((values[i] != 0 ? 1 : 0) << (i % 8));
  }
}

void EncodePlainByteArray(std::string_view value, std::vector<uint8_t>* out) {
  StoreLength(static_cast<uint32_t>(value.size()), out);
  out->insert(out->end(), value.begin(), value.end());
}

void EncodePlainByteArrays(const int64_t* offsets, const uint8_t* data, int64_t count,
                           std::vector<uint8_t>* out) {
  if (count <= 0) return;
  const size_t total = static_cast<size_t>(count) * 4 + static_cast<size_t>(offsets[count] - offsets[0]);
  if (total <= static_cast<size_t>(count) * 36) {
    // Short values (32 bytes or less on average): written in place, each
    // with one 16-byte copy where the value fits it and the output has the
    // room; the bytes copied past a value are overwritten by the next one.
    const size_t start = out->size();
    out->resize(start + total);
    uint8_t* dst = out->data() + start;
    uint8_t* const end = dst + total;
    for (int64_t i = 0; i < count; ++i) {
      const uint32_t length = static_cast<uint32_t>(offsets[i + 1] - offsets[i]);
      std::memcpy(dst, &length, 4);
      dst += 4;
      const uint8_t* src = data + offsets[i];
      if (length <= 16 && end - dst >= 16 && offsets[count] - offsets[i] >= 16) {
        std::memcpy(dst, src, 16);
      } else if (length > 0) {
        std::memcpy(dst, src, length);
      }
      dst += length;
    }
    return;
  }
  out->reserve(out->size() + total);
  for (int64_t i = 0; i < count; ++i) {
    const int64_t length = offsets[i + 1] - offsets[i];
    StoreLength(static_cast<uint32_t>(length), out);
    out->insert(out->end(), data + offsets[i], data + offsets[i + 1]);
  }
}

}  // namespace floe::parquet
