#include "ingest/format/parquet_file_format.h"

#include <algorithm>

#include "formats/parquet/parquet_chunked_reader.h"

namespace floe::ingest {

ParquetFileFormat::ParquetFileFormat(int64_t memory_budget_bytes) {
  // At least 1 MiB (~32 MiB parsed): ordinary wide files must still open under the smallest budget.
  limits_.max_footer_bytes = std::max<int64_t>(
      std::max<int64_t>(memory_budget_bytes, 0) / (2 * parquet::kFooterMemoryFactor), 1 << 20);
  // 16 MiB of the default 512 MiB; at least 2 MiB, so a slice's per-read
  // costs (its offset index, dictionary pages) stay small beside its values.
  max_chunk_bytes_ = std::max<int64_t>(std::max<int64_t>(memory_budget_bytes, 0) / 32, int64_t{2} << 20);
}

Result<std::unique_ptr<formats::ChunkedReader>> ParquetFileFormat::Open(
    std::shared_ptr<InputFile> file, const Schema& /*table_columns*/,
    const std::string& /*source_table*/) const {
  auto opened = parquet::ParquetChunkedReader::Open(std::move(file), limits_, max_chunk_bytes_);
  if (!opened.ok() && opened.status().kind() == ErrorKind::kOutOfRange) {
    return Status::OutOfRange(opened.status().message() + " ([performance] memory_budget / " +
                              std::to_string(2 * parquet::kFooterMemoryFactor) +
                              ": parsed, a footer takes up to " +
                              std::to_string(parquet::kFooterMemoryFactor) + " times its size)");
  }
  FLOE_ASSIGN_OR_RETURN(auto reader, std::move(opened));
  return std::unique_ptr<formats::ChunkedReader>(std::move(reader));
}

bool ParquetFileFormat::IsDataFile(std::string_view path) const {
  return path.ends_with(".parquet");
}

}  // namespace floe::ingest
