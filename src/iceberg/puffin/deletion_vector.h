// Deletion vectors (format v3, puffin-spec.md "deletion-vector-v1"): the
// deleted row positions of one data file as a Puffin blob.
//
// Contract: a blob is a 4-byte big-endian length of (magic + vector), the
// magic D1 D3 39 64, the positions as a 64-bit Roaring bitmap in the
// "portable" layout (8-byte LE count of 32-bit bitmaps, then per bitmap its
// 4-byte LE key = high 32 bits and the standard 32-bit portable Roaring
// serialization, keys ascending), and a 4-byte big-endian CRC-32 of magic +
// vector. Decoding treats the blob as untrusted: lengths, magic, CRC, key
// order and every bitmap are checked, and the cardinality is checked against
// max_positions before any position is materialised (a few bytes of run
// containers can encode billions of rows). Errors are Corruption.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/puffin/puffin.h"
#include "io/file_io.h"

namespace floe::iceberg {

inline constexpr std::string_view kDeletionVectorBlobType = "deletion-vector-v1";

// Positions may come in any order; duplicates collapse. Negative positions
// are InvalidArgument.
Result<std::string> SerializeDeletionVector(std::vector<int64_t> positions);
// The sorted positions of a blob.
Result<std::vector<int64_t>> DeserializeDeletionVector(std::string_view blob,
                                                       int64_t max_positions = int64_t{1} << 31);

// Writes deletion vectors, one per data file, into one Puffin file.
class DeletionVectorWriter {
 public:
  static Result<std::unique_ptr<DeletionVectorWriter>> Open(FileIO& io, const std::string& path);
  // `partition` and `spec_id` are those of the data file.
  Status Add(const std::string& data_file_path, std::vector<int64_t> positions,
             std::vector<Literal> partition, int32_t spec_id);
  // Publishes the file; returns one DataFile (content 1, format PUFFIN,
  // referenced_data_file, content_offset/size, record_count = cardinality)
  // per vector, each with the Puffin file's size.
  Result<std::vector<DataFile>> Close();

 private:
  explicit DeletionVectorWriter(std::unique_ptr<PuffinWriter> puffin) : puffin_(std::move(puffin)) {}
  std::unique_ptr<PuffinWriter> puffin_;
  std::vector<DataFile> files_;
};

// Reads the vector a DataFile (content_offset/content_size_in_bytes) points at.
Result<std::vector<int64_t>> ReadDeletionVector(FileIO& io, const DataFile& file);

}  // namespace floe::iceberg
