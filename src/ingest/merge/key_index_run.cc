// Key index run files: see key_index_run.h for the layout.
#include "ingest/merge/key_index_run.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "ingest/merge/murmur3_128.h"

namespace floe::ingest::key_index_internal {
namespace {

constexpr char kMagic[8] = {'F', 'L', 'O', 'E', 'K', 'I', 'R', '1'};
constexpr uint32_t kVersion = 1;
constexpr size_t kTailBytes = 8 + 4 + sizeof(kMagic);
constexpr size_t kFlushBytes = size_t{1} << 20;
// Far above what a block of kMaxBlockEntries entries encodes to (~25 KB).
constexpr uint32_t kMaxPayloadBytes = 64 * 1024;
constexpr int64_t kMaxFooterBytes = int64_t{1} << 30;
constexpr uint32_t kMaxPathBytes = 64 * 1024;

uint32_t Crc32(const uint8_t* data, size_t size) {
  uint32_t crc = static_cast<uint32_t>(crc32(0, nullptr, 0));
  while (size > 0) {
    const auto n = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    crc = static_cast<uint32_t>(crc32(crc, data, n));
    data += n;
    size -= n;
  }
  return crc;
}

void Put(std::vector<uint8_t>& out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<uint8_t>(v >> (8 * i)));
}

void PutKey(std::vector<uint8_t>& out, const KeyId& key, bool hashed) {
  if (hashed) Put(out, key.hi >> 32, 4);
  Put(out, key.lo, 8);
}

// Bounds-checked little-endian fields of a footer.
class FooterReader {
 public:
  explicit FooterReader(const std::vector<uint8_t>& bytes) : bytes_(bytes) {}
  size_t remaining() const { return bytes_.size() - pos_; }
  Result<uint64_t> Fixed(int n, const char* what) {
    if (remaining() < static_cast<size_t>(n)) {
      return Status::Corruption(std::string("footer truncated at ") + what);
    }
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; --i) v = (v << 8) | bytes_[pos_ + static_cast<size_t>(i)];
    pos_ += static_cast<size_t>(n);
    return v;
  }
  Result<KeyId> Key(bool hashed, const char* what) {
    KeyId key;
    if (hashed) {
      FLOE_ASSIGN_OR_RETURN(uint64_t top, Fixed(4, what));
      key.hi = top << 32;
    }
    FLOE_ASSIGN_OR_RETURN(key.lo, Fixed(8, what));
    return key;
  }
  Result<const uint8_t*> Bytes(size_t n, const char* what) {
    if (remaining() < n) return Status::Corruption(std::string("footer truncated at ") + what);
    const uint8_t* p = bytes_.data() + pos_;
    pos_ += n;
    return p;
  }

 private:
  const std::vector<uint8_t>& bytes_;
  size_t pos_ = 0;
};

}  // namespace

// ---- KeyBloom ----

KeyBloom::KeyBloom(uint64_t expected_keys) {
  const uint64_t bits = std::max<uint64_t>(expected_keys, 1) * 10;
  words_.assign(static_cast<size_t>((bits + 511) / 512) * 8, 0);
}

uint64_t KeyBloom::HashOf(const KeyId& key) {
  return KeyIdHash{}(key);
}

void KeyBloom::Add(uint64_t hash) {
  const size_t block = static_cast<size_t>((static_cast<unsigned __int128>(hash) * blocks()) >> 64);
  uint64_t bits = MurmurMix64(hash ^ 0x9E3779B97F4A7C15ULL);
  uint64_t* words = words_.data() + block * 8;
  for (int i = 0; i < 7; ++i, bits >>= 9) words[(bits >> 6) & 7] |= uint64_t{1} << (bits & 63);
}

bool KeyBloom::MayContain(uint64_t hash) const {
  if (words_.empty()) return true;
  const size_t block = static_cast<size_t>((static_cast<unsigned __int128>(hash) * blocks()) >> 64);
  uint64_t bits = MurmurMix64(hash ^ 0x9E3779B97F4A7C15ULL);
  const uint64_t* words = words_.data() + block * 8;
  for (int i = 0; i < 7; ++i, bits >>= 9) {
    if ((words[(bits >> 6) & 7] & (uint64_t{1} << (bits & 63))) == 0) return false;
  }
  return true;
}

// ---- RunWriter ----

RunWriter::RunWriter(std::unique_ptr<OutputFile> out, const RunWriterOptions& options)
    : out_(std::move(out)), options_(options) {
  if (options_.bloom) bloom_ = KeyBloom(options_.expected_entries);
  block_.reserve(kRunBlockEntries);
  buffer_.reserve(kFlushBytes + 64 * 1024);
  buffer_.insert(buffer_.end(), kMagic, kMagic + sizeof(kMagic));
}

RunWriter::~RunWriter() {
  if (!done_) Abort();
}

Result<std::unique_ptr<RunWriter>> RunWriter::Create(FileIO& io, const std::string& path,
                                                     const RunWriterOptions& options) {
  FLOE_ASSIGN_OR_RETURN(auto out, io.Create(path));
  return std::unique_ptr<RunWriter>(new RunWriter(std::move(out), options));
}

Status RunWriter::Add(const RunEntry& entry) {
  if (done_) return Status::Internal("key index run " + out_->path() + ": Add after Finish");
  if (options_.hashed ? (entry.key.hi & 0xFFFFFFFFu) != 0 : entry.key.hi != 0) {
    return Status::Internal("key index run " + out_->path() + ": a key of the other key mode");
  }
  if (entries_ > 0 && !KeyLess(last_key_, entry.key)) {
    return Status::Internal("key index run " + out_->path() + ": keys not strictly increasing");
  }
  last_key_ = entry.key;
  ++entries_;
  if (entry.tombstone) {
    ++tombstones_;
  } else {
    if (entry.file >= files_used_.size()) files_used_.resize(entry.file + 1, false);
    files_used_[entry.file] = true;
  }
  if (!bloom_.empty()) bloom_.Add(KeyBloom::HashOf(entry.key));
  block_.push_back(entry);
  if (block_.size() == kRunBlockEntries) FLOE_RETURN_IF_ERROR(FlushBlock());
  return Status::OK();
}

Status RunWriter::FlushBlock() {
  if (block_.empty()) return Status::OK();
  const size_t start = buffer_.size();
  EncodeBlock(block_, options_.hashed, buffer_);
  const size_t size = buffer_.size() - start;
  Put(buffer_, Crc32(buffer_.data() + start, size), 4);
  fences_.push_back(
      {static_cast<uint64_t>(written_) + start, static_cast<uint32_t>(size), block_.front().key});
  block_.clear();
  return buffer_.size() >= kFlushBytes ? FlushBuffer() : Status::OK();
}

Status RunWriter::FlushBuffer() {
  if (buffer_.empty()) return Status::OK();
  FLOE_RETURN_IF_ERROR(out_->Write(std::span<const uint8_t>(buffer_.data(), buffer_.size())));
  written_ += static_cast<int64_t>(buffer_.size());
  buffer_.clear();
  return Status::OK();
}

Result<RunInfo> RunWriter::Finish(const std::vector<std::string>& files) {
  if (done_) return Status::Internal("key index run " + out_->path() + ": finished twice");
  Status status = FlushBlock();
  if (status.ok() && files_used_.size() > files.size()) {
    status = Status::Internal("key index run " + out_->path() + ": an entry names file " +
                              std::to_string(files_used_.size() - 1) + " of " + std::to_string(files.size()));
  }
  if (status.ok()) status = FlushBuffer();
  if (!status.ok()) {
    Abort();
    return status;
  }
  const uint64_t footer_offset = static_cast<uint64_t>(written_);
  std::vector<uint8_t>& footer = buffer_;
  Put(footer, kVersion, 4);
  Put(footer, options_.hashed ? 1 : 0, 1);
  Put(footer, entries_, 8);
  Put(footer, tombstones_, 8);
  Put(footer, fences_.size(), 4);
  for (const Fence& fence : fences_) {
    Put(footer, fence.offset, 8);
    Put(footer, fence.size, 4);
    PutKey(footer, fence.first, options_.hashed);
  }
  PutKey(footer, last_key_, options_.hashed);
  const auto listed = static_cast<uint32_t>(std::count(files_used_.begin(), files_used_.end(), true));
  Put(footer, listed, 4);
  for (size_t f = 0; f < files_used_.size(); ++f) {
    if (!files_used_[f]) continue;
    Put(footer, f, 4);
    Put(footer, files[f].size(), 4);
    footer.insert(footer.end(), files[f].begin(), files[f].end());
  }
  Put(footer, bloom_.blocks(), 4);
  for (uint64_t word : bloom_.words()) Put(footer, word, 8);
  const uint32_t crc = Crc32(footer.data(), footer.size());
  Put(footer, footer_offset, 8);
  Put(footer, crc, 4);
  footer.insert(footer.end(), kMagic, kMagic + sizeof(kMagic));
  status = FlushBuffer();
  if (!status.ok()) {
    Abort();
    return status;
  }
  auto closed = out_->Close();
  done_ = true;
  if (!closed.ok()) return closed.status();
  return RunInfo{out_->path(), entries_, tombstones_, *closed};
}

void RunWriter::Abort() {
  if (done_) return;
  out_->Abort();
  done_ = true;
}

// ---- RunReader ----

Status RunReader::Damaged(const std::string& what) const {
  return Status::Corruption("key index run " + info_.path + ": " + what);
}

Result<std::shared_ptr<const RunReader>> RunReader::Open(FileIO& io, const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto file, io.OpenRead(path));
  return Open(std::move(file));
}

Result<std::shared_ptr<const RunReader>> RunReader::Open(std::unique_ptr<InputFile> file) {
  std::shared_ptr<RunReader> run(new RunReader());
  run->info_.path = file->path();
  run->file_ = std::move(file);
  FLOE_ASSIGN_OR_RETURN(int64_t size, run->file_->Size());
  run->info_.bytes = size;
  if (size < static_cast<int64_t>(sizeof(kMagic) + kTailBytes)) return run->Damaged("too short");
  uint8_t head[sizeof(kMagic)];
  FLOE_RETURN_IF_ERROR(run->file_->ReadAt(0, sizeof(head), head));
  uint8_t tail[kTailBytes];
  FLOE_RETURN_IF_ERROR(run->file_->ReadAt(size - static_cast<int64_t>(kTailBytes), kTailBytes, tail));
  if (std::memcmp(head, kMagic, sizeof(kMagic)) != 0 || std::memcmp(tail + 12, kMagic, sizeof(kMagic)) != 0) {
    return run->Damaged("bad magic, not FLOEKIR1");
  }
  uint64_t footer_offset = 0;
  uint32_t footer_crc = 0;
  for (int i = 7; i >= 0; --i) footer_offset = (footer_offset << 8) | tail[i];
  for (int i = 3; i >= 0; --i) footer_crc = (footer_crc << 8) | tail[8 + i];
  const auto footer_end = static_cast<uint64_t>(size) - kTailBytes;
  if (footer_offset < sizeof(kMagic) || footer_offset > footer_end ||
      static_cast<int64_t>(footer_end - footer_offset) > kMaxFooterBytes) {
    return run->Damaged("footer offset " + std::to_string(footer_offset) + " outside the file");
  }
  std::vector<uint8_t> footer(static_cast<size_t>(footer_end - footer_offset));
  FLOE_RETURN_IF_ERROR(run->file_->ReadAt(static_cast<int64_t>(footer_offset),
                                          static_cast<int64_t>(footer.size()), footer.data()));
  if (Crc32(footer.data(), footer.size()) != footer_crc) return run->Damaged("footer CRC mismatch");

  FooterReader reader(footer);
  auto parse = [&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(uint64_t version, reader.Fixed(4, "version"));
    if (version != kVersion) return Status::Corruption("unknown version " + std::to_string(version));
    FLOE_ASSIGN_OR_RETURN(uint64_t mode, reader.Fixed(1, "key mode"));
    if (mode > 1) return Status::Corruption("unknown key mode " + std::to_string(mode));
    run->hashed_ = mode == 1;
    FLOE_ASSIGN_OR_RETURN(run->info_.entries, reader.Fixed(8, "entry count"));
    FLOE_ASSIGN_OR_RETURN(run->info_.tombstones, reader.Fixed(8, "tombstone count"));
    FLOE_ASSIGN_OR_RETURN(uint64_t blocks, reader.Fixed(4, "block count"));
    const size_t fence_bytes = 8 + 4 + (run->hashed_ ? 12 : 8);
    if (blocks > reader.remaining() / fence_bytes)
      return Status::Corruption("block count exceeds the footer");
    if (run->info_.tombstones > run->info_.entries || run->info_.entries < blocks ||
        run->info_.entries > blocks * kMaxBlockEntries) {
      return Status::Corruption(std::to_string(run->info_.entries) + " entries in " + std::to_string(blocks) +
                                " blocks");
    }
    run->fences_.reserve(blocks);
    run->first_keys_.reserve(blocks);
    uint64_t expected_offset = sizeof(kMagic);
    for (uint64_t b = 0; b < blocks; ++b) {
      FLOE_ASSIGN_OR_RETURN(uint64_t offset, reader.Fixed(8, "block offset"));
      FLOE_ASSIGN_OR_RETURN(uint64_t payload, reader.Fixed(4, "block size"));
      FLOE_ASSIGN_OR_RETURN(KeyId first, reader.Key(run->hashed_, "first key"));
      if (offset != expected_offset || payload == 0 || payload > kMaxPayloadBytes) {
        return Status::Corruption("block " + std::to_string(b) + " at " + std::to_string(offset) + ", " +
                                  std::to_string(payload) + " bytes: not where the blocks before end");
      }
      if (b > 0 && !KeyLess(run->first_keys_.back(), first)) {
        return Status::Corruption("block " + std::to_string(b) + "'s first key is out of order");
      }
      run->fences_.push_back({offset, static_cast<uint32_t>(payload)});
      run->first_keys_.push_back(first);
      expected_offset = offset + payload + 4;
    }
    if (expected_offset != footer_offset) return Status::Corruption("the blocks do not end at the footer");
    FLOE_ASSIGN_OR_RETURN(run->last_key_, reader.Key(run->hashed_, "last key"));
    if (blocks > 0 && KeyLess(run->last_key_, run->first_keys_.back())) {
      return Status::Corruption("the last key is below the last block's first key");
    }
    FLOE_ASSIGN_OR_RETURN(uint64_t listed, reader.Fixed(4, "file count"));
    if (listed > reader.remaining() / 8) return Status::Corruption("file count exceeds the footer");
    run->files_.reserve(listed);
    for (uint64_t f = 0; f < listed; ++f) {
      FLOE_ASSIGN_OR_RETURN(uint64_t number, reader.Fixed(4, "file number"));
      FLOE_ASSIGN_OR_RETURN(uint64_t length, reader.Fixed(4, "path length"));
      if (length > kMaxPathBytes) return Status::Corruption("path length " + std::to_string(length));
      FLOE_ASSIGN_OR_RETURN(const uint8_t* bytes, reader.Bytes(length, "path"));
      if (!run->files_.empty() && number <= run->files_.back().first) {
        return Status::Corruption("file numbers out of order");
      }
      run->files_.emplace_back(static_cast<uint32_t>(number),
                               std::string(reinterpret_cast<const char*>(bytes), length));
    }
    FLOE_ASSIGN_OR_RETURN(uint64_t bloom_blocks, reader.Fixed(4, "filter size"));
    if (bloom_blocks > reader.remaining() / 64) return Status::Corruption("filter exceeds the footer");
    run->bloom_.words().resize(static_cast<size_t>(bloom_blocks) * 8);
    for (uint64_t& word : run->bloom_.words()) {
      FLOE_ASSIGN_OR_RETURN(word, reader.Fixed(8, "filter"));
    }
    if (reader.remaining() != 0)
      return Status::Corruption(std::to_string(reader.remaining()) + " bytes after the footer");
    return Status::OK();
  };
  Status parsed = parse();
  if (!parsed.ok()) return run->Damaged(parsed.message());
  return std::shared_ptr<const RunReader>(std::move(run));
}

int64_t RunReader::MemoryBytes() const {
  int64_t bytes = sizeof(RunReader) + static_cast<int64_t>(first_keys_.capacity() * sizeof(KeyId) +
                                                           fences_.capacity() * sizeof(Extent) +
                                                           bloom_.words().capacity() * sizeof(uint64_t));
  for (const auto& [number, path] : files_)
    bytes += static_cast<int64_t>(sizeof(number) + sizeof(path) + path.capacity());
  return bytes;
}

bool RunReader::MayContain(const KeyId& key, uint64_t hash) const {
  if (first_keys_.empty() || KeyLess(key, first_keys_.front()) || KeyLess(last_key_, key)) return false;
  return bloom_.MayContain(hash);
}

const std::string* RunReader::FilePath(uint32_t number) const {
  auto it = std::lower_bound(files_.begin(), files_.end(), number,
                             [](const auto& file, uint32_t n) { return file.first < n; });
  return it != files_.end() && it->first == number ? &it->second : nullptr;
}

Status RunReader::LoadBlock(size_t b, BlockCursor& cursor) const {
  const Extent& extent = fences_[b];
  cursor.view.reset();
  cursor.run = nullptr;
  cursor.buffer.assign(extent.size + 4 + kBlockPadding, 0);
  FLOE_RETURN_IF_ERROR(
      file_->ReadAt(static_cast<int64_t>(extent.offset), extent.size + 4, cursor.buffer.data()));
  uint32_t stored = 0;
  for (int i = 3; i >= 0; --i) stored = (stored << 8) | cursor.buffer[extent.size + static_cast<size_t>(i)];
  if (Crc32(cursor.buffer.data(), extent.size) != stored) {
    return Damaged("block " + std::to_string(b) + " CRC mismatch");
  }
  std::fill(cursor.buffer.begin() + extent.size, cursor.buffer.end(), 0);
  auto view = BlockView::Parse(std::span<const uint8_t>(cursor.buffer.data(), extent.size), hashed_);
  if (!view.ok()) return Damaged("block " + std::to_string(b) + ": " + view.status().message());
  if (!(view->key(0) == first_keys_[b]) ||
      (b + 1 < fences_.size() && !KeyLess(view->key(view->size() - 1), first_keys_[b + 1])) ||
      KeyLess(last_key_, view->key(view->size() - 1))) {
    return Damaged("block " + std::to_string(b) + " holds keys outside its fence");
  }
  cursor.view = std::move(view).value();
  cursor.run = this;
  cursor.block = b;
  return Status::OK();
}

Status RunReader::Find(const KeyId& key, BlockCursor& cursor, std::optional<RunEntry>* found) const {
  found->reset();
  if (first_keys_.empty() || KeyLess(key, first_keys_.front()) || KeyLess(last_key_, key))
    return Status::OK();
  const size_t b =
      static_cast<size_t>(std::upper_bound(first_keys_.begin(), first_keys_.end(), key, KeyLess) -
                          first_keys_.begin()) -
      1;
  if (cursor.run != this || cursor.block != b || !cursor.view) FLOE_RETURN_IF_ERROR(LoadBlock(b, cursor));
  const int64_t i = cursor.view->Find(key);
  if (i < 0) return Status::OK();
  RunEntry entry = cursor.view->Entry(static_cast<size_t>(i));
  if (!entry.tombstone && FilePath(entry.file) == nullptr) {
    return Damaged("block " + std::to_string(b) + " names file " + std::to_string(entry.file) +
                   ", not listed");
  }
  *found = entry;
  return Status::OK();
}

// ---- RunScanner ----

Status RunScanner::ReadMore() {
  entries_.clear();
  pos_ = 0;
  const auto& fences = run_.fences_;
  if (next_block_ >= fences.size()) return Status::OK();
  // Whole blocks up to ~1 MiB and kScanBlocks per read (at least one).
  size_t end = next_block_;
  uint64_t bytes = 0;
  while (end < fences.size() && (end == next_block_ || (bytes + fences[end].size + 4 <= kFlushBytes &&
                                                        end - next_block_ < kScanBlocks))) {
    bytes += fences[end].size + 4;
    ++end;
  }
  const uint64_t start = fences[next_block_].offset;
  chunk_.assign(bytes + kBlockPadding, 0);
  FLOE_RETURN_IF_ERROR(
      run_.file_->ReadAt(static_cast<int64_t>(start), static_cast<int64_t>(bytes), chunk_.data()));
  BlockCursor scratch;
  for (size_t b = next_block_; b < end; ++b) {
    const size_t at = fences[b].offset - start;
    const uint32_t size = fences[b].size;
    uint32_t stored = 0;
    for (int i = 3; i >= 0; --i) stored = (stored << 8) | chunk_[at + size + static_cast<size_t>(i)];
    if (Crc32(chunk_.data() + at, size) != stored)
      return run_.Damaged("block " + std::to_string(b) + " CRC mismatch");
    // The payload needs zero padding after it: copy it out (a block is a few KB).
    scratch.buffer.assign(chunk_.begin() + static_cast<ptrdiff_t>(at),
                          chunk_.begin() + static_cast<ptrdiff_t>(at + size));
    scratch.buffer.resize(size + kBlockPadding, 0);
    auto view = BlockView::Parse(std::span<const uint8_t>(scratch.buffer.data(), size), run_.hashed_);
    if (!view.ok()) return run_.Damaged("block " + std::to_string(b) + ": " + view.status().message());
    const size_t before = entries_.size();
    view->AppendAll(entries_);
    const bool ordered = before == 0 || KeyLess(entries_[before - 1].key, entries_[before].key);
    if (!(entries_[before].key == run_.first_keys_[b]) || !ordered ||
        (b + 1 < fences.size() && !KeyLess(entries_.back().key, run_.first_keys_[b + 1]))) {
      return run_.Damaged("block " + std::to_string(b) + " holds keys outside its fence");
    }
    for (size_t i = before; i < entries_.size(); ++i) {
      if (!entries_[i].tombstone && run_.FilePath(entries_[i].file) == nullptr) {
        return run_.Damaged("block " + std::to_string(b) + " names file " + std::to_string(entries_[i].file) +
                            ", not listed");
      }
    }
  }
  next_block_ = end;
  return Status::OK();
}

Result<const RunEntry*> RunScanner::Next() {
  if (pos_ == entries_.size()) {
    FLOE_RETURN_IF_ERROR(ReadMore());
    if (entries_.empty()) return nullptr;
  }
  return &entries_[pos_++];
}

}  // namespace floe::ingest::key_index_internal
