// Writers of Iceberg data files (Parquet): one file, a rolling sequence of
// files, and a fan-out over partitions.
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

// Writes one partition's rows into <table location>/data/[<partition path>/]
// <prefix>-<n>.parquet files, starting a new file once the current one's
// estimated size reaches the target.
class RollingDataFileWriter {
 public:
  static Result<std::unique_ptr<RollingDataFileWriter>> Make(FileIO& io, std::string table_location,
                                                             const Schema& schema, const PartitionSpec& spec,
                                                             std::vector<Literal> partition,
                                                             RollingWriterOptions options);
  Status Write(const RecordBatch& batch);
  // Closes the open file; returns every file written, in order.
  Result<std::vector<DataFile>> Close();
  // Aborts the open file; files already closed stay (the caller owns them).
  void Abort();

 private:
  RollingDataFileWriter(FileIO& io, std::string directory, Schema schema, std::vector<Literal> partition,
                        RollingWriterOptions options)
      : io_(io),
        directory_(std::move(directory)),
        schema_(std::move(schema)),
        partition_(std::move(partition)),
        options_(std::move(options)) {}
  Status RollIfNeeded();

  FileIO& io_;
  std::string directory_;
  Schema schema_;
  std::vector<Literal> partition_;
  RollingWriterOptions options_;
  std::unique_ptr<DataFileWriter> current_;
  std::vector<DataFile> written_;
  int file_counter_ = 0;
};

// Computes each row's partition tuple with the spec's transforms and routes
// rows to one RollingDataFileWriter per partition.
class PartitionedWriter {
 public:
  static Result<std::unique_ptr<PartitionedWriter>> Make(FileIO& io, std::string table_location,
                                                         const Schema& schema, const PartitionSpec& spec,
                                                         RollingWriterOptions options);
  Status Write(const RecordBatch& batch);
  Result<std::vector<DataFile>> Close();
  void Abort();

 private:
  PartitionedWriter(FileIO& io, std::string table_location, Schema schema, PartitionSpec spec,
                    RollingWriterOptions options)
      : io_(io),
        table_location_(std::move(table_location)),
        schema_(std::move(schema)),
        spec_(std::move(spec)),
        options_(std::move(options)) {}

  FileIO& io_;
  std::string table_location_;
  Schema schema_;
  PartitionSpec spec_;
  RollingWriterOptions options_;
  // Writer index by an exact encoding of the partition tuple.
  std::map<std::string, size_t> writer_index_;
  std::vector<std::unique_ptr<RollingDataFileWriter>> writers_;
};

// The partition tuple of every row of `batch` (columns of ToFloeSchema(schema)).
Result<std::vector<std::vector<Literal>>> ComputePartitionTuples(const Schema& schema,
                                                                 const PartitionSpec& spec,
                                                                 const RecordBatch& batch);

}  // namespace floe::iceberg
