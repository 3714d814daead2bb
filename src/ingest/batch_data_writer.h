// BatchDataWriter: writes one batch's rows into rolling Iceberg data files,
// one sequence of files per partition, and tells where every row landed.
//
// Contract: rows are written in the order given; Write reports for each row
// the number of its data file (numbers start at 0 and follow the order files
// are opened) and its 0-based position in that file — the (file, position)
// a position delete or deletion vector will later name. A file is closed
// once its estimated size reaches the target, checked every
// `rows_per_check` rows. Files are named
// <table location>/data/[<partition path>/]<prefix>-<n>.parquet. Close
// returns every file, indexed by its number. AbortAndDelete aborts open files
// and deletes the closed ones (for a batch that will definitely not commit).
// Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/spec/partition_spec.h"
#include "iceberg/spec/schema.h"
#include "iceberg/writer/data_file_writer.h"
#include "io/file_io.h"

namespace floe::ingest {

struct RowLocation {
  int32_t file = 0;
  int64_t position = 0;
};

struct BatchDataWriterOptions {
  iceberg::DataFileWriterOptions file;
  int64_t target_file_size = int64_t{128} << 20;
  int64_t rows_per_check = 8192;
  std::string file_prefix;
};

class BatchDataWriter {
 public:
  // `schema` is the table schema the batches conform to; `spec` its partition spec.
  static Result<std::unique_ptr<BatchDataWriter>> Make(FileIO& io, std::string table_location,
                                                       iceberg::Schema schema, iceberg::PartitionSpec spec,
                                                       BatchDataWriterOptions options);
  ~BatchDataWriter();

  // Appends to `locations` one entry per row of `batch`, in row order.
  Status Write(const RecordBatch& batch, std::vector<RowLocation>* locations);
  // The path of data file number `file`.
  const std::string& path(int32_t file) const { return paths_[static_cast<size_t>(file)]; }
  int32_t files_opened() const { return static_cast<int32_t>(paths_.size()); }

  Result<std::vector<iceberg::DataFile>> Close();
  void AbortAndDelete();

 private:
  struct PartitionFiles {
    std::vector<iceberg::Literal> tuple;
    std::string directory;
    std::unique_ptr<iceberg::DataFileWriter> current;
    int32_t current_number = -1;
  };

  BatchDataWriter(FileIO& io, std::string table_location, iceberg::Schema schema, iceberg::PartitionSpec spec,
                  BatchDataWriterOptions options);
  Result<PartitionFiles*> PartitionFor(const std::vector<iceberg::Literal>& tuple);
  // Row i of `rows` lands in (*locations)[slots ? (*slots)[i] : first_slot + i].
  Status WriteToPartition(PartitionFiles& partition, const RecordBatch& rows, size_t first_slot,
                          const std::vector<int64_t>* slots, std::vector<RowLocation>* locations);
  Status CloseCurrent(PartitionFiles& partition);

  FileIO& io_;
  std::string table_location_;
  iceberg::Schema schema_;
  iceberg::PartitionSpec spec_;
  BatchDataWriterOptions options_;
  std::map<std::string, PartitionFiles> partitions_;  // by an exact encoding of the tuple
  std::vector<std::string> paths_;                    // by file number
  std::vector<iceberg::DataFile> closed_;             // by file number; empty path while open
};

}  // namespace floe::ingest
