// CsvFileFormat: CSV files (format "csv"), read by csv::CsvFileReader with
// [source]'s dialect keys (unset ones sniffed per file), inference, hints,
// compression and bad-record policy.
//
// Contract: a *.tsv file with no [source] delimiter is tab-separated. Data
// files are *.csv, *.tsv, *.psv and *.txt (optionally compressed), or every
// file [source] include matches. Immutable; Open and IsDataFile are
// thread-safe; the same file always opens to the same schema and chunks
// (the sniffer reads the same first bytes).
#pragma once

#include "ingest/format/file_format.h"
#include "ingest/format/text_format_options.h"

namespace floe::ingest {

class CsvFileFormat final : public FileFormat {
 public:
  CsvFileFormat(const SourceConfig& config, TextFormatOptions options);
  const char* name() const override { return "csv"; }
  Result<std::unique_ptr<formats::ChunkedReader>> Open(std::shared_ptr<InputFile> file,
                                                       const Schema& table_columns,
                                                       const std::string& source_table) const override;
  bool IsDataFile(std::string_view path) const override;

 private:
  const TextFormatConfig text_;
  const TextFormatOptions options_;
};

}  // namespace floe::ingest
