// The RLE / bit-packed hybrid encoding (Parquet "RLE"): definition and
// repetition levels, dictionary indices, and RLE-encoded booleans.
//
// Contract: the decoder reads untrusted bytes and never reads past `size`;
// running out of input before `count` values is Corruption. Values wider
// than bit_width bits are never produced (an RLE run value that does not fit
// is Corruption). bit_width is 0..32; another width makes Decode return
// Corruption. Run lengths above 2^31-1 (the spec's limit) are Corruption.
// A bit-packed run whose bytes are cut short by the end of the input yields
// the values its remaining bytes hold (some writers drop trailing padding).
// Not thread-safe; one decoder per stream.
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
  // Decodes exactly `count` values of a bit width up to 8 as bytes, RLE runs
  // filled in bulk (levels). Adds the values to *sum and raises *max_seen to
  // the largest (bit width 1: *sum counts the ones). Errors as Decode.
  Status DecodeBytes(uint8_t* out, int64_t count, int64_t* sum, uint32_t* max_seen);
  // Bytes of the input consumed by the runs started so far.
  size_t bytes_consumed() const { return pos_; }

 private:
  Status NextRun();
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  size_t pos_ = 0;
  int bit_width_ = 0;
  int64_t rle_left_ = 0;
  uint32_t rle_value_ = 0;
  int64_t packed_left_ = 0;     // values left in the current bit-packed run
  size_t packed_byte_pos_ = 0;  // offset into data_ of the next packed group
  // A bit-packed group unpacked ahead of the caller: group_[group_pos_, group_end_).
  uint32_t group_[8] = {};
  int group_pos_ = 0;
  int group_end_ = 0;
};

// Produces RLE runs for repeats of 8 or more values and bit-packed groups
// otherwise. Values must fit in bit_width bits (higher bits are dropped).
// Put, PutRepeated and PutValues may be mixed; the bytes depend only on the
// sequence of values (PutRepeated(v, n) and PutValues of n copies of v write
// what n calls of Put(v) write). Encoded bytes go to the encoder's own
// buffer (returned by Finish) or, when a sink is given, are appended to it
// as they are produced (Finish then returns nothing).
class RleBitPackedEncoder {
 public:
  explicit RleBitPackedEncoder(int bit_width, std::vector<uint8_t>* sink = nullptr);
  RleBitPackedEncoder(const RleBitPackedEncoder&) = delete;
  RleBitPackedEncoder& operator=(const RleBitPackedEncoder&) = delete;

  void Put(uint32_t value) {
    value &= mask_;
    ++count_;
    if (run_length_ > 0 && value == run_value_) {
      ++run_length_;
      return;
    }
    EndRepeat();
    run_value_ = value;
    run_length_ = 1;
  }
  void PutRepeated(uint32_t value, int64_t count);
  void PutValues(const uint32_t* values, int64_t count);
  // Flushes and returns the encoded bytes (no length prefix; empty when
  // writing to a sink). The final bit-packed group is zero-padded to 8
  // values; the encoder is then empty.
  std::vector<uint8_t> Finish();
  int64_t values_written() const { return count_; }

 private:
  // Literal values held before they are written as one bit-packed run:
  // 63 groups keep the run header to one byte.
  static constexpr size_t kMaxBufferedLiterals = 63 * 8;
  // Moves the pending repeat into a run or into the literals.
  void EndRepeat() {
    if (run_length_ < 8) {  // the usual case: a short repeat joins the literals
      for (int64_t i = 0; i < run_length_; ++i)
        buffered_[num_buffered_ + static_cast<size_t>(i)] = run_value_;
      num_buffered_ += static_cast<size_t>(run_length_);
      run_length_ = 0;
      if (num_buffered_ >= kMaxBufferedLiterals) FlushBuffered(false);
      return;
    }
    EndLongRepeat();
  }
  void EndLongRepeat();
  // Writes the buffered literals' whole groups as one bit-packed run;
  // `final` zero-pads the last group first.
  void FlushBuffered(bool final);
  void WriteRleRun(uint32_t value, int64_t length);
  int bit_width_;
  uint32_t mask_;
  int64_t count_ = 0;
  std::vector<uint8_t> own_;
  std::vector<uint8_t>* out_;
  // At most kMaxBufferedLiterals - 1 + 7 values are held between calls.
  uint32_t buffered_[kMaxBufferedLiterals + 8];
  size_t num_buffered_ = 0;
  uint32_t run_value_ = 0;
  int64_t run_length_ = 0;
};

// Minimum bits needed to represent `max_value` (0 for 0).
int BitWidthFor(uint64_t max_value);

}  // namespace floe::parquet
