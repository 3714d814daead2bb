// Discovery: the discovery axis of the source model — which units of work
// exist and when each is complete. Listing discoveries find files: the CDA
// manifest and its folders (cda_discovery.h), a prefix with globs and Hive
// folders (prefix_discovery.h). A notification discovery
// (notification_discovery.h) learns of new files from S3 event
// notifications in SQS or from inotify and lists only now and then
// (backfill); it yields the same units as the listing it wraps.
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
//
// Notifications: WaitForNotifications is the pipeline loop's wait between
// polls (a listing just sleeps); a notification discovery holds each
// notification until the units it announced are settled in the ledger, so
// after recording and after every batch the pipeline asks AwaitedUnits and
// answers with their fates (SettleUnits).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
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
    // Counts one more file, eligible at `eligible_at_ms`.
    void Add(int64_t eligible_at_ms) {
      if (files == 0 || eligible_at_ms < first_eligible_ms) first_eligible_ms = eligible_at_ms;
      last_eligible_ms = std::max(last_eligible_ms, eligible_at_ms);
      ++files;
    }
  } settling;
  // The source uri does not exist (allowed by [source] allow_missing_uri).
  bool source_missing = false;
  // A stream discovery stopped at its bound (bytes held, time) with more
  // records ready now: the pipeline polls again at once (also with --once).
  bool more_ready = false;
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

// What the ledger says of a unit a notification discovery awaits: done
// (committed, quarantined or skipped), pending (discovered or in a batch),
// or unknown (not recorded: its table was blocked, or the discovery left it
// out).
enum class UnitFate { kUnknown, kPending, kDone };

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
  // The key columns the units of source table `table` name themselves (a
  // floe table's change feed: the source table's identifier fields or its
  // recorded [merge] keys), known once Discover saw the table; empty: the
  // [merge] keys decide.
  virtual std::vector<std::string> KeyColumnsOf(const std::string& table) const {
    (void)table;
    return {};
  }

  // Blocks until notifications arrived (true: poll now), `until` passed or
  // `stop` became true (false). A listing has nothing to wait for: it
  // sleeps one step of at most 100 ms, so the caller sees a stop at once.
  virtual bool WaitForNotifications(std::chrono::steady_clock::time_point until,
                                    const std::atomic<bool>& stop);
  // The pipeline's stop flag (nullptr: none): a discovery waiting on a
  // remote source gives up when it becomes true.
  virtual void SetStopFlag(const std::atomic<bool>* stop) { (void)stop; }
  // Notification discoveries: the uris whose fate in the ledger they wait
  // for (the units their held notifications announced). Listings: none.
  virtual std::vector<std::string> AwaitedUnits() const { return {}; }
  // The ledger's answer for (some of) AwaitedUnits: a notification whose
  // units are all done is acknowledged (deleted from its queue). Returns
  // what the operator should hear (an acknowledgement that failed and is
  // tried again at the next call).
  virtual std::vector<std::string> SettleUnits(const std::map<std::string, UnitFate>& fates) {
    (void)fates;
    return {};
  }
};

// Whether a listed path is a data file of the source's format (FileFormat::IsDataFile).
using DataFilePredicate = std::function<bool(std::string_view path)>;

// The discovery [source] discovery names, listing through `io`.
Result<std::unique_ptr<Discovery>> MakeDiscovery(const SourceConfig& config, std::shared_ptr<FileIO> io,
                                                 DataFilePredicate is_data_file);

}  // namespace floe::ingest
