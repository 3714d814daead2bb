// JsonFileFormat: JSON files (format "jsonl": one object per line; format
// "json": objects that may span lines, or the elements of one top-level
// array), read by json::JsonFileReader with [source]'s inference, hints,
// compression and bad-record policy.
//
// Contract: with format "json" and strip_outer_array unset, a file whose
// first byte (after a BOM and white space, decompressed) is '[' is read as
// one array of records, any other as a sequence of values. Data files are
// *.jsonl, *.ndjson and *.json (optionally compressed: .gz, .zst, .lz4,
// .bz2), or every file [source] include matches. Immutable; Open and
// IsDataFile are thread-safe. The same file always opens to the same schema
// and chunks (the pipeline opens each file twice).
#pragma once

#include "ingest/format/file_format.h"
#include "ingest/format/text_format_options.h"

namespace floe::ingest {

class JsonFileFormat final : public FileFormat {
 public:
  JsonFileFormat(const SourceConfig& config, TextFormatOptions options);
  const char* name() const override { return lines_ ? "jsonl" : "json"; }
  Result<std::unique_ptr<formats::ChunkedReader>> Open(std::shared_ptr<InputFile> file,
                                                       const Schema& table_columns,
                                                       const std::string& source_table) const override;
  bool IsDataFile(std::string_view path) const override;

 private:
  const bool lines_;
  const std::optional<bool> strip_outer_array_;
  const bool nested_as_json_;
  const TextFormatOptions options_;
};

}  // namespace floe::ingest
