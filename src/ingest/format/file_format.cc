#include "ingest/format/file_format.h"

#include "ingest/format/avro_file_format.h"
#include "ingest/format/csv_file_format.h"
#include "ingest/format/json_file_format.h"
#include "ingest/format/parquet_file_format.h"
#include "ingest/format/text_format_options.h"

namespace floe::ingest {

Result<std::unique_ptr<FileFormat>> MakeFileFormat(const SourceConfig& config, int64_t memory_budget_bytes) {
  switch (config.format) {
    case SourceFormat::kParquet:
      return std::unique_ptr<FileFormat>(new ParquetFileFormat(memory_budget_bytes));
    case SourceFormat::kJsonLines:
    case SourceFormat::kJson: {
      FLOE_ASSIGN_OR_RETURN(TextFormatOptions options, MakeTextFormatOptions(config));
      return std::unique_ptr<FileFormat>(new JsonFileFormat(config, std::move(options)));
    }
    case SourceFormat::kCsv: {
      FLOE_ASSIGN_OR_RETURN(TextFormatOptions options, MakeTextFormatOptions(config));
      return std::unique_ptr<FileFormat>(new CsvFileFormat(config, std::move(options)));
    }
    case SourceFormat::kAvro: return std::unique_ptr<FileFormat>(new AvroFileFormat(config));
  }
  return Status::InvalidArgument("[source] format: unknown format");
}

}  // namespace floe::ingest
