// A key index run's block: see key_index_block.h for the layout.
#include "ingest/merge/key_index_block.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cstring>
#include <string>

namespace floe::ingest::key_index_internal {
namespace {

inline uint64_t Load64(const uint8_t* p) {
  uint64_t v = 0;
  std::memcpy(&v, p, 8);
  if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
  return v;
}

inline int BitWidth(uint64_t v) {
  return v == 0 ? 0 : 64 - std::countl_zero(v);
}

inline uint64_t WidthMask(int width) {
  return width == 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
}

inline size_t PackedBytes(size_t count, int width) {
  return (count * static_cast<size_t>(width) + 7) / 8;
}

void PutU16(std::vector<uint8_t>& out, uint16_t v) {
  out.push_back(static_cast<uint8_t>(v));
  out.push_back(static_cast<uint8_t>(v >> 8));
}
void PutU32(std::vector<uint8_t>& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}
void PutU64(std::vector<uint8_t>& out, uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

// Appends `values` packed in `width` bits each.
void PackInto(std::vector<uint8_t>& out, const std::vector<uint64_t>& values, uint64_t base, int width) {
  const size_t start = out.size();
  out.resize(start + PackedBytes(values.size(), width), 0);
  if (width == 0) return;
  uint8_t* data = out.data() + start;
  size_t bit = 0;
  for (uint64_t value : values) {
    uint64_t v = value - base;
    int left = width;
    while (left > 0) {
      const size_t byte = bit / 8;
      const int shift = static_cast<int>(bit % 8);
      const int take = std::min(left, 8 - shift);
      data[byte] = static_cast<uint8_t>(data[byte] | ((v & ((uint64_t{1} << take) - 1)) << shift));
      v = take == 64 ? 0 : v >> take;
      left -= take;
      bit += static_cast<size_t>(take);
    }
  }
}

// A frame-of-reference column: u64 base, u8 width, packed values.
void PutFrameOfReference(std::vector<uint8_t>& out, const std::vector<uint64_t>& values) {
  uint64_t base = 0;
  uint64_t top = 0;
  if (!values.empty()) {
    base = *std::min_element(values.begin(), values.end());
    top = *std::max_element(values.begin(), values.end());
  }
  const int width = BitWidth(top - base);
  PutU64(out, base);
  out.push_back(static_cast<uint8_t>(width));
  PackInto(out, values, base, width);
}

// Reads fields from a payload; every read is bounds-checked.
class PayloadReader {
 public:
  explicit PayloadReader(std::span<const uint8_t> payload) : payload_(payload) {}
  size_t remaining() const { return payload_.size() - pos_; }
  size_t position() const { return pos_; }

  Result<uint64_t> Fixed(int bytes, const char* what) {
    if (remaining() < static_cast<size_t>(bytes)) return Truncated(what);
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | payload_[pos_ + static_cast<size_t>(i)];
    pos_ += static_cast<size_t>(bytes);
    return v;
  }
  Result<const uint8_t*> Skip(size_t bytes, const char* what) {
    if (remaining() < bytes) return Truncated(what);
    const uint8_t* p = payload_.data() + pos_;
    pos_ += bytes;
    return p;
  }
  Result<int> Width(const char* what) {
    FLOE_ASSIGN_OR_RETURN(uint64_t width, Fixed(1, what));
    if (width > 64) {
      return Status::Corruption(std::string("block: ") + what + " width " + std::to_string(width) + " > 64");
    }
    return static_cast<int>(width);
  }

 private:
  Status Truncated(const char* what) const {
    return Status::Corruption(std::string("block: truncated at ") + what + " (byte " + std::to_string(pos_) +
                              " of " + std::to_string(payload_.size()) + ")");
  }
  std::span<const uint8_t> payload_;
  size_t pos_ = 0;
};

}  // namespace

bool BlockView::Packed::AllAtMost(size_t count, uint64_t limit) const {
  const uint64_t mask = WidthMask(width);
  if (base <= limit && mask <= limit - base) return true;  // base plus any packed value fits
  for (size_t i = 0; i < count; ++i) {
    const uint64_t packed = At(i) - base;
    if (base > limit || packed > limit - base) return false;
  }
  return true;
}

uint64_t BlockView::Packed::At(size_t i) const {
  if (width == 0) return base;
  const size_t bit = i * static_cast<size_t>(width);
  const size_t byte = bit / 8;
  const int shift = static_cast<int>(bit % 8);
  uint64_t v = Load64(data + byte) >> shift;
  if (shift + width > 64) v |= Load64(data + byte + 8) << (64 - shift);
  return base + (v & WidthMask(width));
}

void EncodeBlock(std::span<const RunEntry> entries, bool hashed, std::vector<uint8_t>& out) {
  const size_t n = entries.size();
  size_t tombstones = 0;
  for (const RunEntry& e : entries) tombstones += e.tombstone ? 1 : 0;
  PutU16(out, static_cast<uint16_t>(n));
  PutU16(out, static_cast<uint16_t>(tombstones));
  std::vector<uint64_t> values;
  values.reserve(n);
  if (!hashed) {
    PutU64(out, entries[0].key.lo);
    for (size_t i = 1; i < n; ++i) values.push_back(entries[i].key.lo - entries[i - 1].key.lo - 1);
    const int width = values.empty() ? 0 : BitWidth(*std::max_element(values.begin(), values.end()));
    out.push_back(static_cast<uint8_t>(width));
    PackInto(out, values, 0, width);
  } else {
    PutU32(out, static_cast<uint32_t>(entries[0].key.hi >> 32));
    for (size_t i = 1; i < n; ++i)
      values.push_back((entries[i].key.hi >> 32) - (entries[i - 1].key.hi >> 32));
    const int width = values.empty() ? 0 : BitWidth(*std::max_element(values.begin(), values.end()));
    out.push_back(static_cast<uint8_t>(width));
    PackInto(out, values, 0, width);
    values.clear();
    for (const RunEntry& e : entries) values.push_back(e.key.lo);
    PutFrameOfReference(out, values);
  }
  if (tombstones > 0) {
    const size_t start = out.size();
    out.resize(start + (n + 7) / 8, 0);
    for (size_t i = 0; i < n; ++i) {
      if (entries[i].tombstone)
        out[start + i / 8] = static_cast<uint8_t>(out[start + i / 8] | (1u << (i % 8)));
    }
  }
  for (size_t offset : {size_t{0}, size_t{8}}) {
    values.clear();
    for (const RunEntry& e : entries) values.push_back(OrderValueHalf(e.order, offset));
    PutFrameOfReference(out, values);
  }
  values.clear();
  for (const RunEntry& e : entries) {
    if (!e.tombstone) values.push_back(e.file);
  }
  PutFrameOfReference(out, values);
  values.clear();
  for (const RunEntry& e : entries) {
    if (!e.tombstone) values.push_back(static_cast<uint64_t>(e.value));
  }
  PutFrameOfReference(out, values);
  values.clear();
  for (const RunEntry& e : entries) {
    if (e.tombstone) values.push_back(static_cast<uint64_t>(e.value));
  }
  PutFrameOfReference(out, values);
}

Result<BlockView> BlockView::Parse(std::span<const uint8_t> payload, bool hashed) {
  PayloadReader reader(payload);
  FLOE_ASSIGN_OR_RETURN(uint64_t n, reader.Fixed(2, "entry count"));
  FLOE_ASSIGN_OR_RETURN(uint64_t t, reader.Fixed(2, "tombstone count"));
  if (n == 0 || n > kMaxBlockEntries || t > n) {
    return Status::Corruption("block: " + std::to_string(n) + " entries, " + std::to_string(t) +
                              " tombstones");
  }
  BlockView view;
  view.keys_.resize(n);
  // A packed column of `count` values at the current position.
  auto packed = [&](size_t count, uint64_t base, int width, const char* what) -> Result<Packed> {
    FLOE_ASSIGN_OR_RETURN(const uint8_t* data, reader.Skip(PackedBytes(count, width), what));
    return Packed{data, base, width};
  };
  auto frame_of_reference = [&](size_t count, const char* what) -> Result<Packed> {
    FLOE_ASSIGN_OR_RETURN(uint64_t base, reader.Fixed(8, what));
    FLOE_ASSIGN_OR_RETURN(int width, reader.Width(what));
    return packed(count, base, width, what);
  };
  if (!hashed) {
    FLOE_ASSIGN_OR_RETURN(uint64_t key, reader.Fixed(8, "first key"));
    FLOE_ASSIGN_OR_RETURN(int width, reader.Width("key deltas"));
    FLOE_ASSIGN_OR_RETURN(Packed deltas, packed(n - 1, 0, width, "key deltas"));
    view.keys_[0] = {0, key};
    for (size_t i = 1; i < n; ++i) {
      const uint64_t step = deltas.At(i - 1);
      if (step == ~uint64_t{0} || key + step + 1 < key) return Status::Corruption("block: keys overflow");
      key += step + 1;
      view.keys_[i] = {0, key};
    }
  } else {
    FLOE_ASSIGN_OR_RETURN(uint64_t hi, reader.Fixed(4, "first key"));
    FLOE_ASSIGN_OR_RETURN(int width, reader.Width("key deltas"));
    FLOE_ASSIGN_OR_RETURN(Packed deltas, packed(n - 1, 0, width, "key deltas"));
    FLOE_ASSIGN_OR_RETURN(Packed lows, frame_of_reference(n, "key lows"));
    for (size_t i = 0; i < n; ++i) {
      if (i > 0) {
        const uint64_t step = deltas.At(i - 1);
        if (step > 0xFFFFFFFFu || hi + step > 0xFFFFFFFFu) return Status::Corruption("block: keys overflow");
        hi += step;
      }
      view.keys_[i] = {hi << 32, lows.At(i)};
      if (i > 0 && !KeyLess(view.keys_[i - 1], view.keys_[i])) {
        return Status::Corruption("block: keys out of order at entry " + std::to_string(i));
      }
    }
  }
  if (t > 0) {
    FLOE_ASSIGN_OR_RETURN(view.kinds_, reader.Skip((n + 7) / 8, "kinds"));
    size_t counted = 0;
    for (size_t i = 0; i < n; ++i) counted += (view.kinds_[i / 8] >> (i % 8)) & 1u;
    if (counted != t) return Status::Corruption("block: kinds disagree with the tombstone count");
  }
  FLOE_ASSIGN_OR_RETURN(view.order_hi_, frame_of_reference(n, "order high"));
  FLOE_ASSIGN_OR_RETURN(view.order_lo_, frame_of_reference(n, "order low"));
  FLOE_ASSIGN_OR_RETURN(view.files_, frame_of_reference(n - t, "files"));
  FLOE_ASSIGN_OR_RETURN(view.positions_, frame_of_reference(n - t, "positions"));
  FLOE_ASSIGN_OR_RETURN(view.deleted_, frame_of_reference(t, "deletion times"));
  if (reader.remaining() != 0) {
    return Status::Corruption("block: " + std::to_string(reader.remaining()) +
                              " bytes after the last column");
  }
  // Values that do not fit their fields (file numbers are 32-bit, positions
  // and seconds non-negative int64) are not entries floe wrote.
  if (!view.files_.AllAtMost(n - t, 0xFFFFFFFFu) || !view.positions_.AllAtMost(n - t, uint64_t{INT64_MAX}) ||
      !view.deleted_.AllAtMost(t, uint64_t{INT64_MAX})) {
    return Status::Corruption("block: a file number, position or deletion time out of range");
  }
  return view;
}

size_t BlockView::TombstonesBefore(size_t i) const {
  if (kinds_ == nullptr) return 0;
  size_t count = 0;
  size_t byte = 0;
  for (; (byte + 1) * 8 <= i; ++byte) count += static_cast<size_t>(std::popcount(kinds_[byte]));
  const size_t rest = i % 8;
  if (rest > 0)
    count += static_cast<size_t>(std::popcount(static_cast<uint8_t>(kinds_[byte] & ((1u << rest) - 1))));
  return count;
}

int64_t BlockView::Find(const KeyId& key) const {
  auto it = std::lower_bound(keys_.begin(), keys_.end(), key, KeyLess);
  if (it == keys_.end() || !(*it == key)) return -1;
  return it - keys_.begin();
}

RunEntry BlockView::Entry(size_t i) const {
  RunEntry e;
  e.key = keys_[i];
  e.order = OrderValueFromHalves(order_hi_.At(i), order_lo_.At(i));
  e.tombstone = kinds_ != nullptr && ((kinds_[i / 8] >> (i % 8)) & 1u) != 0;
  const size_t before = TombstonesBefore(i);
  if (e.tombstone) {
    e.value = static_cast<int64_t>(deleted_.At(before));
  } else {
    e.file = static_cast<uint32_t>(files_.At(i - before));
    e.value = static_cast<int64_t>(positions_.At(i - before));
  }
  return e;
}

void BlockView::AppendAll(std::vector<RunEntry>& out) const {
  size_t live = 0;
  size_t dead = 0;
  for (size_t i = 0; i < keys_.size(); ++i) {
    RunEntry e;
    e.key = keys_[i];
    e.order = OrderValueFromHalves(order_hi_.At(i), order_lo_.At(i));
    e.tombstone = kinds_ != nullptr && ((kinds_[i / 8] >> (i % 8)) & 1u) != 0;
    if (e.tombstone) {
      e.value = static_cast<int64_t>(deleted_.At(dead++));
    } else {
      e.file = static_cast<uint32_t>(files_.At(live));
      e.value = static_cast<int64_t>(positions_.At(live++));
    }
    out.push_back(e);
  }
}

}  // namespace floe::ingest::key_index_internal
