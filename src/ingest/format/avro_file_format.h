// AvroFileFormat: Avro object container files (format "avro"), read by
// avro::AvroFileReader: the writer schema from each file (codecs null,
// deflate, snappy, zstandard); fields match table columns by name, so a
// later writer schema that adds fields evolves the table like Parquet.
//
// Contract: data files are *.avro, or every file [source] include matches.
// A top-level field the table lacks whose writer-schema `aliases` name a
// table column reads as that column (a renamed field keeps its column;
// nested fields match by name only).
// A block that does not decode fails the file (it is quarantined): Avro
// has no record boundaries to resume at. Immutable; thread-safe.
#pragma once

#include "ingest/format/file_format.h"

namespace floe::ingest {

class AvroFileFormat final : public FileFormat {
 public:
  explicit AvroFileFormat(const SourceConfig& config) : any_name_(!config.include.empty()) {}
  const char* name() const override { return "avro"; }
  Result<std::unique_ptr<formats::ChunkedReader>> Open(std::shared_ptr<InputFile> file,
                                                       const Schema& table_columns,
                                                       const std::string& source_table) const override;
  bool IsDataFile(std::string_view path) const override;

 private:
  const bool any_name_;
};

}  // namespace floe::ingest
