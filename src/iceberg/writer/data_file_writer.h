// Writers of Iceberg data files (Parquet): one file, and rolling files fanned
// out over partitions that report where each row landed.
//
// Contract: files carry field_id on every Parquet schema element (from the
// Iceberg schema via ToFloeSchema), the footer key "iceberg.schema" (the
// schema JSON) and Iceberg's physical mapping (timestamps INT64 micros,
// decimals INT32/INT64/FLBA by precision, uuid FLBA(16)). Close returns the
// DataFile entry: exact size and record count, per leaf field id the column
// size, value count (list/map leaves count elements), null count and NaN
// count (float/double), bounds as single values truncated to 16 code points
// or bytes (upper rounded up, or omitted) for leaves outside lists and maps,
// and the row-group offsets as split_offsets. Writers are not thread-safe;
// the FileIO passed in must outlive them. A writer destroyed before Close
// leaves no file behind.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/file_writer.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/spec/partition_spec.h"
#include "iceberg/spec/schema.h"
#include "io/file_io.h"

namespace floe::iceberg {

struct DataFileWriterOptions {
  parquet::ParquetWriterOptions parquet;  // "iceberg.schema" is added to its key-value metadata
  int32_t spec_id = 0;
  std::optional<int32_t> sort_order_id;
  int32_t bound_length = 16;  // truncate(16), Iceberg's default metrics mode
  // Columns whose bounds are kept whole (position deletes' file_path).
  std::set<int32_t> untruncated_bound_ids;
};

class DataFileWriter {
 public:
  // Batches written must have the columns of ToFloeSchema(schema).
  static Result<std::unique_ptr<DataFileWriter>> Open(FileIO& io, const std::string& path,
                                                      const Schema& schema, std::vector<Literal> partition,
                                                      DataFileWriterOptions options);
  ~DataFileWriter();

  Status Write(const RecordBatch& batch);
  Result<DataFile> Close();
  void Abort();

  const std::string& path() const { return path_; }
  int64_t rows_written() const;
  int64_t EstimatedFileSize() const;
  // Writes the buffered rows out as a row group (no-op when none).
  Status FlushRowGroup();

 private:
  DataFileWriter(std::string path, Schema schema, std::vector<Literal> partition,
                 DataFileWriterOptions options, std::unique_ptr<parquet::ParquetFileWriter> writer)
      : path_(std::move(path)),
        schema_(std::move(schema)),
        partition_(std::move(partition)),
        options_(std::move(options)),
        writer_(std::move(writer)) {}

  std::string path_;
  Schema schema_;
  std::vector<Literal> partition_;
  DataFileWriterOptions options_;
  std::unique_ptr<parquet::ParquetFileWriter> writer_;
};

// Fills a DataFile's metrics from what the Parquet writer reported; exposed
// for tests and for delete-file writers.
Status FillDataFileMetrics(const Schema& schema, const parquet::WrittenParquetFile& written,
                           const DataFileWriterOptions& options, DataFile* file);

struct RollingWriterOptions {
  DataFileWriterOptions file;
  int64_t target_file_size = int64_t{128} << 20;
  // Rows handed to the current file between size checks.
  int64_t rows_per_check = 8192;
  // File names are "<prefix>-<n>.parquet"; empty = a new random UUID.
  std::string file_prefix;
};

// Where a written row landed: the number of its data file (files are numbered
// 0, 1, ... in the order the writer opens them, across partitions) and its
// 0-based position in that file — what a position delete or a deletion vector
// names.
struct RowLocation {
  int32_t file = 0;
  int64_t position = 0;
};

// Writes rows into rolling data files, one sequence of files per partition:
// <table location>/data/[<partition path>/]<prefix>-<n>.parquet, n the file's
// number. A partition's open file is closed once its estimated size reaches
// the target (checked every `rows_per_check` rows) and the partition's next
// rows start a new file. Rows keep the order given within each partition;
// partitions are opened in the order their first row arrives, so the same
// input gives the same files.
//
// Close returns every file, indexed by its number, and keeps them: path(n)
// still answers, and AbortAndDelete still deletes them (for a commit that
// definitely failed). Abort discards only the open files; closed files stay
// and belong to the caller.
class PartitionedWriter {
 public:
  // Routes each row by the spec's transforms (an unpartitioned spec has one
  // partition, the empty tuple).
  static Result<std::unique_ptr<PartitionedWriter>> Make(FileIO& io, std::string table_location,
                                                         const Schema& schema, const PartitionSpec& spec,
                                                         RollingWriterOptions options);
  // Writes every row into `partition`, a tuple of `spec` (compaction rewrites
  // the rows of one partition, possibly of an older spec).
  static Result<std::unique_ptr<PartitionedWriter>> MakeForPartition(FileIO& io, std::string table_location,
                                                                     const Schema& schema,
                                                                     const PartitionSpec& spec,
                                                                     std::vector<Literal> partition,
                                                                     RollingWriterOptions options);
  ~PartitionedWriter();

  // Batches have the columns of ToFloeSchema(schema). With `locations`,
  // appends one entry per row of `batch`, in row order.
  Status Write(const RecordBatch& batch, std::vector<RowLocation>* locations = nullptr);
  // The path of data file number `file` (< files_opened()).
  const std::string& path(int32_t file) const { return paths_[static_cast<size_t>(file)]; }
  int32_t files_opened() const { return static_cast<int32_t>(paths_.size()); }

  Result<std::vector<DataFile>> Close();
  void Abort();
  void AbortAndDelete();

 private:
  struct PartitionFiles {
    std::vector<Literal> tuple;
    std::string directory;
    std::unique_ptr<DataFileWriter> current;
    int32_t current_number = -1;
  };

  PartitionedWriter(FileIO& io, std::string table_location, Schema schema, PartitionSpec spec,
                    std::optional<std::vector<Literal>> fixed_partition, RollingWriterOptions options);
  static Result<std::unique_ptr<PartitionedWriter>> MakeWriter(
      FileIO& io, std::string table_location, const Schema& schema, const PartitionSpec& spec,
      std::optional<std::vector<Literal>> fixed_partition, RollingWriterOptions options);
  Result<PartitionFiles*> PartitionFor(std::string key, const std::vector<Literal>& tuple);
  // Row i of `rows` lands in (*locations)[slots ? (*slots)[i] : first_slot + i].
  Status WriteToPartition(PartitionFiles& partition, const RecordBatch& rows, size_t first_slot,
                          const std::vector<int64_t>* slots, std::vector<RowLocation>* locations);
  Status CloseCurrent(PartitionFiles& partition);

  FileIO& io_;
  std::string table_location_;
  Schema schema_;
  PartitionSpec spec_;
  std::optional<std::vector<Literal>> fixed_partition_;
  RollingWriterOptions options_;
  std::map<std::string, PartitionFiles> partitions_;  // by an exact encoding of the tuple
  std::vector<std::string> paths_;                    // by file number
  std::vector<DataFile> closed_;                      // by file number; empty path while open
};

// The partition tuple of every row of `batch` (columns of ToFloeSchema(schema)).
Result<std::vector<std::vector<Literal>>> ComputePartitionTuples(const Schema& schema,
                                                                 const PartitionSpec& spec,
                                                                 const RecordBatch& batch);

}  // namespace floe::iceberg
