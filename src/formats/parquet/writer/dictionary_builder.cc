#include "formats/parquet/writer/dictionary_builder.h"

#include <cstring>

namespace floe::parquet {

namespace {

constexpr size_t kInitialSlots = 1024;

inline uint64_t MixWord(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

inline uint64_t HashBytes(const uint8_t* p, size_t n) {
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0x100000001B3ULL);
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ MixWord(w)) * 0x9E3779B97F4A7C15ULL;
    h = (h << 31) | (h >> 33);
  }
  uint64_t tail = 0;
  if (i < n) std::memcpy(&tail, p + i, n - i);
  return MixWord(h ^ tail ^ (static_cast<uint64_t>(n) << 56));
}

}  // namespace

DictionaryBuilder::DictionaryBuilder(int width) : width_(width) {
  slots_.assign(kInitialSlots, 0);
  slot_hashes_.assign(kInitialSlots, 0);
  mask_ = kInitialSlots - 1;
  if (width_ == 0) entry_offsets_.push_back(0);
}

const uint8_t* DictionaryBuilder::EntryData(uint32_t index) const {
  return width_ == 0 ? entries_.data() + entry_offsets_[index]
                     : entries_.data() + static_cast<size_t>(index) * static_cast<size_t>(width_);
}

size_t DictionaryBuilder::EntryLength(uint32_t index) const {
  return width_ == 0 ? static_cast<size_t>(entry_offsets_[index + 1] - entry_offsets_[index])
                     : static_cast<size_t>(width_);
}

void DictionaryBuilder::Grow() {
  size_t capacity = slots_.size() * 2;
  std::vector<uint32_t> slots(capacity, 0);
  std::vector<uint64_t> hashes(capacity, 0);
  uint64_t mask = capacity - 1;
  for (size_t s = 0; s < slots_.size(); ++s) {
    if (slots_[s] == 0) continue;
    uint64_t pos = slot_hashes_[s] & mask;
    while (slots[pos] != 0) pos = (pos + 1) & mask;
    slots[pos] = slots_[s];
    hashes[pos] = slot_hashes_[s];
  }
  slots_.swap(slots);
  slot_hashes_.swap(hashes);
  mask_ = mask;
}

uint32_t DictionaryBuilder::Insert(const uint8_t* bytes, size_t length, uint64_t hash) {
  uint64_t pos = hash & mask_;
  while (true) {
    uint32_t slot = slots_[pos];
    if (slot == 0) break;
    if (slot_hashes_[pos] == hash) {
      uint32_t index = slot - 1;
      if (EntryLength(index) == length && std::memcmp(EntryData(index), bytes, length) == 0) return index;
    }
    pos = (pos + 1) & mask_;
  }
  uint32_t index = static_cast<uint32_t>(num_entries_++);
  entries_.insert(entries_.end(), bytes, bytes + length);
  if (width_ == 0) entry_offsets_.push_back(static_cast<int64_t>(entries_.size()));
  slots_[pos] = index + 1;
  slot_hashes_[pos] = hash;
  if (static_cast<uint64_t>(num_entries_) * 2 > slots_.size()) Grow();
  return index;
}

// Fast path for 4- and 8-byte values: compare words, not byte ranges.
template <typename Word>
void DictionaryBuilder::IndexWords(const uint8_t* values, int64_t count, uint32_t* indices) {
  for (int64_t k = 0; k < count; ++k) {
    Word w;
    std::memcpy(&w, values + static_cast<size_t>(k) * sizeof(Word), sizeof(Word));
    uint64_t hash = MixWord(static_cast<uint64_t>(w));
    uint64_t pos = hash & mask_;
    uint32_t found = 0;
    while (true) {
      uint32_t slot = slots_[pos];
      if (slot == 0) break;
      if (slot_hashes_[pos] == hash) {
        Word e;
        std::memcpy(&e, entries_.data() + static_cast<size_t>(slot - 1) * sizeof(Word), sizeof(Word));
        if (e == w) {
          found = slot;
          break;
        }
      }
      pos = (pos + 1) & mask_;
    }
    if (found != 0) {
      indices[k] = found - 1;
      continue;
    }
    uint32_t index = static_cast<uint32_t>(num_entries_++);
    const uint8_t* p = values + static_cast<size_t>(k) * sizeof(Word);
    entries_.insert(entries_.end(), p, p + sizeof(Word));
    slots_[pos] = index + 1;
    slot_hashes_[pos] = hash;
    if (static_cast<uint64_t>(num_entries_) * 2 > slots_.size()) Grow();
    indices[k] = index;
  }
}

void DictionaryBuilder::IndexFixed(const uint8_t* values, int64_t count, uint32_t* indices) {
  if (width_ == 4) return IndexWords<uint32_t>(values, count, indices);
  if (width_ == 8) return IndexWords<uint64_t>(values, count, indices);
  const size_t width = static_cast<size_t>(width_);
  for (int64_t k = 0; k < count; ++k) {
    const uint8_t* p = values + static_cast<size_t>(k) * width;
    indices[k] = Insert(p, width, HashBytes(p, width));
  }
}

void DictionaryBuilder::IndexByteArrays(const int64_t* offsets, const uint8_t* data, int64_t count,
                                        uint32_t* indices) {
  for (int64_t k = 0; k < count; ++k) {
    const uint8_t* p = data + offsets[k];
    size_t length = static_cast<size_t>(offsets[k + 1] - offsets[k]);
    indices[k] = Insert(p, length, HashBytes(p, length));
  }
}

std::vector<uint8_t> DictionaryBuilder::EncodePlain() const {
  if (width_ != 0) return entries_;
  std::vector<uint8_t> out;
  out.reserve(static_cast<size_t>(plain_bytes()));
  for (int64_t i = 0; i < num_entries_; ++i) {
    uint32_t length = static_cast<uint32_t>(entry_offsets_[i + 1] - entry_offsets_[i]);
    uint8_t prefix[4];
    std::memcpy(prefix, &length, 4);
    out.insert(out.end(), prefix, prefix + 4);
    out.insert(out.end(), entries_.begin() + entry_offsets_[i], entries_.begin() + entry_offsets_[i + 1]);
  }
  return out;
}

}  // namespace floe::parquet
