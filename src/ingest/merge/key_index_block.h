// Internal to floe_ingest_merge: one block of a key index run file — up to
// kMaxBlockEntries entries sorted by key, stored column by column with
// frame-of-reference bit packing (see key_index_run.h for the file around it).
//
// Block payload (little-endian; every packed column is `count` values of
// `width` bits each, least significant bit first, ceil(count * width / 8)
// bytes; a frame-of-reference column is u64 base, u8 width (0-64), packed
// value - base):
//   u16 n (1..kMaxBlockEntries), u16 t (tombstones, 0..n)
//   keys, exact:  u64 first key, u8 width, packed (n-1) values key[i] - key[i-1] - 1
//   keys, hashed: u32 first hi, u8 width, packed (n-1) hi deltas (>= 0);
//                 lo as a frame-of-reference column of n values (a run of
//                 hashed keys may also hold exact keys, hi = 0)
//   kinds:        ceil(n / 8) bytes, bit i set when entry i is a tombstone (only when t > 0)
//   order high 8 bytes, order low 8 bytes: frame-of-reference columns of n values
//   file numbers, row positions: frame-of-reference columns of the n - t live entries
//   deletion seconds: frame-of-reference column of the t tombstones
// A hashed key is stored in its canonical form (KeyId.hi = 32 folded bits
// << 32, so only the top 32 bits are kept). Keys are strictly increasing by
// (hi, lo) as unsigned numbers.
//
// Decoding never trusts the payload: counts, widths and lengths are checked
// against the bytes present, the packed columns must end exactly at the end
// of the payload, and keys must be strictly increasing; any violation is
// Corruption. Thread-compatible (a BlockView is read-only once parsed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/status.h"
#include "ingest/merge/key_index.h"
#include "ingest/merge/order_value.h"

namespace floe::ingest::key_index_internal {

inline constexpr size_t kMaxBlockEntries = 512;
// Zero bytes a BlockView's payload must have readable after its end (packed
// values are read with two 8-byte loads).
inline constexpr size_t kBlockPadding = 16;

// One index entry as runs hold it: a live row (data file number in the
// run's file table, row position) or a tombstone (deletion time in whole
// seconds since the epoch, rounded up). The key is canonical (CanonicalKey).
struct RunEntry {
  KeyId key;
  OrderValue order;
  int64_t value = 0;  // live: row position; tombstone: deletion second
  uint32_t file = 0;  // live only
  bool tombstone = false;
};

inline bool KeyLess(const KeyId& a, const KeyId& b) {
  return a.hi != b.hi ? a.hi < b.hi : a.lo < b.lo;
}

// The form of a key the index holds: exact integer keys ({0, value}) as
// they are; for a hashed key, hi folded to 32 bits with the lowest bit set
// (so it stays non-zero and never aliases an integer key) and moved to the
// top half: 95 bits of hash kept. Idempotent.
inline KeyId CanonicalKey(const KeyId& k) {
  if (k.hi == 0) return k;
  const uint32_t folded = (static_cast<uint32_t>(k.hi >> 32) ^ static_cast<uint32_t>(k.hi)) | 1u;
  return {uint64_t{folded} << 32, k.lo};
}

// Seconds since the epoch for a tombstone's deletion time: rounded up,
// clamped to [0, 2^32 - 1].
inline int64_t TombstoneSeconds(int64_t deleted_at_ms) {
  if (deleted_at_ms <= 0) return 0;
  const int64_t seconds = deleted_at_ms / 1000 + (deleted_at_ms % 1000 != 0 ? 1 : 0);
  return seconds >= int64_t{0xFFFFFFFF} ? int64_t{0xFFFFFFFF} : seconds;
}

// Appends the payload of a block holding `entries` (1..kMaxBlockEntries,
// keys canonical and strictly increasing, all hashed or all exact as
// `hashed` says) to `out`.
void EncodeBlock(std::span<const RunEntry> entries, bool hashed, std::vector<uint8_t>& out);

// A parsed block payload: the keys decoded, the other columns located.
class BlockView {
 public:
  // `payload` must stay valid (and have kBlockPadding readable zero bytes
  // after it) while the view is used.
  static Result<BlockView> Parse(std::span<const uint8_t> payload, bool hashed);

  size_t size() const { return keys_.size(); }
  const KeyId& key(size_t i) const { return keys_[i]; }
  // The index of `key`, or -1.
  int64_t Find(const KeyId& key) const;
  RunEntry Entry(size_t i) const;
  // Every entry, in key order, appended to `out`.
  void AppendAll(std::vector<RunEntry>& out) const;

 private:
  struct Packed {
    const uint8_t* data = nullptr;
    uint64_t base = 0;
    int width = 0;
    uint64_t At(size_t i) const;
    // Whether each of the first `count` values is at most `limit` (and base + value does not wrap).
    bool AllAtMost(size_t count, uint64_t limit) const;
  };
  size_t TombstonesBefore(size_t i) const;

  std::vector<KeyId> keys_;
  const uint8_t* kinds_ = nullptr;  // nullptr: no tombstones
  Packed order_hi_, order_lo_, files_, positions_, deleted_;
};

}  // namespace floe::ingest::key_index_internal
