// ParquetChunkedReader: a Parquet file as a formats::ChunkedReader — one
// chunk per row group, or, for a row group larger once decoded than
// `max_chunk_bytes`, one chunk per slice of its rows.
//
// Contract: see formats/chunked_reader.h. Open reads the footer (through
// ParquetFileReader::Open); row counts and sizes come from the footer, which
// is untrusted: a negative size reads as 0 (Open already refuses negative
// row counts), and ReadChunk fails (Corruption) when a column decodes to
// another row count than its row group's.
// Slices: a row group whose decoded estimate
// (ParquetFileReader::EstimatedDecodedBytes) exceeds `max_chunk_bytes` is
// cut into about estimate / max_chunk_bytes slices of consecutive rows, cut
// where a page of its largest column starts (so that column's pages are
// each decompressed once), when every field can be read by page
// (ParquetFileReader::ReadsRowsByPage: flat leaves with offset indexes).
// Why: a chunk is what a reader holds decoded at a time, and a writer's
// row group can be far larger than a memory budget allows holding several
// of (1M-row row groups of CDA exports decode to 100+ MB). Other row groups
// stay whole. Open reads the offset index of a sliced row group's largest
// column (one ranged read each); when that fails the row group stays whole,
// and its reads report the fault. Chunks are in file order, each slice's
// rows in row order, so a reader sees the same rows in the same order
// whatever the slicing. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "formats/chunked_reader.h"
#include "formats/parquet/file_reader.h"

namespace floe::parquet {

class ParquetChunkedReader final : public formats::ChunkedReader {
 public:
  // `max_chunk_bytes` <= 0: one chunk per row group.
  static Result<std::unique_ptr<ParquetChunkedReader>> Open(std::shared_ptr<InputFile> file,
                                                            ReaderLimits limits = {},
                                                            int64_t max_chunk_bytes = 0);

  const Schema& schema() const override { return reader_->schema(); }
  int num_chunks() const override { return static_cast<int>(chunks_.size()); }
  int64_t chunk_rows(int chunk) const override;
  int64_t chunk_bytes(int chunk) const override;
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override;

  ParquetFileReader& file_reader() { return *reader_; }

 private:
  struct Chunk {
    int row_group = 0;
    int64_t first_row = 0;  // within the row group
    int64_t rows = 0;
    int64_t bytes = 0;  // decoded estimate
    bool whole = true;  // the whole row group (read with ReadRowGroup)
  };
  explicit ParquetChunkedReader(std::unique_ptr<ParquetFileReader> reader) : reader_(std::move(reader)) {}
  void PlanChunks(int64_t max_chunk_bytes);
  std::unique_ptr<ParquetFileReader> reader_;
  std::vector<Chunk> chunks_;
};

}  // namespace floe::parquet
