// ParquetFileWriter: writes floe RecordBatches as one Parquet file.
//
// Contract: Open writes the "PAR1" magic; Write buffers rows and writes a
// row group each time row_group_max_rows or row_group_max_bytes is reached
// (a batch may be split across row groups); Close writes the last row
// group, the page index, the footer, and publishes the file, returning its
// exact size, the footer metadata and per-leaf statistics (what an Iceberg
// data file entry needs). A batch whose columns do not match the schema is
// InvalidArgument and leaves the writer usable. A value the file cannot hold
// (a null in a non-nullable field, a decimal wider than its precision) or
// an I/O error makes the writer unusable: Close then aborts the file and
// returns an error. Destroying an unclosed writer aborts the file.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/thrift/parquet_types.h"
#include "formats/parquet/writer/leaf_shredder.h"
#include "formats/parquet/writer/schema_builder.h"
#include "formats/parquet/writer/writer_options.h"
#include "io/file_io.h"

namespace floe::parquet {

// Whole-file statistics of one leaf column.
struct ColumnWriteStats {
  std::vector<std::string> path;   // path_in_schema
  int64_t num_values = 0;          // levels, nulls included (ColumnMetaData.num_values summed)
  int64_t null_count = 0;          // levels below the maximum definition level
  int64_t nan_count = 0;           // NaN values of FLOAT/DOUBLE/FLOAT16 leaves
  std::optional<std::string> min;  // PLAIN-encoded, untruncated; absent when no value orders
  std::optional<std::string> max;
  int64_t compressed_bytes = 0;  // total_compressed_size summed (page headers included)
  int64_t uncompressed_bytes = 0;
};

struct WrittenParquetFile {
  int64_t file_size = 0;
  int64_t num_rows = 0;
  FileMetaData metadata;
  std::vector<ColumnWriteStats> columns;   // per leaf, whole file
  std::vector<int64_t> row_group_offsets;  // file offset of each row group's first page
};

class ParquetFileWriter {
 public:
  static Result<std::unique_ptr<ParquetFileWriter>> Open(std::unique_ptr<OutputFile> file,
                                                         const Schema& schema, ParquetWriterOptions options);
  ~ParquetFileWriter();
  ParquetFileWriter(const ParquetFileWriter&) = delete;
  ParquetFileWriter& operator=(const ParquetFileWriter&) = delete;

  Status Write(const RecordBatch& batch);
  // Closes the current row group early (no-op when it is empty).
  Status FlushRowGroup();
  Result<WrittenParquetFile> Close();
  void Abort();

  int64_t rows_written() const { return rows_written_ + buffered_rows_; }
  // Bytes already in the file plus the buffered rows' estimated size: their
  // values' size before encoding, scaled, once a row group was written, by
  // what encoding and compression made of the row groups so far (a rolling
  // writer then closes files near its target, not at about half of it).
  int64_t EstimatedFileSize() const;

 private:
  ParquetFileWriter(std::unique_ptr<OutputFile> file, Schema schema, ParquetWriterOptions options,
                    std::unique_ptr<WriterSchema> writer_schema);
  Status CheckBatch(const RecordBatch& batch) const;
  int64_t BufferedBytes() const;
  Status WriteRowGroupOrFail();
  Status WritePageIndex();

  std::unique_ptr<OutputFile> file_;
  Schema schema_;
  ParquetWriterOptions options_;
  std::unique_ptr<WriterSchema> writer_schema_;
  std::vector<LeafValues> buffers_;  // one per leaf
  int64_t buffered_rows_ = 0;
  int64_t rows_written_ = 0;
  // Written row groups: their buffered estimate and their compressed size.
  int64_t flushed_estimated_bytes_ = 0;
  int64_t flushed_compressed_bytes_ = 0;
  FileMetaData metadata_;
  std::vector<ColumnWriteStats> stats_;
  // Per row group, per leaf: the page index to write before the footer.
  std::vector<std::vector<std::optional<ColumnIndex>>> column_indexes_;
  std::vector<std::vector<OffsetIndex>> offset_indexes_;
  enum class State { kOpen, kFailed, kClosed } state_ = State::kOpen;
};

}  // namespace floe::parquet
