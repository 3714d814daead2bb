// Pipeline: discover -> ledger -> batches -> TableIngestor -> ledger, for
// every table of a source, once or continuously.
//
// Contract:
// - Start-up recovery: every open batch in the ledger is resolved against
//   its table: committed when a snapshot in the table's history carries this
//   pipeline's name and the batch id (the ledger is then marked committed),
//   otherwise released and redone. Nothing is committed twice or lost
//   whatever moment the previous process died at.
// - RunOnce discovers, records, and processes every table's pending files in
//   order_key order in batches bounded by max_files_per_batch and
//   max_bytes_per_batch, until nothing is pending; tables are independent:
//   one failing table is reported and the others go on.
// - Run repeats RunOnce every trigger interval until `stop` becomes true
//   (checked between batches and during the wait; a batch in progress is
//   finished first).
// - Progress: a progress line on a terminal (files, rows, bytes, rate),
//   otherwise one log line per batch, to `log`.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "common/status.h"
#include "ingest/base/config.h"
#include "ingest/table_ingestor.h"

namespace floe::ingest {

struct TableRunSummary {
  std::string table;  // target identifier
  int64_t batches = 0;
  BatchCounts counts;
  int64_t quarantined = 0;
  std::string error;  // non-empty when the table stopped with an error
};

struct RunSummary {
  std::map<std::string, TableRunSummary> tables;
  int64_t batches_committed = 0;
  bool ok() const;  // no table error and nothing quarantined in this run
  // The per-table summary table printed at the end of a run.
  std::string Format() const;
};

struct PipelineOptions {
  bool progress_bar = false;    // true on a terminal
  std::ostream* log = nullptr;  // nullptr: std::cerr
};

class Pipeline {
 public:
  static Result<std::unique_ptr<Pipeline>> Open(PipelineConfig config, PipelineOptions options = {});
  ~Pipeline();
  Result<RunSummary> RunOnce();
  Result<RunSummary> Run(const std::atomic<bool>& stop);

 private:
  struct Impl;
  explicit Pipeline(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::ingest
