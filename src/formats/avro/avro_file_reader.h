// AvroFileReader: an Avro object container file as a ChunkedReader.
//
// Contract:
// - The schema is the writer schema mapped by columnar_decoder.h (aliases
//   reported by field_aliases()). Codecs: null, deflate, snappy (CRC
//   checked), zstandard; others are NotSupported naming the codec.
// - Open reads the header and walks the block heads (two varints per block,
//   each checked against the file size), without reading block data; a
//   chunk is a run of whole blocks of at most chunk_rows records or
//   chunk_bytes compressed bytes (one block always fits, however large, up
//   to max_block_bytes). chunk_bytes(i) is the chunk's compressed size.
// - ReadChunk reads, checks (sync marker, every record decoded with no byte
//   left over) and decodes the chunk's blocks into columns. Corrupt data is
//   an error naming the file, the block and the field; Avro has no rescue
//   (a block that does not decode has no record boundaries to resume at).
// - Memory: one block's compressed and decompressed bytes and the chunk's
//   batch; the index holds 40 bytes per block.
// Not thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "formats/avro/columnar_decoder.h"
#include "formats/avro/container.h"
#include "formats/avro/container_blocks.h"
#include "formats/chunked_reader.h"
#include "io/file_io.h"

namespace floe::avro {

struct AvroFileReadOptions {
  int64_t chunk_rows = 65536;
  int64_t chunk_bytes = int64_t{16} << 20;
  int64_t max_block_bytes = int64_t{256} << 20;
  int64_t max_header_bytes = int64_t{64} << 20;
};

class AvroFileReader final : public formats::ChunkedReader {
 public:
  static Result<std::unique_ptr<AvroFileReader>> Open(std::shared_ptr<InputFile> file,
                                                      AvroFileReadOptions options);

  const Schema& schema() const override { return columnar_.schema; }
  int num_chunks() const override { return static_cast<int>(chunks_.size()); }
  int64_t chunk_rows(int chunk) const override { return chunks_[static_cast<size_t>(chunk)].rows; }
  int64_t chunk_bytes(int chunk) const override { return chunks_[static_cast<size_t>(chunk)].bytes; }
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override;

  const AvroSchema& writer_schema() const { return writer_; }
  AvroCodec codec() const { return codec_; }
  const AvroContainerHeader& header() const { return header_; }
  const std::vector<AvroFieldAliases>& field_aliases() const { return columnar_.aliases; }
  int64_t num_rows() const { return rows_; }

 private:
  struct Chunk {
    size_t first_block = 0;
    size_t blocks = 0;
    int64_t rows = 0;
    int64_t bytes = 0;
  };

  std::shared_ptr<InputFile> file_;
  AvroFileReadOptions options_;
  AvroContainerHeader header_;
  AvroSchema writer_ = *AvroSchema::Parse("\"null\"");
  AvroCodec codec_ = AvroCodec::kNull;
  AvroColumnarSchema columnar_;
  std::vector<AvroBlockHead> blocks_;
  std::vector<Chunk> chunks_;
  int64_t rows_ = 0;
  std::vector<uint8_t> block_data_;
  std::unique_ptr<AvroColumnarDecoder> decoder_;  // for decoder_columns_
  std::vector<int> decoder_columns_;
};

}  // namespace floe::avro
