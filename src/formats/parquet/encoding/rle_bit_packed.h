// The RLE / bit-packed hybrid encoding (Parquet "RLE"): definition and
// repetition levels, dictionary indices, and RLE-encoded booleans.
//
// Contract: the decoder reads untrusted bytes and never reads past `size`;
// running out of input before `count` values is Corruption. Values wider
// than bit_width bits are never produced. bit_width is 0..32.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"

namespace floe::parquet {

class RleBitPackedDecoder {
 public:
  RleBitPackedDecoder() = default;
  RleBitPackedDecoder(const uint8_t* data, size_t size, int bit_width);
  // Decodes exactly `count` values into `out`.
  Status Decode(uint32_t* out, int64_t count);
  // Decodes up to `count` values; returns how many were available (0 at end).
  Result<int64_t> DecodeUpTo(uint32_t* out, int64_t count);

 private:
  Status NextRun();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  int bit_width_ = 0;
  int64_t rle_left_ = 0;
  uint32_t rle_value_ = 0;
  int64_t packed_left_ = 0;  // values left in the current bit-packed run
  size_t packed_bit_pos_ = 0;  // bit offset into data_ of the next packed value
};

class RleBitPackedEncoder {
 public:
  explicit RleBitPackedEncoder(int bit_width);
  void Put(uint32_t value);
  void PutRepeated(uint32_t value, int64_t count);
  // Flushes and returns the encoded bytes (no length prefix).
  std::vector<uint8_t> Finish();
  int64_t values_written() const { return count_; }

 private:
  void FlushBuffered(bool final);
  int bit_width_;
  int64_t count_ = 0;
  std::vector<uint8_t> out_;
  std::vector<uint32_t> buffered_;  // values not yet committed to a run
  uint32_t run_value_ = 0;
  int64_t run_length_ = 0;
};

// Minimum bits needed to represent `max_value` (0 for 0).
int BitWidthFor(uint64_t max_value);

}  // namespace floe::parquet
