#include "formats/parquet/encoding/rle_bit_packed.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <string>

#include "formats/parquet/encoding/bit_packing.h"

namespace floe::parquet {

namespace {
constexpr int64_t kMaxRunLength = std::numeric_limits<int32_t>::max();

uint32_t MaskFor(int bit_width) {
  return bit_width >= 32 ? ~uint32_t{0} : (uint32_t{1} << bit_width) - 1;
}
}  // namespace

int BitWidthFor(uint64_t max_value) {
  return 64 - std::countl_zero(max_value);
}

RleBitPackedDecoder::RleBitPackedDecoder(const uint8_t* data, size_t size, int bit_width)
    : data_(data), size_(size), bit_width_(bit_width) {}

Status RleBitPackedDecoder::NextRun() {
  const size_t header_pos = pos_;
  uint64_t header = 0;
  if (pos_ < size_ && data_[pos_] < 0x80) {
    header = data_[pos_++];  // one-byte headers are the common case
  } else if (!bits::ReadUleb128(data_, size_, &pos_, &header)) {
    return Status::Corruption("RLE/bit-packed run header truncated or over 64 bits at offset " +
                              std::to_string(header_pos));
  }
  const uint64_t length = header >> 1;
  if (length > static_cast<uint64_t>(kMaxRunLength)) {
    return Status::Corruption("RLE/bit-packed run at offset " + std::to_string(header_pos) + " declares " +
                              std::to_string(length) + (header & 1 ? " groups" : " values") +
                              ", above the limit 2^31-1");
  }
  const size_t available = size_ - pos_;
  if (header & 1) {
    int64_t values = static_cast<int64_t>(length) * 8;
    uint64_t bytes = length * static_cast<uint64_t>(bit_width_);
    if (bytes > available) {
      // Cut short by the end of the input: keep the values that are there.
      bytes = available;
      values = static_cast<int64_t>(available * 8 / static_cast<size_t>(bit_width_));
    }
    packed_byte_pos_ = pos_;
    packed_left_ = values;
    pos_ += bytes;
    return Status::OK();
  }
  const size_t value_bytes = static_cast<size_t>(bit_width_ + 7) / 8;
  if (value_bytes > available) {
    return Status::Corruption("RLE run at offset " + std::to_string(header_pos) +
                              " is missing its repeated value");
  }
  uint32_t value = 0;
  for (size_t i = 0; i < value_bytes; ++i) value |= static_cast<uint32_t>(data_[pos_ + i]) << (8 * i);
  pos_ += value_bytes;
  if ((value & ~MaskFor(bit_width_)) != 0) {
    return Status::Corruption("RLE run at offset " + std::to_string(header_pos) + " repeats value " +
                              std::to_string(value) + ", wider than bit width " + std::to_string(bit_width_));
  }
  rle_value_ = value;
  rle_left_ = static_cast<int64_t>(length);
  return Status::OK();
}

Result<int64_t> RleBitPackedDecoder::DecodeUpTo(uint32_t* out, int64_t count) {
  if (bit_width_ < 0 || bit_width_ > 32) {
    return Status::Corruption("RLE/bit-packed bit width " + std::to_string(bit_width_) + " is outside 0..32");
  }
  int64_t done = 0;
  while (done < count) {
    const int64_t wanted = count - done;
    if (group_pos_ < group_end_) {
      const int n = static_cast<int>(std::min<int64_t>(group_end_ - group_pos_, wanted));
      std::copy_n(group_ + group_pos_, n, out + done);
      group_pos_ += n;
      done += n;
    } else if (rle_left_ > 0) {
      const int64_t n = std::min(rle_left_, wanted);
      std::fill_n(out + done, n, rle_value_);
      rle_left_ -= n;
      done += n;
    } else if (packed_left_ > 0) {
      // Groups may be unpacked with loads reaching past the run (into the next
      // run's bytes, masked off) but never past the input.
      const size_t readable = size_ - packed_byte_pos_;
      const size_t run_bytes_left = pos_ - packed_byte_pos_;
      const int64_t groups = std::min(packed_left_, wanted) / 8;
      if (groups > 0) {
        bits::UnpackGroups32(data_ + packed_byte_pos_, readable, bit_width_, groups, out + done);
        packed_byte_pos_ += static_cast<size_t>(groups) * bit_width_;
        packed_left_ -= groups * 8;
        done += groups * 8;
      } else {
        bits::UnpackGroups32(data_ + packed_byte_pos_, readable, bit_width_, 1, group_);
        packed_byte_pos_ += std::min<size_t>(bit_width_, run_bytes_left);
        group_pos_ = 0;
        group_end_ = static_cast<int>(std::min<int64_t>(8, packed_left_));
        packed_left_ -= group_end_;
      }
    } else if (pos_ < size_) {
      FLOE_RETURN_IF_ERROR(NextRun());
    } else {
      break;
    }
  }
  return done;
}

namespace {

// The 8 bits of `bits` (LSB first) as 8 bytes of 0/1, the first lowest.
inline uint64_t SpreadBitsToBytes(uint8_t bits) {
  const uint64_t x = (static_cast<uint64_t>(bits) * 0x0101010101010101ULL) & 0x8040201008040201ULL;
  return ((x + 0x7F7F7F7F7F7F7F7FULL) >> 7) & 0x0101010101010101ULL;
}

}  // namespace

Status RleBitPackedDecoder::DecodeBytes(uint8_t* out, int64_t count, int64_t* sum, uint32_t* max_seen) {
  if (bit_width_ < 0 || bit_width_ > 8) {
    return Status::Corruption("RLE/bit-packed bit width " + std::to_string(bit_width_) +
                              " is outside 0..8 for byte values");
  }
  constexpr int64_t kBlock = 512;
  uint32_t wide[kBlock];
  int64_t done = 0;
  int64_t total = 0;
  uint32_t largest = *max_seen;
  while (done < count) {
    const int64_t wanted = count - done;
    if (group_pos_ < group_end_) {
      const int n = static_cast<int>(std::min<int64_t>(group_end_ - group_pos_, wanted));
      for (int i = 0; i < n; ++i) {
        const uint32_t v = group_[group_pos_ + i];
        out[done + i] = static_cast<uint8_t>(v);
        total += v;
        largest = std::max(largest, v);
      }
      group_pos_ += n;
      done += n;
    } else if (rle_left_ > 0) {
      const int64_t n = std::min(rle_left_, wanted);
      std::memset(out + done, static_cast<int>(rle_value_), static_cast<size_t>(n));
      total += static_cast<int64_t>(rle_value_) * n;
      largest = std::max(largest, rle_value_);
      rle_left_ -= n;
      done += n;
    } else if (packed_left_ >= 8 && wanted >= 8) {
      // Whole groups; the run's bytes were checked against the input when
      // its header was read.
      const int64_t groups = std::min(std::min(packed_left_, wanted) / 8, kBlock / 8);
      const uint8_t* in = data_ + packed_byte_pos_;
      if (bit_width_ == 1) {
        for (int64_t g = 0; g < groups; ++g) {
          const uint64_t bytes = SpreadBitsToBytes(in[g]);
          std::memcpy(out + done + g * 8, &bytes, 8);
          total += static_cast<int64_t>((bytes * 0x0101010101010101ULL) >> 56);  // sum of the 8 bytes
        }
        if (total > 0) largest = std::max(largest, 1u);
      } else {
        bits::UnpackGroups32(in, size_ - packed_byte_pos_, bit_width_, groups, wide);
        for (int64_t i = 0; i < groups * 8; ++i) {
          out[done + i] = static_cast<uint8_t>(wide[i]);
          total += wide[i];
          largest = std::max(largest, wide[i]);
        }
      }
      packed_byte_pos_ += static_cast<size_t>(groups) * static_cast<size_t>(bit_width_);
      packed_left_ -= groups * 8;
      done += groups * 8;
    } else if (packed_left_ > 0) {
      // A part group: through the one-group path of DecodeUpTo.
      FLOE_ASSIGN_OR_RETURN(int64_t got, DecodeUpTo(wide, 1));
      if (got == 0) break;
      out[done] = static_cast<uint8_t>(wide[0]);
      total += wide[0];
      largest = std::max(largest, wide[0]);
      ++done;
    } else if (pos_ < size_) {
      FLOE_RETURN_IF_ERROR(NextRun());
    } else {
      break;
    }
  }
  *sum += total;
  *max_seen = largest;
  if (done < count) {
    return Status::Corruption("RLE/bit-packed data ended after " + std::to_string(done) + " of " +
                              std::to_string(count) + " values");
  }
  return Status::OK();
}

Status RleBitPackedDecoder::Decode(uint32_t* out, int64_t count) {
  FLOE_ASSIGN_OR_RETURN(int64_t got, DecodeUpTo(out, count));
  if (got < count) {
    return Status::Corruption("RLE/bit-packed data ended after " + std::to_string(got) + " of " +
                              std::to_string(count) + " values");
  }
  return Status::OK();
}

RleBitPackedEncoder::RleBitPackedEncoder(int bit_width, std::vector<uint8_t>* sink)
    : bit_width_(std::clamp(bit_width, 0, 32)),
      mask_(MaskFor(bit_width_)),
      out_(sink != nullptr ? sink : &own_) {}

void RleBitPackedEncoder::PutRepeated(uint32_t value, int64_t count) {
  if (count <= 0) return;
  value &= mask_;
  count_ += count;
  if (run_length_ > 0 && value == run_value_) {
    run_length_ += count;
    return;
  }
  EndRepeat();
  run_value_ = value;
  run_length_ = count;
}

void RleBitPackedEncoder::PutValues(const uint32_t* values, int64_t count) {
  const uint32_t mask = mask_;
  count_ += count;
  int64_t i = 0;
  while (i < count) {
    const uint32_t value = values[i] & mask;
    int64_t j = i + 1;
    while (j < count && (values[j] & mask) == value) ++j;
    if (run_length_ > 0 && value == run_value_) {
      run_length_ += j - i;
    } else {
      EndRepeat();
      run_value_ = value;
      run_length_ = j - i;
    }
    i = j;
  }
}

void RleBitPackedEncoder::EndLongRepeat() {
  // Complete the literals' last group from the repeat so they can be
  // written as whole groups ahead of the RLE run.
  const int64_t borrow = static_cast<int64_t>((8 - num_buffered_ % 8) % 8);
  for (int64_t i = 0; i < borrow; ++i) buffered_[num_buffered_ + static_cast<size_t>(i)] = run_value_;
  num_buffered_ += static_cast<size_t>(borrow);
  run_length_ -= borrow;
  FlushBuffered(false);
  if (run_length_ >= 8) {
    WriteRleRun(run_value_, run_length_);
    run_length_ = 0;
  }
  EndRepeat();  // a remainder under 8 joins the literals
}

void RleBitPackedEncoder::FlushBuffered(bool final) {
  if (final && num_buffered_ % 8 != 0) {
    const size_t padded = num_buffered_ + 8 - num_buffered_ % 8;
    std::fill(buffered_ + num_buffered_, buffered_ + padded, 0u);
    num_buffered_ = padded;
  }
  const size_t groups = num_buffered_ / 8;
  if (groups == 0) return;
  bits::WriteUleb128((static_cast<uint64_t>(groups) << 1) | 1, out_);
  bits::PackGroups(buffered_, static_cast<int64_t>(groups * 8), bit_width_, out_);
  const size_t rest = num_buffered_ - groups * 8;
  std::copy(buffered_ + groups * 8, buffered_ + num_buffered_, buffered_);
  num_buffered_ = rest;
}

void RleBitPackedEncoder::WriteRleRun(uint32_t value, int64_t length) {
  const int value_bytes = (bit_width_ + 7) / 8;
  while (length > 0) {
    const int64_t chunk = std::min(length, kMaxRunLength);
    bits::WriteUleb128(static_cast<uint64_t>(chunk) << 1, out_);
    for (int i = 0; i < value_bytes; ++i) out_->push_back(static_cast<uint8_t>(value >> (8 * i)));
    length -= chunk;
  }
}

std::vector<uint8_t> RleBitPackedEncoder::Finish() {
  EndRepeat();
  FlushBuffered(true);
  std::vector<uint8_t> result = std::move(own_);
  own_.clear();
  count_ = 0;
  return result;
}

}  // namespace floe::parquet
