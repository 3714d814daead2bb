#include "ingest/format/json_file_format.h"

#include "formats/json/json_file_reader.h"

namespace floe::ingest {

JsonFileFormat::JsonFileFormat(const SourceConfig& config, TextFormatOptions options)
    : lines_(config.format == SourceFormat::kJsonLines),
      strip_outer_array_(config.text.strip_outer_array),
      nested_as_json_(config.text.nested_as_json),
      options_(std::move(options)) {}

Result<std::unique_ptr<formats::ChunkedReader>> JsonFileFormat::Open(std::shared_ptr<InputFile> file,
                                                                     const Schema& table_columns,
                                                                     const std::string& source_table) const {
  (void)source_table;
  json::JsonReadOptions read;
  read.format = lines_ ? "jsonl" : "json";
  if (!lines_) {
    if (strip_outer_array_) {
      read.strip_outer_array = *strip_outer_array_;
    } else {
      FLOE_ASSIGN_OR_RETURN(char first, formats::FirstTextByte(file, options_.compression));
      read.strip_outer_array = first == '[';
    }
  }
  read.decode.inference = options_.inference;
  read.decode.schema_hints = WithTableColumns(options_.schema_hints, table_columns);
  read.decode.nested_as_json = nested_as_json_;
  read.decode.on_broken = read.decode.on_mismatch = options_.bad_records;
  read.schema_sample_bytes = options_.schema_sample_bytes;
  read.compression = options_.compression;
  FLOE_ASSIGN_OR_RETURN(auto reader, json::JsonFileReader::Open(std::move(file), std::move(read)));
  return std::unique_ptr<formats::ChunkedReader>(std::move(reader));
}

bool JsonFileFormat::IsDataFile(std::string_view path) const {
  return IsTextDataFile(options_, path, {"jsonl", "ndjson", "json"});
}

}  // namespace floe::ingest
