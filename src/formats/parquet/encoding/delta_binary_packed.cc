#include "formats/parquet/encoding/delta_binary_packed.h"

#include <algorithm>
#include <limits>
#include <string>

#include "formats/parquet/encoding/bit_packing.h"
#include "formats/parquet/encoding/rle_bit_packed.h"

namespace floe::parquet {

namespace {
constexpr uint64_t kMaxBlockSize = uint64_t{1} << 24;
constexpr int kEncoderBlockSize = 128;
constexpr int kEncoderMiniblocks = 4;
constexpr int kEncoderMiniblockSize = kEncoderBlockSize / kEncoderMiniblocks;

Status HeaderError(const char* field, size_t offset) {
  return Status::Corruption(std::string("DELTA_BINARY_PACKED ") + field +
                            " truncated or over 64 bits at offset " + std::to_string(offset));
}
}  // namespace

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Init(const uint8_t* data, size_t size) {
  *this = DeltaBinaryPackedDecoder<T>();
  data_ = data;
  size_ = size;
  uint64_t total = 0;
  uint64_t first_zigzag = 0;
  if (!bits::ReadUleb128(data_, size_, &pos_, &block_size_)) return HeaderError("block size", pos_);
  if (!bits::ReadUleb128(data_, size_, &pos_, &miniblocks_per_block_)) {
    return HeaderError("miniblock count", pos_);
  }
  if (!bits::ReadUleb128(data_, size_, &pos_, &total)) return HeaderError("total value count", pos_);
  if (!bits::ReadUleb128(data_, size_, &pos_, &first_zigzag)) return HeaderError("first value", pos_);
  if (block_size_ == 0 || block_size_ % 128 != 0 || block_size_ > kMaxBlockSize) {
    return Status::Corruption("DELTA_BINARY_PACKED block size " + std::to_string(block_size_) +
                              " is not a positive multiple of 128 up to 2^24");
  }
  if (miniblocks_per_block_ == 0 || block_size_ % miniblocks_per_block_ != 0 ||
      (block_size_ / miniblocks_per_block_) % 32 != 0) {
    return Status::Corruption("DELTA_BINARY_PACKED miniblock count " + std::to_string(miniblocks_per_block_) +
                              " does not split block size " + std::to_string(block_size_) +
                              " into multiples of 32 values");
  }
  if (total > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    return Status::Corruption("DELTA_BINARY_PACKED total value count " + std::to_string(total) +
                              " exceeds 2^63-1");
  }
  values_per_miniblock_ = block_size_ / miniblocks_per_block_;
  total_values_ = static_cast<int64_t>(total);
  first_value_pending_ = total_values_ > 0;
  deltas_left_in_stream_ = total_values_ > 0 ? total_values_ - 1 : 0;
  // Wraps to T: some writers zigzag 32-bit values as 64-bit ones.
  last_value_ = static_cast<T>(static_cast<U>(bits::ZigZagDecode(first_zigzag)));
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::LoadBlock() {
  const size_t block_pos = pos_;
  uint64_t min_delta_zigzag = 0;
  if (!bits::ReadUleb128(data_, size_, &pos_, &min_delta_zigzag)) {
    return HeaderError("block min delta", block_pos);
  }
  if (miniblocks_per_block_ > size_ - pos_) {
    return Status::Corruption("DELTA_BINARY_PACKED block at offset " + std::to_string(block_pos) +
                              " is missing its " + std::to_string(miniblocks_per_block_) +
                              " miniblock bit widths");
  }
  min_delta_ = static_cast<U>(bits::ZigZagDecode(min_delta_zigzag));
  bit_widths_pos_ = pos_;
  pos_ += miniblocks_per_block_;
  miniblock_index_ = 0;
  block_loaded_ = true;
  return Status::OK();
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::StartMiniblock() {
  if (!block_loaded_ || miniblock_index_ == miniblocks_per_block_) FLOE_RETURN_IF_ERROR(LoadBlock());
  const int bit_width = data_[bit_widths_pos_ + miniblock_index_];
  if (bit_width > kTypeBits) {
    return Status::Corruption("DELTA_BINARY_PACKED miniblock bit width " + std::to_string(bit_width) +
                              " exceeds " + std::to_string(kTypeBits) + " at offset " +
                              std::to_string(bit_widths_pos_ + miniblock_index_));
  }
  const int64_t values =
      std::min<int64_t>(static_cast<int64_t>(values_per_miniblock_), deltas_left_in_stream_);
  const uint64_t full_bytes = values_per_miniblock_ * static_cast<uint64_t>(bit_width) / 8;
  const size_t available = size_ - pos_;
  size_t end = 0;
  if (full_bytes <= available) {
    end = pos_ + full_bytes;
  } else {
    const uint64_t needed = (static_cast<uint64_t>(values) * bit_width + 7) / 8;
    if (needed > available) {
      return Status::Corruption("DELTA_BINARY_PACKED miniblock at offset " + std::to_string(pos_) +
                                " needs " + std::to_string(needed) + " bytes, only " +
                                std::to_string(available) + " remain");
    }
    end = size_;
  }
  bit_width_ = bit_width;
  miniblock_pos_ = pos_;
  miniblock_end_ = end;
  pos_ = end;
  miniblock_values_left_ = values;
  deltas_left_in_stream_ -= values;
  ++miniblock_index_;
  return Status::OK();
}

template <typename T>
void DeltaBinaryPackedDecoder<T>::UnpackChunk() {
  const int n = static_cast<int>(std::min<int64_t>(kChunk, miniblock_values_left_));
  const int64_t groups = (n + 7) / 8;
  // The unpacker may load (and mask off) bytes past the miniblock, never past the input.
  const size_t in_size = size_ - miniblock_pos_;
  if constexpr (sizeof(T) == 4) {
    bits::UnpackGroups32(data_ + miniblock_pos_, in_size, bit_width_, groups, deltas_);
  } else {
    bits::UnpackGroups64(data_ + miniblock_pos_, in_size, bit_width_, groups, deltas_);
  }
  miniblock_pos_ = std::min(miniblock_end_, miniblock_pos_ + static_cast<size_t>(groups) * bit_width_);
  miniblock_values_left_ -= n;
  delta_pos_ = 0;
  delta_end_ = n;
}

template <typename T>
Status DeltaBinaryPackedDecoder<T>::Decode(T* out, int64_t count) {
  if (count < 0) return Status::InvalidArgument("DELTA_BINARY_PACKED decode of a negative count");
  if (walked_to_end_ || count > total_values_ - values_read_) {
    return Status::Corruption("DELTA_BINARY_PACKED asked for " + std::to_string(count) + " values, only " +
                              std::to_string(walked_to_end_ ? 0 : total_values_ - values_read_) + " remain");
  }
  int64_t i = 0;
  if (count > 0 && first_value_pending_) {
    out[0] = last_value_;
    first_value_pending_ = false;
    i = 1;
  }
  U last = static_cast<U>(last_value_);
  while (i < count) {
    if (delta_pos_ == delta_end_) {
      if (miniblock_values_left_ == 0) FLOE_RETURN_IF_ERROR(StartMiniblock());
      UnpackChunk();
    }
    const int64_t n = std::min<int64_t>(delta_end_ - delta_pos_, count - i);
    const U block_min = min_delta_;
    const U* deltas = deltas_ + delta_pos_;
    T* dst = out + i;
    for (int64_t k = 0; k < n; ++k) {
      last += block_min + deltas[k];
      dst[k] = static_cast<T>(last);
    }
    delta_pos_ += static_cast<int>(n);
    i += n;
  }
  last_value_ = static_cast<T>(last);
  values_read_ += count;
  return Status::OK();
}

template <typename T>
Result<size_t> DeltaBinaryPackedDecoder<T>::BytesConsumedAfterAllValues() {
  if (walked_to_end_) return pos_;
  while (deltas_left_in_stream_ > 0) FLOE_RETURN_IF_ERROR(StartMiniblock());
  miniblock_values_left_ = 0;
  delta_pos_ = delta_end_ = 0;
  values_read_ = total_values_;
  first_value_pending_ = false;
  walked_to_end_ = true;
  return pos_;
}

template <typename T>
void DeltaBinaryPackedEncoder<T>::Put(const T* values, int64_t count) {
  values_.insert(values_.end(), values, values + count);
}

template <typename T>
std::vector<uint8_t> DeltaBinaryPackedEncoder<T>::Finish() {
  using U = std::make_unsigned_t<T>;
  std::vector<uint8_t> out;
  const int64_t n = static_cast<int64_t>(values_.size());
  bits::WriteUleb128(kEncoderBlockSize, &out);
  bits::WriteUleb128(kEncoderMiniblocks, &out);
  bits::WriteUleb128(static_cast<uint64_t>(n), &out);
  bits::WriteUleb128(bits::ZigZagEncode(n > 0 ? static_cast<int64_t>(values_[0]) : 0), &out);
  U deltas[kEncoderBlockSize];
  uint64_t packed[kEncoderMiniblockSize];
  for (int64_t start = 1; start < n; start += kEncoderBlockSize) {
    const int m = static_cast<int>(std::min<int64_t>(kEncoderBlockSize, n - start));
    T min_delta = std::numeric_limits<T>::max();
    for (int k = 0; k < m; ++k) {
      deltas[k] = static_cast<U>(static_cast<U>(values_[start + k]) - static_cast<U>(values_[start + k - 1]));
      min_delta = std::min(min_delta, static_cast<T>(deltas[k]));
    }
    for (int k = 0; k < m; ++k) deltas[k] = static_cast<U>(deltas[k] - static_cast<U>(min_delta));
    bits::WriteUleb128(bits::ZigZagEncode(min_delta), &out);
    int widths[kEncoderMiniblocks] = {};
    for (int j = 0; j * kEncoderMiniblockSize < m; ++j) {
      U max_value = 0;
      for (int k = j * kEncoderMiniblockSize; k < std::min(m, (j + 1) * kEncoderMiniblockSize); ++k) {
        max_value = std::max(max_value, deltas[k]);
      }
      widths[j] = BitWidthFor(max_value);
    }
    for (int width : widths) out.push_back(static_cast<uint8_t>(width));
    for (int j = 0; j * kEncoderMiniblockSize < m; ++j) {
      for (int k = 0; k < kEncoderMiniblockSize; ++k) {
        const int index = j * kEncoderMiniblockSize + k;
        packed[k] = index < m ? deltas[index] : 0;
      }
      bits::PackGroups(packed, kEncoderMiniblockSize, widths[j], &out);
    }
  }
  values_.clear();
  return out;
}

template class DeltaBinaryPackedDecoder<int32_t>;
template class DeltaBinaryPackedDecoder<int64_t>;
template class DeltaBinaryPackedEncoder<int32_t>;
template class DeltaBinaryPackedEncoder<int64_t>;

}  // namespace floe::parquet
