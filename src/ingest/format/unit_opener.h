// UnitOpener: where the discovery and format axes of the source model meet —
// opens a discovered unit (a file, a stream range) as a
// formats::ChunkedReader, so everything after it (change conventions, the
// merge, the writers) reads every source the same way.
//
// Contract: Open is thread-safe (pass 1 and pass 2 open units on worker
// threads). An error names the unit; a retryable error (an object store or
// broker that kept failing) is not the unit's fault, so the caller fails the
// batch instead of quarantining the unit. Opening a unit twice yields the
// same schema, chunks and rows (files are immutable once discovered, stream
// ranges are fixed offsets).
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "formats/chunked_reader.h"
#include "ingest/format/file_format.h"
#include "ingest/units/source_unit.h"
#include "io/file_io.h"

namespace floe::ingest {

class UnitOpener {
 public:
  virtual ~UnitOpener() = default;
  // `table_columns`: see FileFormat::Open; the same for every open of a unit
  // in one batch (both passes must read the same rows).
  virtual Result<std::unique_ptr<formats::ChunkedReader>> Open(const SourceUnit& unit,
                                                               const Schema& table_columns) = 0;
  // Stream units: the unit's records that could not become rows, as rows of
  // <table>__dead_letter (the same for every open of the unit in a batch),
  // and how many were dropped without a row there ([source] on_bad_record =
  // "skip"). Files have none.
  // Called once before a batch's units are opened: a stream opener fetches
  // every range of the batch together (one request per broker for all their
  // partitions) instead of one range at a time. Files: nothing to do. An
  // error is not fatal: each Open fetches what Prepare did not.
  virtual Status Prepare(const std::vector<SourceUnit>& batch) {
    (void)batch;
    return Status::OK();
  }
  // Called after `batch` committed to its table: a stream opener tells the
  // source where the batch ended (Kafka: the consumer group's offsets, for
  // lag tools). Advisory: an error changes nothing floe reads.
  virtual Status Committed(const std::vector<SourceUnit>& batch) {
    (void)batch;
    return Status::OK();
  }
  // The pipeline's stop flag: an opener that waits on a remote source (a
  // broker) gives up when it becomes true. Files: nothing waits.
  virtual void SetStopFlag(const std::atomic<bool>* stop) { (void)stop; }
  struct DeadLetters {
    std::optional<RecordBatch> rows;
    int64_t skipped = 0;
  };
  virtual Result<DeadLetters> DeadLettersOf(const SourceUnit& unit, const Schema& table_columns) {
    (void)unit;
    (void)table_columns;
    return DeadLetters{};
  }
};

// File units: `unit.uri` through `io`, decoded by `format`, with the unit's
// Hive partition values as columns (partition_columns.h; `partition_types`
// is [source] partition_column_types).
class FileUnitOpener final : public UnitOpener {
 public:
  FileUnitOpener(std::shared_ptr<FileIO> io, std::shared_ptr<const FileFormat> format,
                 std::map<std::string, std::string> partition_types = {})
      : io_(std::move(io)), format_(std::move(format)), partition_types_(std::move(partition_types)) {}
  Result<std::unique_ptr<formats::ChunkedReader>> Open(const SourceUnit& unit,
                                                       const Schema& table_columns) override;

 private:
  std::shared_ptr<FileIO> io_;
  std::shared_ptr<const FileFormat> format_;
  const std::map<std::string, std::string> partition_types_;
};

}  // namespace floe::ingest
