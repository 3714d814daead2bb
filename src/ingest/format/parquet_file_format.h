// ParquetFileFormat: Parquet files (format "parquet", and the files of a CDA
// export), read one row group per chunk, or a large row group in slices of
// at most memory_budget / 32 decoded (parquet/parquet_chunked_reader.h):
// the read-ahead holds a few chunks per thread decoded, and a 1M-row row
// group can decode to more than the read-ahead's quarter of the budget.
// A footer whose parsed form could take more than half of the memory budget
// (footers above memory_budget / 64, but at least 1 MiB) is refused before it
// is read, and the file is quarantined: a hostile footer of 100k duplicated
// row groups must not take the process past [performance] memory_budget.
#pragma once

#include "formats/parquet/reader/column_chunk_reader.h"
#include "ingest/format/file_format.h"

namespace floe::ingest {

class ParquetFileFormat final : public FileFormat {
 public:
  explicit ParquetFileFormat(int64_t memory_budget_bytes = PerformanceConfig{}.memory_budget_bytes);
  const char* name() const override { return "parquet"; }
  Result<std::unique_ptr<formats::ChunkedReader>> Open(std::shared_ptr<InputFile> file,
                                                       const Schema& table_columns,
                                                       const std::string& source_table) const override;
  // Names ending in ".parquet".
  bool IsDataFile(std::string_view path) const override;
  const parquet::ReaderLimits& limits() const { return limits_; }

 private:
  parquet::ReaderLimits limits_;
  int64_t max_chunk_bytes_ = 0;
};

}  // namespace floe::ingest
