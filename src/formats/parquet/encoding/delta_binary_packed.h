// DELTA_BINARY_PACKED for INT32 and INT64.
//
// Contract: the decoder reads untrusted bytes and never reads out of bounds;
// miniblock bit widths above the type width, negative/oversized block sizes and
// short input are Corruption. Arithmetic wraps modulo 2^width as the spec says.
// The header's total value count is untrusted: callers bound `count` by the
// page's own value count before allocating. Block sizes must be multiples of
// 128 with miniblocks of a multiple of 32 values (the spec's rule), at most
// 2^24 values per block. A final miniblock cut short by the end of the input
// is accepted when it still holds every remaining value.
// Not thread-safe; one decoder per stream.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
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
  // Decodes exactly `count` values. After an error the decoder is unusable.
  Status Decode(T* out, int64_t count);
  // Bytes consumed so far; after every value was decoded, where the block
  // data ends (DELTA_LENGTH_BYTE_ARRAY's string bytes start there). Walks
  // past values not decoded yet without computing them; Decode must not be
  // called afterwards.
  Result<size_t> BytesConsumedAfterAllValues();

 private:
  using U = std::make_unsigned_t<T>;
  static constexpr int kTypeBits = sizeof(T) * 8;
  static constexpr int kChunk = 32;  // values unpacked at a time

  Status LoadBlock();
  // Positions the decoder at the next miniblock with values left in the stream.
  Status StartMiniblock();
  // Unpacks the next (up to) kChunk deltas of the current miniblock.
  void UnpackChunk();

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;  // end of everything consumed (headers and started miniblocks)
  uint64_t block_size_ = 0;
  uint64_t miniblocks_per_block_ = 0;
  uint64_t values_per_miniblock_ = 0;
  int64_t total_values_ = 0;
  int64_t values_read_ = 0;
  T last_value_ = 0;
  bool first_value_pending_ = true;
  bool walked_to_end_ = false;

  // Deltas (stream values after the first) not yet assigned to a miniblock.
  int64_t deltas_left_in_stream_ = 0;
  U min_delta_ = 0;
  size_t bit_widths_pos_ = 0;     // offset of the current block's bit width bytes
  uint64_t miniblock_index_ = 0;  // next miniblock of the current block
  bool block_loaded_ = false;
  int bit_width_ = 0;         // of the current miniblock
  size_t miniblock_pos_ = 0;  // next packed byte of the current miniblock
  size_t miniblock_end_ = 0;
  int64_t miniblock_values_left_ = 0;  // values not yet unpacked
  U deltas_[kChunk] = {};
  int delta_pos_ = 0;
  int delta_end_ = 0;
};

template <typename T>
class DeltaBinaryPackedEncoder {
 public:
  // Block size 128 values in 4 miniblocks of 32.
  void Put(const T* values, int64_t count);
  // Returns the encoding of every value put since the last Finish.
  std::vector<uint8_t> Finish();

 private:
  std::vector<T> values_;
};

extern template class DeltaBinaryPackedDecoder<int32_t>;
extern template class DeltaBinaryPackedDecoder<int64_t>;
extern template class DeltaBinaryPackedEncoder<int32_t>;
extern template class DeltaBinaryPackedEncoder<int64_t>;

}  // namespace floe::parquet
