// UnitBytes: the (decompressed) bytes of one text unit, read in order, or at
// any offset when the file is not compressed.
//
// Contract:
// - Compression is found by magic bytes (gzip, zstd, lz4 frame, bzip2); a
//   name ending in .gz/.gzip, .zst/.zstd, .lz4 or .bz2 whose bytes lack that
//   magic is Corruption (the name promises what the bytes do not hold). A
//   forced codec (or kNone) is used as given.
// - A UTF-8 byte-order mark at the start is skipped: offsets count from the
//   first byte after it (data_start()). A UTF-16/32 mark is NotSupported.
// - ReadRange(offset, n) returns decompressed bytes [offset, offset + n):
//   uncompressed files read them directly; compressed files continue the
//   decompression when offset is at or past the current position and start
//   over from the beginning otherwise (reading ranges in order costs one
//   pass; out of order, a pass per backward jump).
// - Memory: one compressed input block (1 MiB) plus the codec's window.
// - Errors name the file; a compressed file that ends inside a member is
//   Corruption ("truncated").
// Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "compression/stream_decoder.h"
#include "io/file_io.h"

namespace floe::formats {

// How a unit's compression is chosen: detected (the default), or forced
// (codec nullopt = not compressed).
struct CompressionChoice {
  bool detect = true;
  std::optional<StreamCodec> codec;
};
// "auto", "none", "gzip", "zstd", "lz4" or "bzip2" (InvalidArgument otherwise).
Result<CompressionChoice> ParseCompressionChoice(std::string_view text);

// The lower-cased extension of a file name after one compression suffix
// (.gz, .gzip, .zst, .zstd, .lz4, .bz2, any case): "x/Orders.CSV.gz" -> "csv";
// "" when the name has none. What prefix discovery and `floe file` use to
// tell a format's files from the others.
std::string DataExtension(std::string_view path);

// The first byte of the (decompressed) text after a BOM and white space, or
// '\0' when the first 4 KiB hold none: '{' or '[' tells JSON's layouts apart.
Result<char> FirstTextByte(std::shared_ptr<InputFile> file, const CompressionChoice& compression);

class UnitBytes {
 public:
  static Result<std::unique_ptr<UnitBytes>> Open(std::shared_ptr<InputFile> file,
                                                 CompressionChoice compression = {});
  ~UnitBytes();

  const std::string& name() const { return file_->path(); }
  std::optional<StreamCodec> codec() const { return codec_; }
  // The first data byte's offset (3 after a UTF-8 BOM, else 0).
  int64_t data_start() const { return data_start_; }
  // Decompressed size when known without reading (uncompressed files), else -1.
  int64_t known_size() const { return codec_ ? -1 : file_size_; }

  // Reads up to `n` bytes at the current position; 0 at the end.
  Result<size_t> Read(uint8_t* out, size_t n);
  int64_t position() const { return position_; }
  // Reads exactly `n` bytes at `offset` (Corruption when the data ends first).
  Status ReadRange(int64_t offset, int64_t n, uint8_t* out);
  // Moves the position of the next Read (backwards: decompression starts over).
  Status Seek(int64_t offset);

 private:
  UnitBytes(std::shared_ptr<InputFile> file, int64_t size) : file_(std::move(file)), file_size_(size) {}
  Status Restart();
  Status Skip(int64_t n);

  std::shared_ptr<InputFile> file_;
  int64_t file_size_ = 0;
  std::optional<StreamCodec> codec_;
  std::unique_ptr<StreamDecoder> decoder_;
  int64_t data_start_ = 0;
  int64_t position_ = 0;           // decompressed offset of the next Read
  int64_t compressed_offset_ = 0;  // file offset of the next compressed block
  std::vector<uint8_t> input_;     // the compressed block being decoded
  size_t input_pos_ = 0;
};

}  // namespace floe::formats
