#include "formats/parquet/reader/levels.h"

#include <algorithm>
#include <cstring>
#include <string>

#include "formats/parquet/encoding/rle_bit_packed.h"

namespace floe::parquet {
namespace {

constexpr int64_t kChunk = 4096;

template <typename Level>
Status DecodeRle(const uint8_t* data, size_t size, int16_t max_level, int64_t count, const char* kind,
                 Level* out) {
  const int bit_width = BitWidthFor(static_cast<uint64_t>(max_level));
  RleBitPackedDecoder decoder(data, size, bit_width);
  uint32_t buffer[kChunk];
  for (int64_t done = 0; done < count;) {
    const int64_t n = std::min(kChunk, count - done);
    Status status = decoder.Decode(buffer, n);
    if (!status.ok()) return Status::Corruption(std::string(kind) + " levels: " + status.message());
    uint32_t max_seen = 0;
    for (int64_t i = 0; i < n; ++i) {
      max_seen = std::max(max_seen, buffer[i]);
      out[done + i] = static_cast<Level>(buffer[i]);
    }
    if (max_seen > static_cast<uint32_t>(max_level)) {
      return Status::Corruption(std::string(kind) + " level " + std::to_string(max_seen) +
                                " exceeds the column's maximum " + std::to_string(max_level));
    }
    done += n;
  }
  return Status::OK();
}

// Byte levels: RLE runs are filled in bulk and bit width 1 is spread from
// the packed bytes directly. *present (when given) counts the levels equal
// to max_level, which for max_level 1 is their sum.
Status DecodeRleBytes(const uint8_t* data, size_t size, int16_t max_level, int64_t count, const char* kind,
                      uint8_t* out, int64_t* present) {
  const int bit_width = BitWidthFor(static_cast<uint64_t>(max_level));
  RleBitPackedDecoder decoder(data, size, bit_width);
  int64_t sum = 0;
  uint32_t max_seen = 0;
  Status status = decoder.DecodeBytes(out, count, &sum, &max_seen);
  if (!status.ok()) return Status::Corruption(std::string(kind) + " levels: " + status.message());
  if (max_seen > static_cast<uint32_t>(max_level)) {
    return Status::Corruption(std::string(kind) + " level " + std::to_string(max_seen) +
                              " exceeds the column's maximum " + std::to_string(max_level));
  }
  if (present != nullptr) {
    if (max_level == 1) {
      *present = sum;
    } else {
      int64_t n = 0;
      for (int64_t i = 0; i < count; ++i) n += out[i] == max_level;
      *present = n;
    }
  }
  return Status::OK();
}

Status DecodeRleInto(const uint8_t* data, size_t size, int16_t max_level, int64_t count, const char* kind,
                     int16_t* out, int64_t*) {
  return DecodeRle(data, size, max_level, count, kind, out);
}

Status DecodeRleInto(const uint8_t* data, size_t size, int16_t max_level, int64_t count, const char* kind,
                     uint8_t* out, int64_t* present) {
  return DecodeRleBytes(data, size, max_level, count, kind, out, present);
}

template <typename Level>
Result<size_t> DecodeLevelsV1Impl(Encoding encoding, const uint8_t* data, size_t size, int16_t max_level,
                                  int64_t count, const char* kind, Level* out, int64_t* present) {
  if (encoding == Encoding::RLE) {
    if (size < 4)
      return Status::Corruption(std::string(kind) + " levels: page too short for the length prefix");
    uint32_t length;
    std::memcpy(&length, data, 4);
    if (length > size - 4) {
      return Status::Corruption(std::string(kind) + " levels claim " + std::to_string(length) +
                                " bytes but the page has " + std::to_string(size - 4) + " left");
    }
    FLOE_RETURN_IF_ERROR(DecodeRleInto(data + 4, length, max_level, count, kind, out, present));
    return size_t{4} + length;
  }
  if (encoding == Encoding::BIT_PACKED) {
    // Legacy encoding: values packed most significant bit first.
    const int bit_width = BitWidthFor(static_cast<uint64_t>(max_level));
    const uint64_t total_bits = static_cast<uint64_t>(count) * static_cast<uint64_t>(bit_width);
    const size_t bytes = static_cast<size_t>((total_bits + 7) / 8);
    if (bytes > size) {
      return Status::Corruption(std::string(kind) + " levels (BIT_PACKED) need " + std::to_string(bytes) +
                                " bytes but the page has " + std::to_string(size));
    }
    uint64_t bit = 0;
    for (int64_t i = 0; i < count; ++i) {
      uint32_t value = 0;
      for (int b = 0; b < bit_width; ++b, ++bit) {
        value = (value << 1) | ((data[bit >> 3] >> (7 - (bit & 7))) & 1);
      }
      if (value > static_cast<uint32_t>(max_level)) {
        return Status::Corruption(std::string(kind) + " level " + std::to_string(value) +
                                  " exceeds the column's maximum " + std::to_string(max_level));
      }
      out[i] = static_cast<Level>(value);
    }
    if (present != nullptr) {
      int64_t n = 0;
      for (int64_t i = 0; i < count; ++i) n += out[i] == max_level;
      *present = n;
    }
    return bytes;
  }
  return Status::NotSupported(std::string(kind) + " level encoding " + EncodingName(encoding) +
                              " not supported");
}

}  // namespace

Result<size_t> DecodeLevelsV1(Encoding encoding, const uint8_t* data, size_t size, int16_t max_level,
                              int64_t count, const char* kind, int16_t* out) {
  return DecodeLevelsV1Impl(encoding, data, size, max_level, count, kind, out, nullptr);
}

Result<size_t> DecodeLevelsV1(Encoding encoding, const uint8_t* data, size_t size, int16_t max_level,
                              int64_t count, const char* kind, uint8_t* out, int64_t* present) {
  if (max_level > 255) return Status::Internal("byte levels for a maximum level above 255");
  return DecodeLevelsV1Impl(encoding, data, size, max_level, count, kind, out, present);
}

Status DecodeLevelsV2(const uint8_t* data, size_t size, int16_t max_level, int64_t count, const char* kind,
                      int16_t* out) {
  return DecodeRle(data, size, max_level, count, kind, out);
}

Status DecodeLevelsV2(const uint8_t* data, size_t size, int16_t max_level, int64_t count, const char* kind,
                      uint8_t* out, int64_t* present) {
  if (max_level > 255) return Status::Internal("byte levels for a maximum level above 255");
  return DecodeRleBytes(data, size, max_level, count, kind, out, present);
}

}  // namespace floe::parquet
