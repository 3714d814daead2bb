// Hash dictionary for RLE_DICTIONARY column chunks.
//
// Contract: Index* maps each value to its dictionary index (first-seen
// order), inserting unseen values; values are compared by their physical
// bytes (so -0.0 and +0.0, or two NaN payloads, are distinct entries, which
// keeps every value bit-exact). No allocation per value: entries live in one
// contiguous byte buffer and the open-addressing table holds indices.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "formats/parquet/thrift/parquet_types.h"

namespace floe::parquet {

class DictionaryBuilder {
 public:
  // `width` is the byte width of fixed-width values, 0 for BYTE_ARRAY.
  explicit DictionaryBuilder(int width);

  void IndexFixed(const uint8_t* values, int64_t count, uint32_t* indices);
  void IndexByteArrays(const int64_t* offsets, const uint8_t* data, int64_t count, uint32_t* indices);

  int64_t size() const { return num_entries_; }
  // Size of the PLAIN-encoded dictionary page body.
  int64_t plain_bytes() const {
    return static_cast<int64_t>(entries_.size()) + (width_ == 0 ? 4 * num_entries_ : 0);
  }
  // The PLAIN encoding of the entries, in index order.
  std::vector<uint8_t> EncodePlain() const;

 private:
  template <typename Word>
  void IndexWords(const uint8_t* values, int64_t count, uint32_t* indices);
  uint32_t Insert(const uint8_t* bytes, size_t length, uint64_t hash);
  uint32_t AddEntry(const uint8_t* bytes, size_t length, uint64_t hash, uint64_t pos);
  void Grow();
  uint64_t HashOfEntry(uint32_t index) const;
  const uint8_t* EntryData(uint32_t index) const;
  size_t EntryLength(uint32_t index) const;

  int width_;
  int64_t num_entries_ = 0;
  std::vector<uint8_t> entries_;        // entry bytes back to back
  std::vector<int64_t> entry_offsets_;  // BYTE_ARRAY: num_entries_ + 1 offsets
  // Open addressing, linear probing, one word per slot: the high 32 bits of
  // the value's hash over its entry index + 1; 0 = empty. The slot is found
  // from the hash's low bits, so a probe touches one word and compares
  // entry bytes only when the high bits match.
  std::vector<uint64_t> slots_;
  uint64_t mask_ = 0;
};

}  // namespace floe::parquet
