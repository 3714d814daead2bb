// ParquetFileFormat: Parquet files (format "parquet", and the files of a CDA
// export), read one row group per chunk (parquet/parquet_chunked_reader.h).
#pragma once

#include "ingest/format/file_format.h"

namespace floe::ingest {

class ParquetFileFormat final : public FileFormat {
 public:
  const char* name() const override { return "parquet"; }
  Result<std::unique_ptr<formats::ChunkedReader>> Open(std::shared_ptr<InputFile> file) const override;
  // Names ending in ".parquet".
  bool IsDataFile(std::string_view path) const override;
};

}  // namespace floe::ingest
