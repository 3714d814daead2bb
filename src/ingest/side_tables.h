// Side tables: the rows a batch sets aside beside its target table —
// `<table>__bad_rows` (rows a change convention could not use),
// `<table>__quarantine` (rows that failed an expectation), `<table>__dead_letter`
// (stream records that could not be decoded) — committed exactly once with
// the batch, as ordinary Iceberg tables any engine reads.
//
// Protocol (one batch, any catalog):
//   1. Before the data commit, each side table is created if missing and its
//      schema evolved if the rows bring new columns (commits of their own:
//      harmless if the batch never commits — an empty table or an extra
//      nullable column), then the rows are written as Parquet data files
//      under the side table's location and listed in a pending manifest
//      (Avro, Iceberg's manifest format) under its metadata folder.
//   2. The data commit of the target table carries, per side table,
//      floe.side.<suffix> = <manifest length>:<manifest path> in its snapshot
//      summary. When a batch changes nothing in the target but has side
//      rows, the data commit is an empty append carrying the markers, so the
//      batch id is always recorded in the target table.
//   3. Right after the data commit, each side table gets an append of the
//      manifest's files whose summary carries floe.pipeline and
//      floe.batch-id of the batch (CompleteSideCommits).
// Recovery: whoever finds a batch committed in the target table (start-up
// recovery, a failed batch's resolution) runs CompleteSideCommits on that
// snapshot before marking the batch committed; a side table whose history
// already holds the batch is skipped, so a crash at any point — before the
// data commit (the batch is redone; its unreferenced files are orphans),
// between the commits, or after — leaves every side row committed once.
// The pending files must outlive the time to recovery: orphan removal keeps
// files younger than [maintenance] orphan_older_than (default 3 days).
//
// Not thread-safe; one SideTables per batch.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "catalog/table/catalog.h"
#include "columnar/column.h"
#include "common/status.h"
#include "iceberg/spec/snapshot.h"

namespace floe::ingest {

inline constexpr const char* kSummarySidePrefix = "floe.side.";

// The side tables' suffixes. Rows that could not be changes: <table>__bad_rows.
inline constexpr const char* kBadRowsSuffix = "bad_rows";
// Stream records that could not be decoded: <table>__dead_letter.
inline constexpr const char* kDeadLetterSuffix = "dead_letter";
// Rows failing a quarantine expectation: <table>__quarantine (quarantine_rows.h).
inline constexpr const char* kQuarantineSuffix = "quarantine";

// The identifier of side table `suffix` of `table`: <ns>.<table>__<suffix>.
catalog::TableIdentifier SideTableId(const catalog::TableIdentifier& table, const std::string& suffix);

class SideTables {
 public:
  // Rows for side table `suffix` ("bad_rows", "quarantine", "dead_letter").
  // Batches of one suffix may differ in schema (quarantined rows carry their
  // unit's columns): the side table evolves to take each, like a target
  // table (new columns added, widenings promoted, incompatible values
  // rescued into _rescued_data).
  Status Add(const std::string& suffix, RecordBatch rows);
  bool empty() const { return rows_.empty(); }
  // Rows collected per suffix (for counts and messages).
  std::map<std::string, int64_t> RowCounts() const;

  // Step 1: side tables created or evolved, rows written, pending manifests
  // written. Returns the summary entries for the data commit (step 2). On
  // error every file written so far is deleted.
  Result<std::map<std::string, std::string>> WritePending(catalog::Catalog& catalog,
                                                          const catalog::TableIdentifier& table,
                                                          const std::string& file_prefix, int format_version);
  // Deletes the pending files (the data commit definitely failed).
  void AbortPending(catalog::Catalog& catalog);

 private:
  struct Pending {
    catalog::TableIdentifier side;
    std::vector<std::string> files;  // data files and the manifest
  };
  std::map<std::string, std::vector<RecordBatch>> rows_;  // batches of one schema are joined
  std::vector<Pending> pending_;
};

// Step 3 (and recovery): every floe.side.* marker of `snapshot` (a commit of
// `table` by `pipeline` for `batch_id`) appended to its side table unless the
// side table's history already holds the batch.
Status CompleteSideCommits(catalog::Catalog& catalog, const catalog::TableIdentifier& table,
                           const iceberg::Snapshot& snapshot, const std::string& pipeline, int64_t batch_id);

}  // namespace floe::ingest
