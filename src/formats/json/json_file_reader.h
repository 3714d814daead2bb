// JsonFileReader: a JSON-lines or JSON file as a ChunkedReader.
//
// Contract:
// - Layouts (json_records.h): "jsonl" one object per line; "json" the
//   top-level values of the file (objects that may span lines), or with
//   strip_outer_array the elements of the one top-level array. UTF-8 with an
//   optional BOM; CRLF line ends; gzip/zstd/lz4/bzip2 input by magic bytes
//   (unit_bytes.h).
// - Open scans the whole file once to cut it into chunks at record
//   boundaries (chunk_rows / chunk_bytes) and decodes the first
//   schema_sample_bytes of records (whole chunks; 0 = every chunk) to infer
//   the schema with JsonDocumentDecoder: the `known` columns first (kept as
//   given, present or not), then new fields in order of appearance. The
//   schema ends with `_rescued_data` when either bad-data policy rescues
//   and something may need it: the sample rescued a value or a record, a
//   record is oversized, or the sample did not cover the whole file (so
//   later records may not fit; the column is then null where nothing was
//   rescued).
// - ReadChunk decodes one chunk against that schema: a field the schema
//   lacks, and a value that does not fit, are rescued (or fail, per
//   on_mismatch); broken records likewise per on_broken; a record longer
//   than max_record_bytes is never held whole: its first 1 KiB is rescued
//   with the reason (or it fails). Errors name the file, the line and the
//   field or byte. The same chunk always decodes to the same rows,
//   whichever columns are asked for.
// - Memory is bounded by: one chunk's bytes (at most max(chunk_bytes,
//   max_record_bytes) + padding; for JSON lines only a 256 KiB block plus
//   the longest line, read and decoded a block at a time so the bytes are
//   still in cache) and its decoded batch, the chunk index
//   (~40 bytes per chunk), and the decompressor's window and 1 MiB input
//   block. Nothing grows with the file size beyond the index.
// - Compressed files are decompressed again for each backward jump between
//   chunks (reading chunks in order costs one pass per read-through).
// Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "formats/chunked_reader.h"
#include "formats/json/json_document_decoder.h"
#include "formats/json/json_records.h"
#include "formats/text_chunks.h"
#include "formats/unit_bytes.h"
#include "io/file_io.h"

namespace floe::json {

struct JsonReadOptions {
  std::string format = "jsonl";  // "jsonl" or "json"
  bool strip_outer_array = false;
  // Inference, hints, known columns, nested_as_json, bad-data policies and
  // limits for every record (location.unit is set to the file's path).
  JsonDecodeOptions decode;
  int64_t schema_sample_bytes = int64_t{16} << 20;  // 0 = the whole file
  formats::TextChunkLimits limits;
  formats::CompressionChoice compression;
};

class JsonFileReader final : public formats::ChunkedReader {
 public:
  static Result<std::unique_ptr<JsonFileReader>> Open(std::shared_ptr<InputFile> file,
                                                      JsonReadOptions options);

  const Schema& schema() const override { return schema_; }
  int num_chunks() const override { return static_cast<int>(chunks_.size()); }
  int64_t chunk_rows(int chunk) const override { return chunks_[static_cast<size_t>(chunk)].rows; }
  int64_t chunk_bytes(int chunk) const override { return chunks_[static_cast<size_t>(chunk)].length; }
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override;

  int64_t num_rows() const { return rows_; }
  // Whether Open's sample covered every chunk.
  bool sampled_whole_file() const { return sampled_all_; }

 private:
  JsonReadOptions options_;
  JsonLayout layout_ = JsonLayout::kLines;
  std::unique_ptr<formats::UnitBytes> bytes_;
  std::vector<formats::TextChunk> chunks_;
  Schema schema_;
  int64_t rows_ = 0;
  bool sampled_all_ = false;
  std::string buffer_;  // the chunk (or, for lines, the block) being decoded, padded
  // The decoder of the last ReadChunk's columns (kept: it sizes its buffers
  // from the chunks it decoded before).
  std::unique_ptr<JsonDocumentDecoder> decoder_;
  std::vector<std::string> decoder_columns_;

  Status DecodeChunk(const formats::TextChunk& chunk, JsonDocumentDecoder* decoder);
  Result<RecordBatch> OversizedChunk(const formats::TextChunk& chunk, const std::vector<std::string>& names);
};

}  // namespace floe::json
