// Internal to the ledger (ledger.cc: units and batches; ledger_activity.cc:
// what status and metrics read): its database (ledger_database.h).
// Not for use outside src/ingest/state.
#pragma once

#include <algorithm>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ingest/state/ledger.h"
#include "ingest/state/ledger_database.h"

namespace floe::ingest {

// The layout this floe writes (see ledger.cc); read-only opens of an older
// ledger answer what it holds.
inline constexpr int64_t kLedgerSchemaVersion = 4;

int64_t LedgerNowMs();

// A stream position as stored (zero-padded) back to its decimal text.
std::string UnpadLedgerPosition(const std::string& padded);

// The columns Impl::ReadFileRow reads, in its order.
extern const char* const kLedgerFileColumns;

struct Ledger::Impl {
  std::unique_ptr<LedgerDatabase> db;
  std::string db_path;  // names the ledger in errors (db->name())
  bool read_only = false;
  int64_t schema_version = 0;  // of the database as opened
  bool postgres = false;       // [state] uri: shared by workers
  LedgerFence fence;           // empty: no fencing (Ledger::SetFence)

  // Inside a write transaction: kFenced unless this worker's lease of
  // `table` is current (locks the lease row until the transaction ends).
  Status CheckFence(const std::string& table);

  Result<LedgerStatement> Prepare(const std::string& sql);
  Status Exec(const std::string& sql);

  // Runs `body` in one transaction: a reader takes a snapshot (DEFERRED), a
  // writer the write lock up front (IMMEDIATE); any error rolls back.
  Status Transaction(const std::function<Status()>& body);

  Result<LedgerFile> ReadFileRow(const LedgerStatement& row);

  Result<std::vector<LedgerFile>> QueryFiles(LedgerStatement& query);

  // What the ledger holds of each of `uris` it knows (the others are absent),
  // read kUrisPerStatement at a time: a few round trips, not one per unit.
  static constexpr size_t kUrisPerStatement = 200;
  struct KnownFile {
    std::string table;
    int64_t size = 0;
    int64_t mtime_ms = 0;
    FileState state = FileState::kDiscovered;
    std::string reason;
  };
  Result<std::map<std::string, KnownFile>> LookUpFiles(const std::vector<std::string>& uris);

  // The state of `uri`, or NotFound.
  Result<std::pair<std::string, FileState>> TableAndState(const std::string& uri);

  // Moves `uri` to quarantined/skipped when its state is one of `allowed_from`;
  // it leaves its batch (batch_id is set only for in_batch/committed files).
  Status SetAside(const std::string& uri, FileState target, const std::string& reason,
                  std::initializer_list<FileState> allowed_from);

  Status CreateSchema();
};

}  // namespace floe::ingest
