// Sources: discover the landing-zone files that are ready to ingest.
//
// Contract: Discover lists the landing zone through the source's FileIO and
// returns, per table, the files that are complete and may be ingested now
// (CDA: Parquet files in committed timestamp folders; prefix: Parquet files
// that settled), each with its order_key. It never returns a file of an
// uncommitted folder. Problems that concern one table (a CDA reset, a table
// missing from the manifest) come back in `table_errors` and do not stop the
// other tables; a problem with the landing zone itself (manifest.json
// unreadable or malformed, root missing) is the returned error, naming the
// URI. Discover does not touch the ledger; `watermarks` are the previous
// run's (from the ledger) and `new_watermarks` what to store once the files
// are recorded.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/units/source_unit.h"
#include "io/file_io.h"

namespace floe::ingest {

struct Discovery {
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
};

class Source {
 public:
  virtual ~Source() = default;
  virtual Result<Discovery> Discover(const std::map<std::string, TableWatermark>& watermarks,
                                     int64_t now_ms) = 0;
  // The FileIO that opens the discovered files' uris.
  virtual FileIO& io() = 0;
};

// The source described by `config` ("cda" or "parquet").
Result<std::unique_ptr<Source>> MakeSource(const SourceConfig& config, std::shared_ptr<FileIO> io);

}  // namespace floe::ingest
