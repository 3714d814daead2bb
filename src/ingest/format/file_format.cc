#include "ingest/format/file_format.h"

#include "ingest/format/parquet_file_format.h"

namespace floe::ingest {

Result<std::unique_ptr<FileFormat>> MakeFileFormat(const SourceConfig& config, int64_t memory_budget_bytes) {
  switch (config.format) {
    case SourceFormat::kParquet:
      return std::unique_ptr<FileFormat>(new ParquetFileFormat(memory_budget_bytes));
  }
  return Status::InvalidArgument("[source] format: unknown format");
}

}  // namespace floe::ingest
