// PrimaryKeyIndex persistence: Save, the index file reader and Load's choice
// of files (see key_index.h for the format and the load rules).
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <map>
#include <set>

#include "iceberg/spec/snapshot_ancestry.h"
#include "ingest/merge/key_index.h"
#include "ingest/merge/key_index_rebuild.h"
#include "ingest/merge/key_index_table.h"

namespace floe::ingest {

using key_index_internal::CanonicalKey;
using key_index_internal::FileNumber;
using key_index_internal::IsLive;
using key_index_internal::IsTombstone;
using key_index_internal::kEmptyFile;
using key_index_internal::kMaxFiles;
using key_index_internal::kPositionInOverflow;
using key_index_internal::kTombstoneFile;

namespace {

constexpr char kMagic[8] = {'F', 'L', 'O', 'E', 'K', 'I', 'X', '1'};
constexpr uint32_t kVersion = 1;
constexpr uint8_t kModeExact = 0;
constexpr uint8_t kModeHashed = 1;
constexpr size_t kChunkBytes = size_t{1} << 20;
constexpr uint32_t kMaxSpecBytes = 64 * 1024;
constexpr uint32_t kMaxPathBytes = 64 * 1024;
// An entry record: 16-byte hashed or 8-byte exact key, 16-byte ordering value, file and position.
constexpr size_t kMaxEntryBytes = 16 + 16 + 4 + 4;

uint32_t Crc32Update(uint32_t crc, const uint8_t* data, size_t size) {
  while (size > 0) {
    auto n = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    crc = static_cast<uint32_t>(crc32(crc, data, n));
    data += n;
    size -= n;
  }
  return crc;
}

// Stores `v` little-endian in bytes [p, p + bytes).
inline void StoreLittleEndian(uint8_t* p, uint64_t v, int bytes) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(p, &v, static_cast<size_t>(bytes));
  } else {
    for (int i = 0; i < bytes; ++i) p[i] = static_cast<uint8_t>(v >> (8 * i));
  }
}

inline uint64_t LoadLittleEndian(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&v, p, static_cast<size_t>(bytes));
  } else {
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  }
  return v;
}

// Buffers little-endian fields into chunks and keeps the running CRC. The
// chunk is flushed by MaybeFlush once it reaches kChunkBytes; a field that
// does not fit the buffer grows it (only long header fields can).
class IndexWriter {
 public:
  explicit IndexWriter(OutputFile& out) : out_(out), buffer_(kChunkBytes + 4096) {}

  void U8(uint8_t v) { Room(1)[0] = v; }
  void U32(uint32_t v) { StoreLittleEndian(Room(4), v, 4); }
  void U64(uint64_t v) { StoreLittleEndian(Room(8), v, 8); }
  void Bytes(const void* data, size_t size) {
    if (size > 0) std::memcpy(Room(size), data, size);
  }
  Status MaybeFlush() { return size_ >= kChunkBytes ? Flush() : Status::OK(); }
  Status Flush() {
    crc_ = Crc32Update(crc_, buffer_.data(), size_);
    Status status = out_.Write(std::span<const uint8_t>(buffer_.data(), size_));
    size_ = 0;
    return status;
  }
  // Flushes, then appends the CRC of everything written.
  Status Finish() {
    FLOE_RETURN_IF_ERROR(Flush());
    U32(crc_);
    Status status = out_.Write(std::span<const uint8_t>(buffer_.data(), size_));
    size_ = 0;
    return status;
  }

 private:
  // `size` writable bytes at the end of the buffered data, now counted in it.
  uint8_t* Room(size_t size) {
    if (size_ + size > buffer_.size()) buffer_.resize(size_ + size);
    uint8_t* p = buffer_.data() + size_;
    size_ += size;
    return p;
  }
  OutputFile& out_;
  std::vector<uint8_t> buffer_;
  size_t size_ = 0;
  uint32_t crc_ = static_cast<uint32_t>(crc32(0, nullptr, 0));
};

// Reads the CRC-covered body of an index file in chunks; never past the body.
class IndexReader {
 public:
  IndexReader(InputFile& in, int64_t body_size) : in_(in), body_size_(body_size) {}

  int64_t remaining() const { return body_size_ - consumed_; }
  uint32_t crc() const { return crc_; }

  Status Bytes(void* out, size_t size, const char* what) {
    if (static_cast<int64_t>(size) > remaining()) {
      return Status::Corruption(std::string("truncated at ") + what + " (offset " +
                                std::to_string(consumed_) + ")");
    }
    auto* dst = static_cast<uint8_t*>(out);
    while (size > 0) {
      if (pos_ == chunk_.size()) FLOE_RETURN_IF_ERROR(Refill());
      size_t n = std::min(size, chunk_.size() - pos_);
      std::memcpy(dst, chunk_.data() + pos_, n);
      pos_ += n;
      dst += n;
      size -= n;
      consumed_ += static_cast<int64_t>(n);
    }
    return Status::OK();
  }
  // The next `size` bytes when the current chunk holds all of them (then
  // consumed), else nullptr and nothing consumed: the caller falls back to
  // the field readers. Never past the body.
  const uint8_t* Contiguous(size_t size) {
    if (pos_ + size > chunk_.size() || static_cast<int64_t>(size) > remaining()) return nullptr;
    const uint8_t* p = chunk_.data() + pos_;
    pos_ += size;
    consumed_ += static_cast<int64_t>(size);
    return p;
  }
  Result<uint64_t> U64(const char* what) { return LittleEndian(8, what); }
  Result<uint32_t> U32(const char* what) {
    FLOE_ASSIGN_OR_RETURN(uint64_t v, LittleEndian(4, what));
    return static_cast<uint32_t>(v);
  }
  Result<uint8_t> U8(const char* what) {
    uint8_t v = 0;
    FLOE_RETURN_IF_ERROR(Bytes(&v, 1, what));
    return v;
  }

 private:
  Result<uint64_t> LittleEndian(int bytes, const char* what) {
    uint8_t raw[8] = {};
    FLOE_RETURN_IF_ERROR(Bytes(raw, static_cast<size_t>(bytes), what));
    uint64_t v = LoadLittleEndian(raw, bytes);
    return v;
  }
  Status Refill() {
    const int64_t offset = consumed_;
    const auto n = static_cast<size_t>(std::min<int64_t>(static_cast<int64_t>(kChunkBytes), remaining()));
    chunk_.resize(n);
    FLOE_RETURN_IF_ERROR(in_.ReadAt(offset, static_cast<int64_t>(n), chunk_.data()));
    crc_ = Crc32Update(crc_, chunk_.data(), n);
    pos_ = 0;
    return Status::OK();
  }

  InputFile& in_;
  int64_t body_size_;
  int64_t consumed_ = 0;
  std::vector<uint8_t> chunk_;
  size_t pos_ = 0;
  uint32_t crc_ = static_cast<uint32_t>(crc32(0, nullptr, 0));
};

// "keys=a,b;order=c;kind=hex" (one ordering column: the text of index files
// written before orderings could have two), "...;order=ts,lsn;kind=timestamp,number",
// plus ";missing=oldest" for DMS-style orderings.
std::string SpecText(const KeyIndexSpec& spec) {
  std::string text = "keys=";
  for (size_t i = 0; i < spec.key_columns.size(); ++i) {
    if (i > 0) text += ",";
    text += spec.key_columns[i];
  }
  return text + ";order=" + spec.ordering.ColumnsText() + ";kind=" + spec.ordering.KindsText();
}

template <typename Table>
Status WriteEntries(IndexWriter& writer, const PrimaryKeyIndex::Impl& impl, const Table& table,
                    const std::vector<uint32_t>& renumber) {
  for (size_t i = 0; i < table.capacity(); ++i) {
    const auto& slot = table.slot(i);
    if (slot.file == kEmptyFile) continue;
    KeyId key = slot.Key();
    // One entry record: [key hi] key lo, order (16 bytes), file, position.
    uint8_t record[kMaxEntryBytes];
    uint8_t* p = record;
    if (impl.wide) {
      StoreLittleEndian(p, key.hi, 8);
      p += 8;
    }
    StoreLittleEndian(p, key.lo, 8);
    p += 8;
    const OrderValue order = impl.OrderOf(slot, key);
    std::memcpy(p, order.bytes.data(), order.bytes.size());
    p += order.bytes.size();
    StoreLittleEndian(p, IsTombstone(slot.file) ? kTombstoneFile : renumber[FileNumber(slot.file)], 4);
    StoreLittleEndian(p + 4, slot.position, 4);
    writer.Bytes(record, static_cast<size_t>(p + 8 - record));
    FLOE_RETURN_IF_ERROR(writer.MaybeFlush());
  }
  return Status::OK();
}

// Reads index file `path` (which must be for `snapshot_id` and `spec_text`)
// into `index`; with `tombstones_only` live entries are checked but skipped.
Status ReadIndexFile(FileIO& io, const std::string& path, int64_t snapshot_id, const std::string& spec_text,
                     bool expect_exact, bool tombstones_only, PrimaryKeyIndex::Impl& impl) {
  FLOE_ASSIGN_OR_RETURN(auto in, io.OpenRead(path));
  FLOE_ASSIGN_OR_RETURN(int64_t size, in->Size());
  if (size < static_cast<int64_t>(sizeof(kMagic)) + 4) return Status::Corruption("file too short");
  IndexReader reader(*in, size - 4);

  char magic[sizeof(kMagic)];
  FLOE_RETURN_IF_ERROR(reader.Bytes(magic, sizeof(magic), "magic"));
  if (std::memcmp(magic, kMagic, sizeof(kMagic)) != 0) return Status::Corruption("bad magic, not FLOEKIX1");
  FLOE_ASSIGN_OR_RETURN(uint32_t version, reader.U32("version"));
  if (version != kVersion) return Status::Corruption("unknown version " + std::to_string(version));
  FLOE_ASSIGN_OR_RETURN(uint64_t file_snapshot, reader.U64("snapshot id"));
  if (static_cast<int64_t>(file_snapshot) != snapshot_id) {
    return Status::Corruption("holds snapshot " + std::to_string(static_cast<int64_t>(file_snapshot)) +
                              ", its name says " + std::to_string(snapshot_id));
  }
  FLOE_ASSIGN_OR_RETURN(uint8_t mode, reader.U8("key mode"));
  if (mode != kModeExact && mode != kModeHashed) {
    return Status::Corruption("unknown key mode " + std::to_string(mode));
  }
  FLOE_ASSIGN_OR_RETURN(uint32_t spec_size, reader.U32("spec length"));
  if (spec_size > kMaxSpecBytes) return Status::Corruption("spec length " + std::to_string(spec_size));
  std::string file_spec(spec_size, '\0');
  FLOE_RETURN_IF_ERROR(reader.Bytes(file_spec.data(), spec_size, "spec"));
  if (!file_spec.empty() && file_spec != spec_text) {
    return Status::InvalidArgument("written for " + file_spec + ", the table now uses " + spec_text);
  }
  if (mode == kModeHashed && expect_exact) {
    return Status::InvalidArgument("holds hashed keys, the key is now a single integer column");
  }
  const bool wide = mode == kModeHashed;

  FLOE_ASSIGN_OR_RETURN(uint64_t file_count, reader.U64("file count"));
  if (file_count > static_cast<uint64_t>(reader.remaining()) / 4 || file_count > kMaxFiles) {
    return Status::Corruption("file count " + std::to_string(file_count) + " exceeds the file size");
  }
  std::vector<uint32_t> numbers(file_count, kEmptyFile);  // file's number -> interned number
  for (uint64_t f = 0; f < file_count; ++f) {
    FLOE_ASSIGN_OR_RETURN(uint32_t length, reader.U32("path length"));
    if (length > kMaxPathBytes || length > reader.remaining()) {
      return Status::Corruption("path " + std::to_string(f) + " length " + std::to_string(length));
    }
    std::string file_path(length, '\0');
    FLOE_RETURN_IF_ERROR(reader.Bytes(file_path.data(), length, "path"));
    if (!tombstones_only) numbers[f] = impl.Intern(file_path);
  }

  const size_t entry_size = (wide ? 16 : 8) + sizeof(OrderValue::bytes) + 4 + 4;
  FLOE_ASSIGN_OR_RETURN(uint64_t entry_count, reader.U64("entry count"));
  if (entry_count > static_cast<uint64_t>(reader.remaining()) / entry_size) {
    return Status::Corruption("entry count " + std::to_string(entry_count) + " exceeds the file size");
  }
  impl.wide = wide;
  if (!tombstones_only) {
    impl.WithTable([&](auto& table) { table.Reserve(entry_count); });
  }
  std::set<std::pair<uint64_t, uint64_t>> overflow_keys;
  for (uint64_t e = 0; e < entry_count; ++e) {
    // Entries do not straddle chunks often: read the record in place when it
    // is whole in the current chunk, field by field otherwise.
    uint8_t copied[kMaxEntryBytes];
    const uint8_t* record = reader.Contiguous(entry_size);
    if (record == nullptr) {
      FLOE_RETURN_IF_ERROR(reader.Bytes(copied, entry_size, "entry"));
      record = copied;
    }
    KeyId key;
    if (wide) {
      key.hi = LoadLittleEndian(record, 8);
      record += 8;
    }
    key.lo = LoadLittleEndian(record, 8);
    OrderValue order;
    std::memcpy(order.bytes.data(), record + 8, order.bytes.size());
    record += 8 + order.bytes.size();
    const auto file = static_cast<uint32_t>(LoadLittleEndian(record, 4));
    const auto position = static_cast<uint32_t>(LoadLittleEndian(record + 4, 4));
    const bool tombstone = file == kTombstoneFile;
    if (!tombstone && file >= file_count) {
      return Status::Corruption("entry " + std::to_string(e) + " names file " + std::to_string(file) +
                                " of " + std::to_string(file_count));
    }
    if (!tombstone && position == kPositionInOverflow) overflow_keys.insert({key.hi, key.lo});
    if (tombstones_only && !tombstone) continue;
    key = CanonicalKey(key);
    bool inserted = false;
    bool duplicate = impl.WithTable([&](auto& table) {
      auto& slot = table.FindOrInsert(key, &inserted);
      if (!inserted) return true;
      slot.file = impl.SetOrder(slot, key, order, tombstone ? kTombstoneFile : numbers[file]);
      slot.position = position;
      return !inserted;
    });
    if (duplicate) return Status::Corruption("entry " + std::to_string(e) + " repeats a key");
    ++(tombstone ? impl.tombstones : impl.live);
  }

  FLOE_ASSIGN_OR_RETURN(uint64_t overflow_count, reader.U64("overflow count"));
  if (overflow_count != overflow_keys.size()) {
    return Status::Corruption("overflow count " + std::to_string(overflow_count) + ", expected " +
                              std::to_string(overflow_keys.size()));
  }
  for (uint64_t o = 0; o < overflow_count; ++o) {
    KeyId key;
    FLOE_ASSIGN_OR_RETURN(key.hi, reader.U64("overflow key"));
    FLOE_ASSIGN_OR_RETURN(key.lo, reader.U64("overflow key"));
    FLOE_ASSIGN_OR_RETURN(uint64_t position, reader.U64("overflow position"));
    if (!overflow_keys.count({key.hi, key.lo})) {
      return Status::Corruption("overflow entry " + std::to_string(o) + " names no overflowing key");
    }
    if (!tombstones_only) impl.overflow_positions[CanonicalKey(key)] = static_cast<int64_t>(position);
  }
  if (reader.remaining() != 0) {
    return Status::Corruption(std::to_string(reader.remaining()) + " unexpected bytes before the CRC");
  }
  uint8_t trailer[4];
  FLOE_RETURN_IF_ERROR(in->ReadAt(size - 4, 4, trailer));
  uint32_t stored = uint32_t{trailer[0]} | uint32_t{trailer[1]} << 8 | uint32_t{trailer[2]} << 16 |
                    uint32_t{trailer[3]} << 24;
  if (stored != reader.crc()) return Status::Corruption("CRC mismatch");
  return Status::OK();
}

// The snapshot id of an index file name "index-<id>.bin" directly in `dir`.
std::optional<int64_t> SnapshotOfIndexFile(const std::string& dir, const std::string& path) {
  std::string prefix = dir;
  if (!prefix.empty() && prefix.back() != '/') prefix += '/';
  if (path.compare(0, prefix.size(), prefix) != 0) return std::nullopt;
  std::string_view name = std::string_view(path).substr(prefix.size());
  constexpr std::string_view kHead = "index-";
  constexpr std::string_view kTail = ".bin";
  if (name.size() <= kHead.size() + kTail.size() || name.substr(0, kHead.size()) != kHead ||
      name.substr(name.size() - kTail.size()) != kTail) {
    return std::nullopt;
  }
  std::string_view digits = name.substr(kHead.size(), name.size() - kHead.size() - kTail.size());
  size_t start = digits[0] == '-' ? 1 : 0;
  if (digits.size() == start || digits.size() - start > 19) return std::nullopt;
  for (size_t i = start; i < digits.size(); ++i) {
    if (digits[i] < '0' || digits[i] > '9') return std::nullopt;
  }
  try {
    return std::stoll(std::string(digits));
  } catch (...) {
    return std::nullopt;  // out of int64 range
  }
}

void Warn(std::vector<std::string>* warnings, std::string text) {
  if (warnings) warnings->push_back(std::move(text));
}

}  // namespace

std::string PrimaryKeyIndex::FilePath(const std::string& dir, int64_t snapshot_id) {
  std::string path = dir;
  if (!path.empty() && path.back() != '/') path += '/';
  return path + "index-" + std::to_string(snapshot_id) + ".bin";
}

Status PrimaryKeyIndex::Save(FileIO& io, const std::string& dir, int64_t snapshot_id) const {
  const Impl& impl = *impl_;
  const std::string path = FilePath(dir, snapshot_id);
  // Only files that entries still point at are written, renumbered densely.
  std::vector<uint32_t> renumber(impl.files.size(), kEmptyFile);
  impl.WithTable([&](const auto& table) {
    for (size_t i = 0; i < table.capacity(); ++i) {
      uint32_t file = table.slot(i).file;
      if (IsLive(file)) renumber[FileNumber(file)] = 0;
    }
  });
  uint32_t used = 0;
  for (uint32_t& number : renumber) {
    if (number == 0) number = used++;
  }

  FLOE_ASSIGN_OR_RETURN(auto out, io.Create(path));
  IndexWriter writer(*out);
  writer.Bytes(kMagic, sizeof(kMagic));
  writer.U32(kVersion);
  writer.U64(static_cast<uint64_t>(snapshot_id));
  writer.U8(impl.wide ? kModeHashed : kModeExact);
  writer.U32(static_cast<uint32_t>(impl.spec_text.size()));
  writer.Bytes(impl.spec_text.data(), impl.spec_text.size());
  writer.U64(used);
  for (size_t f = 0; f < impl.files.size(); ++f) {
    if (renumber[f] == kEmptyFile) continue;
    writer.U32(static_cast<uint32_t>(impl.files[f].size()));
    writer.Bytes(impl.files[f].data(), impl.files[f].size());
  }
  writer.U64(static_cast<uint64_t>(impl.live + impl.tombstones));
  Status status =
      impl.WithTable([&](const auto& table) { return WriteEntries(writer, impl, table, renumber); });
  if (status.ok()) {
    writer.U64(impl.overflow_positions.size());
    for (const auto& [key, position] : impl.overflow_positions) {
      writer.U64(key.hi);
      writer.U64(key.lo);
      writer.U64(static_cast<uint64_t>(position));
    }
    status = writer.Finish();
  }
  if (status.ok()) status = out->Close().status();
  if (!status.ok()) {
    out->Abort();
    return status.WithContext("saving key index " + path);
  }
  return Status::OK();
}

Status PrimaryKeyIndex::RemoveIndexFilesExcept(FileIO& state_io, const std::string& dir,
                                               const std::vector<int64_t>& keep,
                                               std::vector<std::string>* warnings) {
  FLOE_ASSIGN_OR_RETURN(auto listing, state_io.List(dir));
  for (const FileInfo& info : listing) {
    const std::optional<int64_t> id = SnapshotOfIndexFile(dir, info.path);
    if (!id || std::find(keep.begin(), keep.end(), *id) != keep.end()) continue;
    Status deleted = state_io.Delete(info.path);
    if (!deleted.ok())
      Warn(warnings, "could not delete old key index " + info.path + ": " + deleted.ToString());
  }
  return Status::OK();
}

Result<PrimaryKeyIndex> PrimaryKeyIndex::Load(FileIO& state_io, const std::string& dir,
                                              const iceberg::TableMetadata& table, FileIO& table_io,
                                              const KeyIndexSpec& spec, std::vector<std::string>* warnings) {
  FLOE_ASSIGN_OR_RETURN(bool expect_exact, key_index_internal::KeysAreExactIntegers(table, spec));
  const std::string spec_text = SpecText(spec);

  FLOE_ASSIGN_OR_RETURN(auto listing, state_io.List(dir));
  std::map<int64_t, FileInfo> files;  // snapshot id -> index file
  for (FileInfo& info : listing) {
    if (auto id = SnapshotOfIndexFile(dir, info.path)) files[*id] = std::move(info);
  }
  std::optional<int64_t> keep_current;
  std::optional<int64_t> keep_ancestor;
  auto delete_others = [&]() {
    for (const auto& [id, info] : files) {
      if (id == keep_current || id == keep_ancestor) continue;
      Status deleted = state_io.Delete(info.path);
      if (!deleted.ok())
        Warn(warnings, "could not delete old key index " + info.path + ": " + deleted.ToString());
    }
  };

  // Snapshots from the current one back through its parents.
  std::vector<int64_t> lineage;
  for (const iceberg::Snapshot* s : iceberg::CurrentAncestors(table)) lineage.push_back(s->snapshot_id);

  if (!lineage.empty() && files.count(lineage[0])) {
    PrimaryKeyIndex index;
    const std::string& path = files[lineage[0]].path;
    Status read = ReadIndexFile(state_io, path, lineage[0], spec_text, expect_exact, false, *index.impl_);
    if (read.ok()) {
      index.impl_->spec_text = spec_text;
      keep_current = lineage[0];
      for (size_t i = 1; i < lineage.size() && !keep_ancestor; ++i) {
        if (files.count(lineage[i])) keep_ancestor = lineage[i];
      }
      delete_others();
      return index;
    }
    Warn(warnings, "ignoring key index " + path + " (" + read.ToString() + "); rebuilding it from the table");
  }

  // Tombstones: from the newest ancestor's file, else from the newest other file.
  std::vector<int64_t> candidates;
  for (size_t i = 1; i < lineage.size(); ++i) {
    if (files.count(lineage[i])) candidates.push_back(lineage[i]);
  }
  std::vector<std::pair<int64_t, int64_t>> others;  // (mtime, id), newest first
  for (const auto& [id, info] : files) {
    if (std::find(lineage.begin(), lineage.end(), id) == lineage.end()) others.push_back({info.mtime_ms, id});
  }
  std::sort(others.rbegin(), others.rend());
  for (const auto& other : others) candidates.push_back(other.second);

  PrimaryKeyIndex tombstones;
  for (int64_t id : candidates) {
    PrimaryKeyIndex attempt;
    Status read = ReadIndexFile(state_io, files[id].path, id, spec_text, expect_exact, true, *attempt.impl_);
    if (read.ok()) {
      tombstones = std::move(attempt);
      keep_ancestor = id;
      break;
    }
    Warn(warnings, "ignoring key index " + files[id].path + " (" + read.ToString() + ")");
  }

  FLOE_ASSIGN_OR_RETURN(PrimaryKeyIndex index,
                        key_index_internal::RebuildLiveEntries(table, table_io, spec, warnings));
  index.impl_->spec_text = spec_text;
  tombstones.impl_->WithTable([&](const auto& from) {
    for (size_t i = 0; i < from.capacity(); ++i) {
      const auto& slot = from.slot(i);
      if (!IsTombstone(slot.file)) continue;
      KeyId key = slot.Key();
      if (index.Find(key)) continue;  // live in the table: the row wins
      index.PutTombstone(key, tombstones.impl_->OrderOf(slot, key), int64_t{slot.position} * 1000);
    }
  });
  delete_others();
  return index;
}

}  // namespace floe::ingest
