// Discovery: the discovery axis of the source model — which units of work
// exist and when each is complete. Listing discoveries find files: the CDA
// manifest and its folders (cda_discovery.h), a prefix with globs and Hive
// folders (prefix_discovery.h).
//
// Contract: Discover lists the landing zone through the discovery's FileIO
// and returns, per table, the units that are complete and may be ingested
// now (CDA: Parquet files in committed timestamp folders; prefix: data files
// of the format that settled), each with its order_key. It never returns a file of an
// uncommitted folder. Problems that concern one table (a CDA reset, a table
// missing from the manifest) come back in `table_errors` and do not stop the
// other tables; a problem with the landing zone itself (manifest.json
// unreadable or malformed, root missing) is the returned error, naming the
// URI. Discover does not touch the ledger; `watermarks` are the previous
// run's (from the ledger) and `new_watermarks` what to store once the files
// are recorded.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/units/source_unit.h"
#include "io/file_io.h"

namespace floe::ingest {

struct DiscoveryResult {
  std::vector<SourceUnit> files;
  std::map<std::string, std::string> table_errors;  // table -> message
  // CDA: the manifest's values for every table seen, except tables in
  // `table_errors` (their previous watermark must stay so that a reset keeps
  // being reported until the user acts).
  std::vector<TableWatermark> new_watermarks;
  // Tables the source saw (with or without new files), sorted.
  std::vector<std::string> tables;
  // Things the user should know that stop nothing (e.g. a CDA fingerprint
  // folder that is not in schemaHistory, whose files are ignored).
  std::vector<std::string> warnings;
  // CDA with reload_on_reset: tables whose export was reset. The pipeline
  // forgets their ledger state and target table, then loads `files` (which
  // hold the whole current export of those tables) from scratch.
  std::vector<std::string> reset_tables;
  // Files left out because they may still be written to ([source] settle):
  // how many, and when the first and the last of them become eligible.
  struct Settling {
    int64_t files = 0;
    int64_t first_eligible_ms = 0;
    int64_t last_eligible_ms = 0;
  } settling;
  // The source uri does not exist (allowed by [source] allow_missing_uri).
  bool source_missing = false;
  // Streams: every partition seen, with the positions the source holds
  // (Kafka: the low and high watermarks), for lag figures.
  struct StreamMarks {
    std::string stream;
    std::string partition;
    std::string table;
    int64_t low = 0;
    int64_t high = 0;  // one past the newest record
  };
  std::vector<StreamMarks> stream_marks;
};

class Discovery {
 public:
  virtual ~Discovery() = default;
  virtual Result<DiscoveryResult> Discover(const std::map<std::string, TableWatermark>& watermarks,
                                           int64_t now_ms) = 0;
  // Streams: per (stream, partition), the last position of the ranges the
  // ledger holds (Ledger::StreamEnds); the pipeline sets it before every
  // Discover, and the next range of a partition starts right after it.
  // File discoveries ignore it.
  virtual void SetStreamEnds(const std::map<std::pair<std::string, std::string>, std::string>& ends) {
    (void)ends;
  }
  // Whether this discovery finds stream ranges (and wants SetStreamEnds).
  virtual bool finds_streams() const { return false; }
};

// Whether a listed path is a data file of the source's format (FileFormat::IsDataFile).
using DataFilePredicate = std::function<bool(std::string_view path)>;

// The discovery [source] discovery names, listing through `io`.
Result<std::unique_ptr<Discovery>> MakeDiscovery(const SourceConfig& config, std::shared_ptr<FileIO> io,
                                                 DataFilePredicate is_data_file);

}  // namespace floe::ingest
