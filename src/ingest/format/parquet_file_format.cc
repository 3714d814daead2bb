#include "ingest/format/parquet_file_format.h"

#include "formats/parquet/parquet_chunked_reader.h"

namespace floe::ingest {

Result<std::unique_ptr<formats::ChunkedReader>> ParquetFileFormat::Open(
    std::shared_ptr<InputFile> file) const {
  FLOE_ASSIGN_OR_RETURN(auto reader, parquet::ParquetChunkedReader::Open(std::move(file)));
  return std::unique_ptr<formats::ChunkedReader>(std::move(reader));
}

bool ParquetFileFormat::IsDataFile(std::string_view path) const {
  return path.ends_with(".parquet");
}

}  // namespace floe::ingest
