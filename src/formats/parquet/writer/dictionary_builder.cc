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

// 64x64 -> 128-bit multiply folded to 64 bits.
inline uint64_t MultiplyFold(uint64_t a, uint64_t b) {
  const unsigned __int128 product = static_cast<unsigned __int128>(a) * b;
  return static_cast<uint64_t>(product) ^ static_cast<uint64_t>(product >> 64);
}

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

inline uint64_t Load32(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

constexpr uint64_t kSeed0 = 0xa0761d6478bd642fULL;
constexpr uint64_t kSeed1 = 0xe7037ed1a0b428dbULL;
constexpr uint64_t kSeed2 = 0x8ebc6af09c88c6e3ULL;

// Hash of a byte string: 16 bytes per multiply; the tail is read as the
// last 16 bytes (overlapping) or, when shorter, from its two ends.
inline uint64_t HashBytes(const uint8_t* p, size_t n) {
  uint64_t h = kSeed0 ^ (n * kSeed2);
  uint64_t a = 0, b = 0;
  if (n <= 16) {
    if (n >= 8) {
      a = Load64(p);
      b = Load64(p + n - 8);
    } else if (n >= 4) {
      a = Load32(p);
      b = Load32(p + n - 4);
    } else if (n > 0) {
      a = (static_cast<uint64_t>(p[0]) << 16) | (static_cast<uint64_t>(p[n >> 1]) << 8) | p[n - 1];
    }
  } else {
    size_t i = 0;
    for (; i + 16 < n; i += 16) h = MultiplyFold(Load64(p + i) ^ kSeed1, Load64(p + i + 8) ^ h);
    a = Load64(p + n - 16);
    b = Load64(p + n - 8);
  }
  return MixWord(MultiplyFold(a ^ kSeed1, b ^ h) ^ n);
}

// Byte equality, inline for the short values dictionaries mostly hold.
inline bool BytesEqual(const uint8_t* a, const uint8_t* b, size_t n) {
  if (n >= 8 && n <= 16) return Load64(a) == Load64(b) && Load64(a + n - 8) == Load64(b + n - 8);
  if (n >= 4 && n < 8) return Load32(a) == Load32(b) && Load32(a + n - 4) == Load32(b + n - 4);
  // Empty values may point nowhere (a column of empty strings has no bytes),
  // and memcmp takes no null pointer even for no bytes.
  if (n == 0) return true;
  return std::memcmp(a, b, n) == 0;
}

inline uint64_t TagOf(uint64_t hash) {
  return hash & 0xFFFFFFFF00000000ULL;
}

}  // namespace

DictionaryBuilder::DictionaryBuilder(int width) : width_(width) {
  slots_.assign(kInitialSlots, 0);
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

uint64_t DictionaryBuilder::HashOfEntry(uint32_t index) const {
  const uint8_t* p = EntryData(index);
  if (width_ == 4) return MixWord(Load32(p));
  if (width_ == 8) return MixWord(Load64(p));
  return HashBytes(p, EntryLength(index));
}

void DictionaryBuilder::Grow() {
  const size_t capacity = slots_.size() * 2;
  std::vector<uint64_t> slots(capacity, 0);
  const uint64_t mask = capacity - 1;
  for (uint64_t slot : slots_) {
    if (slot == 0) continue;
    uint64_t pos = HashOfEntry(static_cast<uint32_t>(slot) - 1) & mask;
    while (slots[pos] != 0) pos = (pos + 1) & mask;
    slots[pos] = slot;
  }
  slots_.swap(slots);
  mask_ = mask;
}

uint32_t DictionaryBuilder::AddEntry(const uint8_t* bytes, size_t length, uint64_t hash, uint64_t pos) {
  const uint32_t index = static_cast<uint32_t>(num_entries_++);
  entries_.insert(entries_.end(), bytes, bytes + length);
  if (width_ == 0) entry_offsets_.push_back(static_cast<int64_t>(entries_.size()));
  slots_[pos] = TagOf(hash) | (static_cast<uint64_t>(index) + 1);
  if (static_cast<uint64_t>(num_entries_) * 2 > slots_.size()) Grow();
  return index;
}

uint32_t DictionaryBuilder::Insert(const uint8_t* bytes, size_t length, uint64_t hash) {
  const uint64_t tag = TagOf(hash);
  uint64_t pos = hash & mask_;
  while (true) {
    const uint64_t slot = slots_[pos];
    if (slot == 0) break;
    if (TagOf(slot) == tag) {
      const uint32_t index = static_cast<uint32_t>(slot) - 1;
      if (EntryLength(index) == length && BytesEqual(EntryData(index), bytes, length)) return index;
    }
    pos = (pos + 1) & mask_;
  }
  return AddEntry(bytes, length, hash, pos);
}

// Fast path for 4- and 8-byte values: compare words, not byte ranges.
template <typename Word>
void DictionaryBuilder::IndexWords(const uint8_t* values, int64_t count, uint32_t* indices) {
  for (int64_t k = 0; k < count; ++k) {
    const uint8_t* p = values + static_cast<size_t>(k) * sizeof(Word);
    Word w;
    std::memcpy(&w, p, sizeof(Word));
    const uint64_t hash = MixWord(static_cast<uint64_t>(w));
    const uint64_t tag = TagOf(hash);
    uint64_t pos = hash & mask_;
    uint32_t found = 0;
    while (true) {
      const uint64_t slot = slots_[pos];
      if (slot == 0) break;
      if (TagOf(slot) == tag) {
        Word e;
        std::memcpy(&e, entries_.data() + static_cast<size_t>(static_cast<uint32_t>(slot) - 1) * sizeof(Word),
                    sizeof(Word));
        if (e == w) {
          found = static_cast<uint32_t>(slot);
          break;
        }
      }
      pos = (pos + 1) & mask_;
    }
    indices[k] = found != 0 ? found - 1 : AddEntry(p, sizeof(Word), hash, pos);
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
    const size_t length = static_cast<size_t>(offsets[k + 1] - offsets[k]);
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
