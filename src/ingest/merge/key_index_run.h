// Internal to floe_ingest_merge: a run — one immutable file of key index
// entries sorted by key, read through the page cache one block at a time.
//
// File layout (little-endian):
//   "FLOEKIR1"
//   blocks: each a payload (key_index_block.h) followed by the u32 CRC-32 of
//           the payload; blocks are contiguous, the first at byte 8
//   footer: u32 version (1), u8 key mode (0 exact int64, 1 hashed), u64
//           entries, u64 tombstones, u32 block count, per block u64 offset,
//           u32 payload size, first key; the last key; u32 listed files,
//           per file u32 number, u32 length, path (numbers increasing; only
//           files live entries name are listed); u32 Bloom filter blocks
//           (0: none) and 64 bytes per block
//   tail:   u64 footer offset, u32 CRC-32 of the footer, "FLOEKIR1"
// A key is u64 lo (exact) or u32 top half of hi, u64 lo (hashed).
//
// Opening a run reads and checks only the tail and the footer (the fence
// index of first keys, the file table and the Bloom filter stay in memory:
// ~28 bytes per block of kRunBlockEntries entries, 10 bits per key of
// filter). A lookup reads one block (a few KB) with one ranged read, checks
// its CRC and decodes its keys. Everything read is untrusted: a damaged,
// truncated or inconsistent file is Corruption naming the file, never a
// crash. RunReader is immutable after Open and safe to use from several
// threads (each caller brings its own BlockCursor / RunScanner); RunWriter
// is not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "ingest/merge/key_index_block.h"
#include "io/file_io.h"

namespace floe::ingest::key_index_internal {

// Entries per block the writer aims for.
inline constexpr size_t kRunBlockEntries = 256;

// A blocked Bloom filter over canonical keys: 512-bit blocks, 7 bits per
// key in one block, sized at 10 bits per key (about 1% false positives).
class KeyBloom {
 public:
  KeyBloom() = default;
  explicit KeyBloom(uint64_t expected_keys);
  static uint64_t HashOf(const KeyId& key);
  void Add(uint64_t hash);
  bool MayContain(uint64_t hash) const;
  bool empty() const { return words_.empty(); }
  size_t blocks() const { return words_.size() / 8; }
  const std::vector<uint64_t>& words() const { return words_; }
  std::vector<uint64_t>& words() { return words_; }

 private:
  std::vector<uint64_t> words_;
};

// What a finished or opened run holds.
struct RunInfo {
  std::string path;
  uint64_t entries = 0;
  uint64_t tombstones = 0;
  int64_t bytes = 0;
};

struct RunWriterOptions {
  bool hashed = false;
  bool bloom = true;
  uint64_t expected_entries = 0;  // sizes the Bloom filter (an upper bound is fine)
};

class RunWriter {
 public:
  static Result<std::unique_ptr<RunWriter>> Create(FileIO& io, const std::string& path,
                                                   const RunWriterOptions& options);
  ~RunWriter();
  // Keys must be canonical, strictly increasing and of the writer's key mode.
  Status Add(const RunEntry& entry);
  uint64_t entries() const { return entries_; }
  // Writes the footer and publishes the file. `files[n]` is the path of file
  // number n; every live entry's number must be below files.size().
  Result<RunInfo> Finish(const std::vector<std::string>& files);
  // Discards the file (nothing appears at the path).
  void Abort();

 private:
  RunWriter(std::unique_ptr<OutputFile> out, const RunWriterOptions& options);
  Status FlushBlock();
  Status FlushBuffer();

  std::unique_ptr<OutputFile> out_;
  RunWriterOptions options_;
  std::vector<RunEntry> block_;
  std::vector<uint8_t> buffer_;
  int64_t written_ = 0;  // bytes handed to out_
  struct Fence {
    uint64_t offset;
    uint32_t size;
    KeyId first;
  };
  std::vector<Fence> fences_;
  KeyId last_key_;
  uint64_t entries_ = 0;
  uint64_t tombstones_ = 0;
  std::vector<bool> files_used_;
  KeyBloom bloom_;
  bool done_ = false;
};

class RunReader;

// The last block a caller read from one run, kept for the next lookup.
struct BlockCursor {
  const RunReader* run = nullptr;
  size_t block = 0;
  std::vector<uint8_t> buffer;
  std::optional<BlockView> view;
};

class RunReader {
 public:
  static Result<std::shared_ptr<const RunReader>> Open(FileIO& io, const std::string& path);
  static Result<std::shared_ptr<const RunReader>> Open(std::unique_ptr<InputFile> file);

  const std::string& path() const { return info_.path; }
  const RunInfo& info() const { return info_; }
  bool hashed() const { return hashed_; }
  bool has_bloom() const { return !bloom_.empty(); }
  size_t blocks() const { return fences_.size(); }
  // Bytes the reader keeps in memory (fences, files, filter).
  int64_t MemoryBytes() const;

  // Whether the run may hold `key` (canonical; `hash` = KeyBloom::HashOf):
  // its key range and its Bloom filter.
  bool MayContain(const KeyId& key, uint64_t hash) const;
  // Finds `key` (canonical). Lookups in ascending key order through one
  // cursor read each block once.
  Status Find(const KeyId& key, BlockCursor& cursor, std::optional<RunEntry>* found) const;
  // The path of file number `number`; nullptr when the run lists none.
  const std::string* FilePath(uint32_t number) const;
  // The listed files (number, path), numbers increasing.
  const std::vector<std::pair<uint32_t, std::string>>& files() const { return files_; }

 private:
  friend class RunScanner;
  RunReader() = default;
  // Reads, checks and parses block `b` into `cursor`.
  Status LoadBlock(size_t b, BlockCursor& cursor) const;
  Status Damaged(const std::string& what) const;

  RunInfo info_;
  std::unique_ptr<InputFile> file_;
  bool hashed_ = false;
  std::vector<KeyId> first_keys_;
  struct Extent {
    uint64_t offset;
    uint32_t size;
  };
  std::vector<Extent> fences_;
  KeyId last_key_;
  std::vector<std::pair<uint32_t, std::string>> files_;
  KeyBloom bloom_;
};

// At most this many blocks are decoded at a time by one RunScanner. A merge
// holds one scanner per input run, and decoded entries are ~20 times their
// compressed size (a 1 MiB read of dense keys decodes to ~21 MB), so the cap
// keeps a merge of the 30-odd runs a 100M-key load leaves at ~1 MB per input
// instead of over 1 GB.
inline constexpr size_t kScanBlocks = 32;

// Reads a run's entries in key order, several blocks per read (at most
// kScanBlocks, and at most 1 MiB unless one block is larger).
class RunScanner {
 public:
  explicit RunScanner(const RunReader& run) : run_(run) {}
  // The next entry (valid until the next call), or nullptr at the end.
  Result<const RunEntry*> Next();
  // Entries decoded and held: at most kScanBlocks blocks' worth.
  size_t buffered_entries() const { return entries_.size(); }

 private:
  Status ReadMore();

  const RunReader& run_;
  size_t next_block_ = 0;
  std::vector<uint8_t> chunk_;
  std::vector<RunEntry> entries_;
  size_t pos_ = 0;
};

}  // namespace floe::ingest::key_index_internal
