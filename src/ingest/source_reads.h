// The reading side of TableIngestor's two passes over a batch's source
// files, written so it can run on worker threads ahead of the merge and the
// writer (see read_ahead.h), while the results are consumed in file order.
//
// Contract:
// - ScanSource (pass 1) opens a file, reads its footer, locates the change
//   columns and scans keys/ordering/operations. It touches only its
//   arguments (the FileIO must allow concurrent opens and reads, as the
//   local and S3 FileIOs do), so files may be scanned concurrently. The
//   caller checks, in this order: `failure` (open, footer, change columns),
//   its own schema reconciliation with reader->schema(), then `scan`, which
//   is what a serial loop doing the same steps would have found.
// - SourceRowGroupReader (pass 2) reads one row group of one file, keeps the
//   chosen rows and conforms them to the table schema. Files are opened on
//   their first read, reconciled with the table schema, and read one row
//   group at a time (a ParquetFileReader is not thread-safe: reads of one
//   file are serialised, reads of different files run concurrently). An
//   open, reconcile or read failure is reported by every later read of that
//   file, so the consumer meets it exactly where a serial loop would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/parquet/file_reader.h"
#include "iceberg/spec/schema.h"
#include "ingest/change_set.h"
#include "ingest/config/config.h"
#include "ingest/schema/schema_reconcile.h"
#include "ingest/units/source_unit.h"
#include "io/file_io.h"

namespace floe::ingest {

struct ScannedSource {
  size_t index = 0;  // the file's position in the batch
  Status failure;    // opening, footer or change columns: the quarantine reason
  std::shared_ptr<InputFile> input;
  std::unique_ptr<parquet::ParquetFileReader> reader;
  ChangeColumns columns;
  std::optional<Result<FileScan>> scan;  // set when `failure` is OK
  std::vector<int64_t> row_group_bytes;  // uncompressed size of each row group (footer, >= 0)
};

ScannedSource ScanSource(FileIO& io, const SourceUnit& source, size_t index, const MergeConfig& merge);

// One row group to read in pass 2.
struct RowGroupRead {
  size_t file = 0;              // index into SourceRowGroupReader's files
  int row_group = -1;           // -1: only open the file (it has no row groups to read)
  int64_t rows = 0;             // rows pass 1 saw in this row group (a different count is Corruption)
  int64_t row_group_start = 0;  // the file row of its first row
  // Merge mode: the rows (within the row group, ascending) to keep. Append
  // mode (nullopt): every row whose operation is not an ignore value.
  std::optional<std::vector<int64_t>> take;
  int64_t cost = 0;  // estimated bytes while decoded (the row group's uncompressed size)
};

struct DecodedRowGroup {
  Status status;
  bool file_fault = true;  // a failure of the file (quarantine) rather than of floe
  int64_t rows = 0;        // rows in the row group
  std::vector<int64_t> take;
  std::optional<RecordBatch> conformed;  // the kept rows in the table schema; unset when none
};

struct FileToRead {
  std::string uri;
  int operation_column = -1;  // append mode filtering; -1 = none
  size_t row_groups = 0;      // as pass 1 saw them
};

class SourceRowGroupReader {
 public:
  SourceRowGroupReader(FileIO& io, const iceberg::Schema& table_schema, ReconcileOptions reconcile,
                       const MergeConfig& merge, std::vector<FileToRead> files);

  // Thread-safe; see the contract above.
  DecodedRowGroup Read(const RowGroupRead& read);
  // Frees file `file`'s reader once every read of it has been consumed.
  void Release(size_t file);

 private:
  struct OpenFile {
    std::mutex mutex;  // guards everything below and serialises the reader
    bool attempted = false;
    Status status;
    bool file_fault = true;
    std::unique_ptr<parquet::ParquetFileReader> reader;
    std::optional<FileMapping> mapping;
  };
  void Open(const FileToRead& file, OpenFile* open);

  FileIO& io_;
  const iceberg::Schema& table_schema_;
  const ReconcileOptions reconcile_;
  const MergeConfig& merge_;
  const std::vector<FileToRead> files_;
  std::vector<std::unique_ptr<OpenFile>> open_;
};

}  // namespace floe::ingest
