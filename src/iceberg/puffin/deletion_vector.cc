#include "iceberg/puffin/deletion_vector.h"

#include <roaring/roaring.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "iceberg/spec/schema.h"

namespace floe::iceberg {

namespace {

constexpr uint8_t kDvMagic[4] = {0xD1, 0xD3, 0x39, 0x64};

struct BitmapDeleter {
  void operator()(roaring_bitmap_t* bitmap) const { roaring_bitmap_free(bitmap); }
};
using Bitmap = std::unique_ptr<roaring_bitmap_t, BitmapDeleter>;

void AppendBigEndian32(uint32_t v, std::string* out) {
  for (int shift = 24; shift >= 0; shift -= 8) out->push_back(static_cast<char>((v >> shift) & 0xFF));
}
void AppendLittleEndian(uint64_t v, int bytes, std::string* out) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}
uint32_t ReadBigEndian32(const uint8_t* p) {
  return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}
uint64_t ReadLittleEndian(const uint8_t* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v |= uint64_t{p[i]} << (8 * i);
  return v;
}

uint32_t Crc32(const uint8_t* data, size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (size > 0) {
    const uInt chunk = static_cast<uInt>(std::min<size_t>(size, 1u << 30));
    crc = crc32(crc, data, chunk);
    data += chunk;
    size -= chunk;
  }
  return static_cast<uint32_t>(crc);
}

}  // namespace

Result<std::string> SerializeDeletionVector(std::vector<int64_t> positions) {
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  if (!positions.empty() && positions.front() < 0) {
    return Status::InvalidArgument("deletion vector position " + std::to_string(positions.front()) +
                                   " is negative");
  }
  std::string vector;
  // Count of 32-bit bitmaps, filled in once known.
  AppendLittleEndian(0, 8, &vector);
  uint64_t bitmaps = 0;
  size_t i = 0;
  while (i < positions.size()) {
    const auto key = static_cast<uint32_t>(static_cast<uint64_t>(positions[i]) >> 32);
    Bitmap bitmap(roaring_bitmap_create());
    while (i < positions.size() && static_cast<uint32_t>(static_cast<uint64_t>(positions[i]) >> 32) == key) {
      roaring_bitmap_add(bitmap.get(), static_cast<uint32_t>(positions[i] & 0xFFFFFFFF));
      ++i;
    }
    roaring_bitmap_run_optimize(bitmap.get());
    AppendLittleEndian(key, 4, &vector);
    const size_t size = roaring_bitmap_portable_size_in_bytes(bitmap.get());
    const size_t at = vector.size();
    vector.resize(at + size);
    roaring_bitmap_portable_serialize(bitmap.get(), vector.data() + at);
    ++bitmaps;
  }
  for (int b = 0; b < 8; ++b) vector[static_cast<size_t>(b)] = static_cast<char>((bitmaps >> (8 * b)) & 0xFF);

  std::string body(reinterpret_cast<const char*>(kDvMagic), 4);
  body += vector;
  std::string blob;
  AppendBigEndian32(static_cast<uint32_t>(body.size()), &blob);
  blob += body;
  AppendBigEndian32(Crc32(reinterpret_cast<const uint8_t*>(body.data()), body.size()), &blob);
  return blob;
}

Result<std::vector<int64_t>> DeserializeDeletionVector(std::string_view blob, int64_t max_positions) {
  const auto* data = reinterpret_cast<const uint8_t*>(blob.data());
  if (blob.size() < 4 + 4 + 8 + 4) {
    return Status::Corruption("deletion vector of " + std::to_string(blob.size()) + " bytes is too short");
  }
  const uint32_t body_size = ReadBigEndian32(data);
  if (body_size != blob.size() - 8) {
    return Status::Corruption("deletion vector length prefix " + std::to_string(body_size) +
                              " does not match the " + std::to_string(blob.size()) + "-byte blob");
  }
  const uint8_t* body = data + 4;
  if (std::memcmp(body, kDvMagic, 4) != 0)
    return Status::Corruption("deletion vector magic is not D1 D3 39 64");
  const uint32_t stored_crc = ReadBigEndian32(body + body_size);
  if (Crc32(body, body_size) != stored_crc) return Status::Corruption("deletion vector CRC-32 mismatch");

  const uint8_t* p = body + 4;
  const uint8_t* end = body + body_size;
  const uint64_t bitmaps = ReadLittleEndian(p, 8);
  p += 8;
  // Each bitmap takes at least its 4-byte key plus an 8-byte portable header.
  if (bitmaps > static_cast<uint64_t>(end - p) / 12) {
    return Status::Corruption("deletion vector claims " + std::to_string(bitmaps) + " bitmaps in " +
                              std::to_string(end - p) + " bytes");
  }
  std::vector<int64_t> positions;
  int64_t total = 0;
  int64_t previous_key = -1;
  for (uint64_t b = 0; b < bitmaps; ++b) {
    if (end - p < 4)
      return Status::Corruption("deletion vector bitmap " + std::to_string(b) + ": truncated key");
    const auto key = static_cast<int64_t>(ReadLittleEndian(p, 4));
    p += 4;
    if (key <= previous_key || key > INT32_MAX) {
      return Status::Corruption("deletion vector bitmap " + std::to_string(b) + ": key " +
                                std::to_string(key) + " is out of order or out of range");
    }
    previous_key = key;
    const size_t available = static_cast<size_t>(end - p);
    const size_t size = roaring_bitmap_portable_deserialize_size(reinterpret_cast<const char*>(p), available);
    if (size == 0 || size > available) {
      return Status::Corruption("deletion vector bitmap " + std::to_string(b) + " is malformed");
    }
    Bitmap bitmap(roaring_bitmap_portable_deserialize_safe(reinterpret_cast<const char*>(p), size));
    if (!bitmap) return Status::Corruption("deletion vector bitmap " + std::to_string(b) + " is malformed");
    p += size;
    const uint64_t cardinality = roaring_bitmap_get_cardinality(bitmap.get());
    if (cardinality == 0 || static_cast<int64_t>(cardinality) > max_positions - total) {
      return Status::Corruption("deletion vector bitmap " + std::to_string(b) + " holds " +
                                std::to_string(cardinality) + " positions (limit " +
                                std::to_string(max_positions) + ", empty bitmaps are not written)");
    }
    total += static_cast<int64_t>(cardinality);
    const size_t at = positions.size();
    std::vector<uint32_t> low(cardinality);
    roaring_bitmap_to_uint32_array(bitmap.get(), low.data());
    positions.resize(at + cardinality);
    for (size_t k = 0; k < cardinality; ++k) positions[at + k] = (key << 32) | low[k];
  }
  if (p != end) {
    return Status::Corruption("deletion vector has " + std::to_string(end - p) +
                              " bytes after its last bitmap");
  }
  return positions;
}

Result<std::unique_ptr<DeletionVectorWriter>> DeletionVectorWriter::Open(FileIO& io,
                                                                         const std::string& path) {
  FLOE_ASSIGN_OR_RETURN(auto puffin, PuffinWriter::Open(io, path));
  return std::unique_ptr<DeletionVectorWriter>(new DeletionVectorWriter(std::move(puffin)));
}

Status DeletionVectorWriter::Add(const std::string& data_file_path, std::vector<int64_t> positions,
                                 std::vector<Literal> partition, int32_t spec_id) {
  if (!puffin_) return Status::InvalidArgument("deletion vector file is closed");
  for (const DataFile& f : files_) {
    if (f.referenced_data_file == data_file_path) {
      return Status::InvalidArgument("a second deletion vector for " + data_file_path +
                                     ": one vector per data file is allowed");
    }
  }
  std::sort(positions.begin(), positions.end());
  positions.erase(std::unique(positions.begin(), positions.end()), positions.end());
  if (positions.empty()) return Status::InvalidArgument("empty deletion vector for " + data_file_path);
  FLOE_ASSIGN_OR_RETURN(std::string blob, SerializeDeletionVector(positions));
  PuffinBlobMetadata metadata;
  metadata.type = std::string(kDeletionVectorBlobType);
  metadata.fields = {kDeletePosFieldId};
  metadata.properties["referenced-data-file"] = data_file_path;
  metadata.properties["cardinality"] = std::to_string(positions.size());
  FLOE_ASSIGN_OR_RETURN(PuffinBlobMetadata written, puffin_->AddBlob(std::move(metadata), blob));
  DataFile file;
  file.content = DataFileContent::kPositionDeletes;
  file.file_path = puffin_->path();
  file.file_format = "PUFFIN";
  file.spec_id = spec_id;
  file.partition = std::move(partition);
  file.record_count = static_cast<int64_t>(positions.size());
  file.referenced_data_file = data_file_path;
  file.content_offset = written.offset;
  file.content_size_in_bytes = written.length;
  files_.push_back(std::move(file));
  return Status::OK();
}

Result<std::vector<DataFile>> DeletionVectorWriter::Close() {
  if (!puffin_) return Status::InvalidArgument("deletion vector file is closed");
  auto size = puffin_->Close();
  puffin_.reset();
  if (!size.ok()) return size.status();
  for (DataFile& f : files_) f.file_size_in_bytes = *size;
  return std::move(files_);
}

Result<std::vector<int64_t>> ReadDeletionVector(FileIO& io, const DataFile& file) {
  const std::string name = "deletion vector in " + file.file_path;
  if (!file.content_offset || !file.content_size_in_bytes) {
    return Status::InvalidArgument(name + ": the entry lacks content_offset / content_size_in_bytes");
  }
  auto input = io.OpenRead(file.file_path);
  if (!input.ok()) return input.status().WithContext(name);
  FLOE_ASSIGN_OR_RETURN(int64_t size, (*input)->Size());
  const int64_t offset = *file.content_offset;
  const int64_t length = *file.content_size_in_bytes;
  if (offset < 0 || length < 0 || offset > size || length > size - offset) {
    return Status::Corruption(name + ": blob [" + std::to_string(offset) + ", +" + std::to_string(length) +
                              ") lies outside the " + std::to_string(size) + "-byte file");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> blob, (*input)->Read(offset, length));
  auto positions =
      DeserializeDeletionVector(std::string_view(reinterpret_cast<const char*>(blob.data()), blob.size()),
                                std::max<int64_t>(file.record_count, 0));
  if (!positions.ok()) return positions.status().WithContext(name);
  if (static_cast<int64_t>(positions->size()) != file.record_count) {
    return Status::Corruption(name + ": cardinality " + std::to_string(positions->size()) +
                              " differs from record_count " + std::to_string(file.record_count));
  }
  return positions;
}

}  // namespace floe::iceberg
