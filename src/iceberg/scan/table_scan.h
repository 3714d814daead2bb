// TableScan: plans and reads the rows of one Iceberg table snapshot.
//
// Contract: a scan reads one snapshot (the current one unless an id is
// given; a time-travel scan uses the snapshot's schema), projects the
// selected columns by field id, and applies an AND of simple predicates:
// manifests are pruned by partition summaries, data files by partition
// values (inclusive projection) and column metrics, and the rows read are
// filtered exactly. PlanFiles pairs every live data file with the delete
// files that apply to it (table spec "Scan Planning"): position deletes and
// deletion vectors when their data sequence number is >= the data file's and
// they share spec and partition (or name the file in referenced_data_file);
// equality deletes when their sequence number is > the data file's and they
// share spec and partition, or are unpartitioned (global). A TaskReader
// returns the task's live rows one Parquet row group at a time, as batches
// of ToFloeSchema(projected_schema()), plus a trailing `_pos` column (each
// row's position in its data file, field id kDeletePosFieldId) when
// ScanOptions::with_row_positions is set. With row_lineage the projection
// ends with the two lineage columns, read from the file where present and
// non-null, else inherited (the file's first_row_id + position, its data
// sequence number). Errors name the file they come from.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/manifest/manifest_types.h"
#include "iceberg/scan/predicate.h"
#include "iceberg/spec/table_metadata.h"
#include "io/file_io.h"

namespace floe::iceberg {

struct ScanOptions {
  std::optional<int64_t> snapshot_id;               // nullopt: the current snapshot
  std::optional<std::vector<std::string>> columns;  // top-level names; nullopt: every column
  std::vector<Predicate> filter;                    // AND of these
  // Read every file onto this schema instead of the snapshot's (e.g. the
  // schema of a commit being prepared); field ids decide, as always.
  std::optional<Schema> read_schema;
  // Append `_pos` (long): the row's position in its data file.
  bool with_row_positions = false;
  // Append _row_id and _last_updated_sequence_number (row_lineage.h) to the
  // projection, with inherited values filled in: what a rewrite must copy.
  bool row_lineage = false;
};

// The name of the row-position column a scan appends.
inline constexpr const char* kRowPositionColumn = "_pos";

// A data or delete file with the data sequence number it carries.
struct ScanFile {
  DataFile file;
  int64_t data_sequence_number = 0;
};

struct FileScanTask {
  ScanFile data;
  std::vector<ScanFile> deletes;  // position deletes, deletion vectors, equality deletes
};

// Whether delete file `deletes` applies to data file `data` (rules above).
bool DeleteApplies(const ScanFile& deletes, const ScanFile& data);

// The partition struct type of spec `spec_id`, over `preferred` or, when a
// source column is no longer there, the first schema of the table that has
// them all. An unknown spec id is Corruption.
Result<Type> PartitionTypeOfSpec(const TableMetadata& metadata, int32_t spec_id, const Schema& preferred);

// The entries of one manifest, read and typed for `metadata`'s specs, with
// delete files of unpartitioned specs marked global (partition cleared) as
// DeleteApplies expects.
Result<std::vector<ManifestEntry>> ReadScanManifest(FileIO& io, const TableMetadata& metadata,
                                                    const ManifestFile& manifest, const Schema& schema);

class TaskReader {
 public:
  virtual ~TaskReader() = default;
  // The next non-empty batch of live rows, or nullopt at the end.
  virtual Result<std::optional<RecordBatch>> Next() = 0;
};

class TableScan {
 public:
  static Result<std::unique_ptr<TableScan>> Make(TableMetadata metadata, std::shared_ptr<FileIO> io,
                                                 ScanOptions options = {});

  // nullopt when the table has no snapshot (the scan is empty).
  std::optional<int64_t> snapshot_id() const;
  const Schema& table_schema() const { return schema_; }
  const Schema& projected_schema() const { return projected_; }
  const floe::Schema& output_schema() const { return output_schema_; }

  Result<std::vector<FileScanTask>> PlanFiles();
  // Thread-safe: tasks of one scan may be opened and read on several threads.
  Result<std::unique_ptr<TaskReader>> Open(const FileScanTask& task) const;
  // Like Open, but returns only the live rows among `positions` (ascending,
  // distinct positions in the data file): row groups without one are
  // skipped, and within the others only the pages holding them are decoded
  // where the file has an offset index (ParquetFileReader::ReadRowGroupRows).
  Result<std::unique_ptr<TaskReader>> OpenPositions(const FileScanTask& task,
                                                    std::vector<int64_t> positions) const;

 private:
  TableScan() = default;
  Result<std::unique_ptr<TaskReader>> OpenTask(const FileScanTask& task,
                                               std::optional<std::vector<int64_t>> positions) const;

  TableMetadata metadata_;
  std::shared_ptr<FileIO> io_;
  std::optional<Snapshot> snapshot_;
  Schema schema_;
  Schema projected_;
  floe::Schema output_schema_;
  std::vector<BoundPredicate> filter_;
  bool with_row_positions_ = false;
  bool row_lineage_ = false;
};

}  // namespace floe::iceberg
