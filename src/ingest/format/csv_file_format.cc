#include "ingest/format/csv_file_format.h"

#include "formats/csv/csv_file_reader.h"

namespace floe::ingest {

CsvFileFormat::CsvFileFormat(const SourceConfig& config, TextFormatOptions options)
    : text_(config.text), options_(std::move(options)) {}

Result<std::unique_ptr<formats::ChunkedReader>> CsvFileFormat::Open(std::shared_ptr<InputFile> file,
                                                                    const Schema& table_columns,
                                                                    const std::string& source_table) const {
  csv::CsvReadOptions read;
  read.delimiter = text_.delimiter;
  if (!read.delimiter && formats::DataExtension(file->path()) == "tsv") read.delimiter = "\t";
  read.quote = text_.quote;
  read.escape = text_.escape;
  read.header = text_.header;
  auto names = text_.table_column_names.find(source_table);
  read.column_names = names != text_.table_column_names.end() ? names->second : text_.column_names;
  // Named columns are for headerless files (DMS writes none by default).
  if (!read.column_names.empty() && !read.header) read.header = false;
  read.null_string = text_.null_string;
  read.skip_rows = text_.skip_rows;
  read.encoding = text_.encoding;
  read.inference = options_.inference;
  read.schema_hints = WithTableColumns(options_.schema_hints, table_columns);
  read.on_bad_record = read.on_mismatch = options_.bad_records;
  read.schema_sample_bytes = options_.schema_sample_bytes;
  read.compression = options_.compression;
  FLOE_ASSIGN_OR_RETURN(auto reader, csv::CsvFileReader::Open(std::move(file), std::move(read)));
  return std::unique_ptr<formats::ChunkedReader>(std::move(reader));
}

bool CsvFileFormat::IsDataFile(std::string_view path) const {
  return IsTextDataFile(options_, path, {"csv", "tsv", "psv", "txt"});
}

}  // namespace floe::ingest
