// ParquetChunkedReader: a Parquet file as a formats::ChunkedReader — one
// chunk per row group, chunk_bytes from the footer's uncompressed sizes.
//
// Contract: see formats/chunked_reader.h. Open reads the footer (through
// ParquetFileReader::Open); row counts and sizes come from the footer, which
// is untrusted: a negative size reads as 0 (Open already refuses negative
// row counts), and ReadChunk fails (Corruption) when a column decodes to
// another row count than its row group's. Not thread-safe.
#pragma once

#include <memory>
#include <vector>

#include "formats/chunked_reader.h"
#include "formats/parquet/file_reader.h"

namespace floe::parquet {

class ParquetChunkedReader final : public formats::ChunkedReader {
 public:
  static Result<std::unique_ptr<ParquetChunkedReader>> Open(std::shared_ptr<InputFile> file,
                                                            ReaderLimits limits = {});

  const Schema& schema() const override { return reader_->schema(); }
  int num_chunks() const override { return reader_->num_row_groups(); }
  int64_t chunk_rows(int chunk) const override;
  int64_t chunk_bytes(int chunk) const override;
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override;

  ParquetFileReader& file_reader() { return *reader_; }

 private:
  explicit ParquetChunkedReader(std::unique_ptr<ParquetFileReader> reader) : reader_(std::move(reader)) {}
  std::unique_ptr<ParquetFileReader> reader_;
};

}  // namespace floe::parquet
