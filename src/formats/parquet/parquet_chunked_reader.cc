#include "formats/parquet/parquet_chunked_reader.h"

#include <algorithm>

namespace floe::parquet {

Result<std::unique_ptr<ParquetChunkedReader>> ParquetChunkedReader::Open(std::shared_ptr<InputFile> file,
                                                                         ReaderLimits limits) {
  FLOE_ASSIGN_OR_RETURN(auto reader, ParquetFileReader::Open(std::move(file), limits));
  return std::unique_ptr<ParquetChunkedReader>(new ParquetChunkedReader(std::move(reader)));
}

int64_t ParquetChunkedReader::chunk_rows(int chunk) const {
  return std::max<int64_t>(reader_->metadata().row_groups[static_cast<size_t>(chunk)].num_rows, 0);
}

int64_t ParquetChunkedReader::chunk_bytes(int chunk) const {
  return std::max<int64_t>(reader_->metadata().row_groups[static_cast<size_t>(chunk)].total_byte_size, 0);
}

Result<RecordBatch> ParquetChunkedReader::ReadChunk(int chunk, const std::vector<int>& columns) {
  // Every column read is checked against the footer's row count (file_reader.cc).
  return reader_->ReadRowGroup(chunk, columns);
}

}  // namespace floe::parquet
