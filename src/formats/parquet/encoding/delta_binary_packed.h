// DELTA_BINARY_PACKED for INT32 and INT64.
//
// Contract: the decoder reads untrusted bytes and never reads out of bounds;
// miniblock bit widths above the type width, negative/oversized block sizes and
// short input are Corruption. Arithmetic wraps modulo 2^width as the spec says.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/status.h"

namespace floe::parquet {

template <typename T>  // int32_t or int64_t
class DeltaBinaryPackedDecoder {
 public:
  // Parses the header. `data` must stay alive while decoding.
  Status Init(const uint8_t* data, size_t size);
  // Total values the header announces.
  int64_t total_values() const { return total_values_; }
  // Decodes exactly `count` values.
  Status Decode(T* out, int64_t count);
  // Bytes consumed so far; after every value was decoded, where the block
  // data ends (DELTA_LENGTH_BYTE_ARRAY's string bytes start there).
  Result<size_t> BytesConsumedAfterAllValues();

 private:
  Status LoadBlock();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  uint64_t block_size_ = 0;
  uint64_t miniblocks_per_block_ = 0;
  uint64_t values_per_miniblock_ = 0;
  int64_t total_values_ = 0;
  int64_t values_read_ = 0;
  T last_value_ = 0;
  bool first_value_pending_ = true;
  std::vector<T> block_values_;  // decoded deltas-applied values of the current block
  size_t block_index_ = 0;
};

template <typename T>
class DeltaBinaryPackedEncoder {
 public:
  void Put(const T* values, int64_t count);
  std::vector<uint8_t> Finish();

 private:
  std::vector<T> values_;
};

}  // namespace floe::parquet
