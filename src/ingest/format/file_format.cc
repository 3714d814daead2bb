#include "ingest/format/file_format.h"

#include "ingest/format/parquet_file_format.h"

namespace floe::ingest {

Result<std::unique_ptr<FileFormat>> MakeFileFormat(const SourceConfig& config) {
  switch (config.format) {
    case SourceFormat::kParquet: return std::unique_ptr<FileFormat>(new ParquetFileFormat());
  }
  return Status::InvalidArgument("[source] format: unknown format");
}

}  // namespace floe::ingest
