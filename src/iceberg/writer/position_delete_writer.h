// Position delete files (format v2): Parquet files of (file_path, pos) rows
// marking deleted rows of data files.
//
// Contract: columns file_path (id 2147483546, required string) and pos (id
// 2147483545, required long), rows sorted by (file_path, pos) with duplicates
// dropped, as the spec requires. Close returns the DataFile (content 1,
// partition and spec of the deleted data files) with metrics as Java writes
// them: file_path bounds kept whole so readers can tell which data files are
// targeted, and referenced_data_file set when every row targets one data
// file. Deletes are buffered in memory until Close. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "iceberg/writer/data_file_writer.h"

namespace floe::iceberg {

// The Iceberg schema of position delete files.
Schema PositionDeleteSchema();

class PositionDeleteWriter {
 public:
  static Result<std::unique_ptr<PositionDeleteWriter>> Open(FileIO& io, std::string path,
                                                            std::vector<Literal> partition,
                                                            DataFileWriterOptions options);
  // Marks row `position` (0-based) of `data_file_path` deleted.
  Status Delete(std::string_view data_file_path, int64_t position);
  int64_t buffered_deletes() const { return static_cast<int64_t>(deletes_.size()); }
  // Writes the file (an empty writer writes no file and is InvalidArgument).
  Result<DataFile> Close();

 private:
  PositionDeleteWriter(FileIO& io, std::string path, std::vector<Literal> partition,
                       DataFileWriterOptions options)
      : io_(io), path_(std::move(path)), partition_(std::move(partition)), options_(std::move(options)) {}

  FileIO& io_;
  std::string path_;
  std::vector<Literal> partition_;
  DataFileWriterOptions options_;
  std::vector<std::pair<std::string, int64_t>> deletes_;
  bool closed_ = false;
};

}  // namespace floe::iceberg
