// Ledger: files, batches and watermarks of one pipeline, on SQLite or
// PostgreSQL (ledger_database.h; the same tables and SQL on both).
//
// Layout (schema_version 4; older ledgers are migrated in place when a
// writer opens them: version 1 lacked the unit kind and stream range
// columns, version 2 the batches' stats and the tables' conditions,
// version 3 the expectation counts):
//   meta(key PRIMARY KEY, value)  schema_version, next_batch_id (batch ids
//                                 come from here so ResetTable/ReleaseBatch
//                                 never let an id be reused)
//   files(uri PRIMARY KEY, ...)   one row per source unit (a file, or a
//                                 stream range with its stream, partition
//                                 and positions, zero-padded to 130 digits so
//                                 SQL orders them); batch_id/batch_seq are
//                                 set exactly while the unit is in_batch or
//                                 committed
//   batches(batch_id PRIMARY KEY) open (committed = 0) or committed batches,
//                                 with what a committed one did (stats,
//                                 committed_at_ms; NULL when unknown)
//   watermarks(tbl PRIMARY KEY)   what the source saw of a table last time
//   table_conditions(tbl PRIMARY KEY)  a stopped or failing table's reason
//   batch_expectations(batch_id, name)  per committed batch and expectation:
//                                 rows checked, passed, failed
// List-valued columns (partition values, fingerprints) are stored as
// "&item&item" with '%', '&', '=' and control bytes percent-escaped, so an
// empty list and a list holding "" stay distinct.
#include "ingest/state/ledger.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>

#include "common/strings.h"
#include "ingest/state/ledger_impl.h"

namespace floe::ingest {
namespace {

// Stream positions are stored left-padded to this many digits: Kinesis
// sequence numbers have up to 129 (the API's pattern 0|[1-9][0-9]{0,128}).
constexpr size_t kPositionDigits = 130;

int64_t NowMs() {
  return LedgerNowMs();
}

// RecordUnits inserts new units this many to a statement. Measured on
// PostgreSQL (a first poll of 712 files): one row a statement 93-115 ms, 32
// rows 37-40 ms, 256 rows 50-67 ms (the server's parse and bind of thousands
// of parameters outgrow the round trips saved).
constexpr size_t kRecordRowsPerInsert = 32;
constexpr int kDiscoveredFileColumns = 14;

// "INSERT INTO files(...) VALUES (...), (...)" for `rows` new units, the
// parameters of row r numbered r * kDiscoveredFileColumns + 1 onwards.
std::string InsertDiscoveredFilesSql(size_t rows) {
  std::string sql =
      "INSERT INTO files(uri, tbl, size, mtime_ms, order_key, fingerprint, folder_ts, "
      "partition_values, state, reason, discovered_at_ms, updated_at_ms, kind, stream, "
      "stream_partition, first_position, last_position) VALUES ";
  for (size_t row = 0; row < rows; ++row) {
    const size_t base = row * kDiscoveredFileColumns;
    auto p = [&](size_t column) { return "?" + std::to_string(base + column); };
    if (row > 0) sql += ", ";
    sql += "(" + p(1) + ", " + p(2) + ", " + p(3) + ", " + p(4) + ", " + p(5) + ", " + p(6) + ", " + p(7) +
           ", " + p(8) + ", 'discovered', '', " + p(9) + ", " + p(9) + ", " + p(10) + ", " + p(11) + ", " +
           p(12) + ", " + p(13) + ", " + p(14) + ")";
  }
  return sql;
}

std::string Escape(const std::string& text) {
  std::string out;
  for (unsigned char c : text) {
    if (c == '%' || c == '&' || c == '=' || c < 0x20 || c == 0x7f) {
      out += '%';
      out += kUpperHexDigits[c >> 4];
      out += kUpperHexDigits[c & 0xf];
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

std::string EncodeList(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& item : items) out += "&" + Escape(item);
  return out;
}

std::optional<std::vector<std::string>> DecodeList(std::string_view text) {
  std::vector<std::string> items;
  if (text.empty()) return items;
  if (text[0] != '&') return std::nullopt;
  size_t start = 1;
  while (true) {
    size_t end = text.find('&', start);
    std::string_view item =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    auto decoded = PercentDecode(item);
    if (!decoded) return std::nullopt;
    items.push_back(std::move(*decoded));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return items;
}

std::string EncodePartitionValues(const std::vector<std::pair<std::string, std::string>>& values) {
  std::vector<std::string> items;
  for (const auto& [key, value] : values) items.push_back(Escape(key) + "=" + Escape(value));
  // Items are already escaped; join without escaping again.
  std::string out;
  for (const std::string& item : items) out += "&" + item;
  return out;
}

std::optional<std::vector<std::pair<std::string, std::string>>> DecodePartitionValues(std::string_view text) {
  std::vector<std::pair<std::string, std::string>> values;
  if (text.empty()) return values;
  if (text[0] != '&') return std::nullopt;
  size_t start = 1;
  while (true) {
    size_t end = text.find('&', start);
    std::string_view item =
        text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    size_t equals = item.find('=');
    if (equals == std::string_view::npos) return std::nullopt;
    auto key = PercentDecode(item.substr(0, equals));
    auto value = PercentDecode(item.substr(equals + 1));
    if (!key || !value) return std::nullopt;
    values.emplace_back(std::move(*key), std::move(*value));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return values;
}

std::string PadPosition(const std::string& position) {
  return std::string(kPositionDigits - std::min(position.size(), kPositionDigits), '0') + position;
}

// A position as the ledger accepts it: 1 to 129 decimal digits, no leading zero.
bool IsPosition(const std::string& position) {
  if (position.empty() || position.size() >= kPositionDigits) return false;
  if (position.size() > 1 && position[0] == '0') return false;
  return std::all_of(position.begin(), position.end(), [](char c) { return c >= '0' && c <= '9'; });
}

const char* UnitKindName(UnitKind kind) {
  return kind == UnitKind::kStreamRange ? "stream_range" : "file";
}

std::optional<FileState> ParseFileState(std::string_view name) {
  for (FileState state : {FileState::kDiscovered, FileState::kInBatch, FileState::kCommitted,
                          FileState::kQuarantined, FileState::kSkipped}) {
    if (name == FileStateName(state)) return state;
  }
  return std::nullopt;
}

}  // namespace

const char* const kLedgerFileColumns =
    "uri, tbl, size, mtime_ms, order_key, fingerprint, folder_ts, partition_values, state, batch_id, "
    "snapshot_id, reason, discovered_at_ms, updated_at_ms, kind, stream, stream_partition, first_position, "
    "last_position";

std::string UnpadLedgerPosition(const std::string& padded) {
  const size_t first = padded.find_first_not_of('0');
  return first == std::string::npos ? "0" : padded.substr(first);
}

int64_t LedgerNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

const char* FileStateName(FileState state) {
  switch (state) {
    case FileState::kDiscovered: return "discovered";
    case FileState::kInBatch: return "in_batch";
    case FileState::kCommitted: return "committed";
    case FileState::kQuarantined: return "quarantined";
    case FileState::kSkipped: return "skipped";
  }
  return "unknown";
}

Result<LedgerStatement> Ledger::Impl::Prepare(const std::string& sql) {
  return db->Prepare(sql);
}

Status Ledger::Impl::Exec(const std::string& sql) {
  return db->Exec(sql);
}

Status Ledger::Impl::Transaction(const std::function<Status()>& body) {
  return db->Transaction(body, !read_only);
}

Status Ledger::Impl::CheckFence(const std::string& table) {
  if (!fence) return Status::OK();
  const std::optional<TableLease> lease = fence(table);
  if (!lease) {
    return Status::Fenced("table " + table +
                          " is not leased to this worker (worker_leases); nothing was changed");
  }
  // FOR SHARE: a worker taking the lease over waits until this transaction ends.
  FLOE_ASSIGN_OR_RETURN(LedgerStatement current,
                        Prepare("SELECT 1 FROM table_leases WHERE tbl = ?1 AND worker_id = ?2 AND epoch = ?3 "
                                "FOR SHARE"));
  current.Bind(1, lease->leased_table.empty() ? table : lease->leased_table)
      .Bind(2, lease->worker_id)
      .Bind(3, lease->epoch);
  FLOE_ASSIGN_OR_RETURN(bool held, current.Step());
  if (!held) {
    return Status::Fenced("table " + table + ": this worker's lease (epoch " + std::to_string(lease->epoch) +
                          ") is no longer current: another worker took the table over; nothing was changed");
  }
  return Status::OK();
}

Result<std::map<std::string, Ledger::Impl::KnownFile>> Ledger::Impl::LookUpFiles(
    const std::vector<std::string>& uris) {
  std::map<std::string, KnownFile> known;
  for (size_t start = 0; start < uris.size(); start += kUrisPerStatement) {
    const size_t count = std::min(kUrisPerStatement, uris.size() - start);
    std::string sql = "SELECT uri, tbl, size, mtime_ms, state, reason FROM files WHERE uri IN (";
    for (size_t i = 0; i < count; ++i) sql += (i ? ", ?" : "?") + std::to_string(i + 1);
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query, Prepare(sql + ")"));
    for (size_t i = 0; i < count; ++i) query.Bind(static_cast<int>(i + 1), uris[start + i]);
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) break;
      const std::string state_name = query.Text(4);
      auto state = ParseFileState(state_name);
      if (!state) {
        return Status::Corruption(db_path + ": file " + query.Text(0) + " has unknown state \"" + state_name +
                                  "\"");
      }
      known[query.Text(0)] = KnownFile{query.Text(1), query.Int(2), query.Int(3), *state, query.Text(5)};
    }
  }
  return known;
}

Status Ledger::SetFence(LedgerFence fence) {
  if (!impl_->postgres)
    return Status::InvalidArgument("ledger " + impl_->db_path +
                                   ": only a PostgreSQL ledger is shared by workers");
  impl_->fence = std::move(fence);
  return Status::OK();
}

Result<LedgerFile> Ledger::Impl::ReadFileRow(const LedgerStatement& row) {
  LedgerFile out;
  out.file.uri = row.Text(0);
  out.file.table = row.Text(1);
  out.file.size = row.Int(2);
  out.file.mtime_ms = row.Int(3);
  out.file.order_key = row.Text(4);
  out.file.fingerprint = row.Text(5);
  out.file.folder_timestamp_ms = row.Int(6);
  auto partition_values = DecodePartitionValues(row.Text(7));
  if (!partition_values) {
    return Status::Corruption(db_path + ": files.partition_values of " + out.file.uri + " is malformed");
  }
  out.file.partition_values = std::move(*partition_values);
  std::string state_name = row.Text(8);
  auto state = ParseFileState(state_name);
  if (!state)
    return Status::Corruption(db_path + ": file " + out.file.uri + " has unknown state \"" + state_name +
                              "\"");
  out.state = *state;
  out.batch_id = row.OptionalInt(9);
  out.snapshot_id = row.OptionalInt(10);
  out.reason = row.Text(11);
  out.discovered_at_ms = row.Int(12);
  out.updated_at_ms = row.Int(13);
  const std::string kind = row.Text(14);
  if (kind == UnitKindName(UnitKind::kStreamRange)) {
    out.file.kind = UnitKind::kStreamRange;
    out.file.range.stream = row.Text(15);
    out.file.range.partition = row.Text(16);
    out.file.range.first = UnpadLedgerPosition(row.Text(17));
    out.file.range.last = UnpadLedgerPosition(row.Text(18));
  } else if (kind != UnitKindName(UnitKind::kFile)) {
    return Status::Corruption(db_path + ": unit " + out.file.uri + " has unknown kind \"" + kind + "\"");
  }
  return out;
}

Result<std::vector<LedgerFile>> Ledger::Impl::QueryFiles(LedgerStatement& query) {
  std::vector<LedgerFile> files;
  while (true) {
    FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) break;
    FLOE_ASSIGN_OR_RETURN(LedgerFile file, ReadFileRow(query));
    files.push_back(std::move(file));
  }
  return files;
}

Result<std::pair<std::string, FileState>> Ledger::Impl::TableAndState(const std::string& uri) {
  FLOE_ASSIGN_OR_RETURN(LedgerStatement query, Prepare("SELECT tbl, state FROM files WHERE uri = ?1"));
  query.Bind(1, uri);
  FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
  if (!row) return Status::NotFound("ledger: no file " + uri);
  std::string state_name = query.Text(1);
  auto state = ParseFileState(state_name);
  if (!state)
    return Status::Corruption(db_path + ": file " + uri + " has unknown state \"" + state_name + "\"");
  return std::make_pair(query.Text(0), *state);
}

Status Ledger::Impl::SetAside(const std::string& uri, FileState target, const std::string& reason,
                              std::initializer_list<FileState> allowed_from) {
  FLOE_ASSIGN_OR_RETURN(auto table_and_state, TableAndState(uri));
  FileState state = table_and_state.second;
  if (std::find(allowed_from.begin(), allowed_from.end(), state) == allowed_from.end()) {
    return Status::InvalidArgument("ledger: file " + uri + " is " + FileStateName(state) + " and cannot be " +
                                   FileStateName(target));
  }
  FLOE_ASSIGN_OR_RETURN(
      LedgerStatement update,
      Prepare("UPDATE files SET state = ?2, reason = ?3, batch_id = NULL, batch_seq = NULL, "
              "updated_at_ms = ?4 WHERE uri = ?1"));
  update.Bind(1, uri).Bind(2, std::string(FileStateName(target))).Bind(3, reason).Bind(4, NowMs());
  return update.Run();
}

// The columns a batch keeps of what it did (schema version 3).
constexpr const char* kBatchStatsColumns =
    "ALTER TABLE batches ADD COLUMN committed_at_ms INTEGER;"
    "ALTER TABLE batches ADD COLUMN files INTEGER;"
    "ALTER TABLE batches ADD COLUMN bytes INTEGER;"
    "ALTER TABLE batches ADD COLUMN rows_read INTEGER;"
    "ALTER TABLE batches ADD COLUMN inserted INTEGER;"
    "ALTER TABLE batches ADD COLUMN updated INTEGER;"
    "ALTER TABLE batches ADD COLUMN deleted INTEGER;"
    "ALTER TABLE batches ADD COLUMN stale INTEGER;"
    "ALTER TABLE batches ADD COLUMN quarantined INTEGER;"
    "ALTER TABLE batches ADD COLUMN duration_ms INTEGER;"
    "ALTER TABLE batches ADD COLUMN commit_ms INTEGER;";

Status Ledger::Impl::CreateSchema() {
  return Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(const bool known, db->HasTable("batches"));
    const bool fresh = !known;
    FLOE_RETURN_IF_ERROR(Exec(
        db->Ddl("CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
                "CREATE TABLE IF NOT EXISTS files("
                "  uri TEXT PRIMARY KEY, tbl TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms INTEGER NOT NULL,"
                "  order_key TEXT NOT NULL, fingerprint TEXT NOT NULL, folder_ts INTEGER NOT NULL,"
                "  partition_values TEXT NOT NULL, state TEXT NOT NULL, batch_id INTEGER, batch_seq INTEGER,"
                "  snapshot_id INTEGER, reason TEXT NOT NULL, discovered_at_ms INTEGER NOT NULL,"
                "  updated_at_ms INTEGER NOT NULL, kind TEXT NOT NULL DEFAULT 'file',"
                "  stream TEXT NOT NULL DEFAULT '', stream_partition TEXT NOT NULL DEFAULT '',"
                "  first_position TEXT NOT NULL DEFAULT '', last_position TEXT NOT NULL DEFAULT '');"
                "CREATE INDEX IF NOT EXISTS files_by_table_state ON files(tbl, state, order_key);"
                "CREATE INDEX IF NOT EXISTS files_by_batch ON files(batch_id, batch_seq);"
                "CREATE TABLE IF NOT EXISTS batches(batch_id INTEGER PRIMARY KEY, tbl TEXT NOT NULL,"
                "  committed INTEGER NOT NULL, snapshot_id INTEGER, created_at_ms INTEGER NOT NULL);"
                "CREATE TABLE IF NOT EXISTS watermarks(tbl TEXT PRIMARY KEY, last_ms INTEGER NOT NULL,"
                "  fingerprints TEXT NOT NULL);"
                "INSERT INTO meta(key, value) VALUES ('next_batch_id', 1) ON CONFLICT(key) DO NOTHING;")));
    if (fresh) FLOE_RETURN_IF_ERROR(Exec(db->Ddl(kBatchStatsColumns)));
    FLOE_ASSIGN_OR_RETURN(LedgerStatement version,
                          Prepare("SELECT value FROM meta WHERE key = 'schema_version'"));
    FLOE_ASSIGN_OR_RETURN(bool row, version.Step());
    schema_version = row ? version.Int(0) : kLedgerSchemaVersion;
    if (!row) {
      FLOE_RETURN_IF_ERROR(Exec("INSERT INTO meta(key, value) VALUES ('schema_version', " +
                                std::to_string(kLedgerSchemaVersion) + ")"));
    }
    if (schema_version == 1) {
      // Version 1 had files only: every row becomes a file unit.
      FLOE_RETURN_IF_ERROR(
          Exec(db->Ddl("ALTER TABLE files ADD COLUMN kind TEXT NOT NULL DEFAULT 'file';"
                       "ALTER TABLE files ADD COLUMN stream TEXT NOT NULL DEFAULT '';"
                       "ALTER TABLE files ADD COLUMN stream_partition TEXT NOT NULL DEFAULT '';"
                       "ALTER TABLE files ADD COLUMN first_position TEXT NOT NULL DEFAULT '';"
                       "ALTER TABLE files ADD COLUMN last_position TEXT NOT NULL DEFAULT '';")));
      schema_version = 2;
    }
    if (schema_version == 2) {
      // Version 2 kept no stats of batches: earlier batches have none.
      FLOE_RETURN_IF_ERROR(Exec(db->Ddl(kBatchStatsColumns)));
      schema_version = 3;
    }
    if (schema_version == 3) {
      // Version 3 kept no expectation counts (batch_expectations is created
      // below): earlier batches have none.
      schema_version = 4;
    }
    if (schema_version != kLedgerSchemaVersion) {
      return Status::NotSupported(db_path + ": ledger schema version " + std::to_string(schema_version) +
                                  " is not the one this floe uses (" + std::to_string(kLedgerSchemaVersion) +
                                  ")");
    }
    return Exec(db->Ddl(
        "UPDATE meta SET value = " + std::to_string(kLedgerSchemaVersion) +
        " WHERE key = 'schema_version';"
        "CREATE INDEX IF NOT EXISTS files_by_stream ON files(stream, stream_partition, last_position) "
        "WHERE kind = 'stream_range';"
        // Units not yet committed, by state: what status and metrics count.
        // Committed units leave it, so it stays as small as the backlog.
        "CREATE INDEX IF NOT EXISTS files_waiting ON files(state, tbl) "
        "WHERE state IN ('discovered', 'in_batch', 'quarantined', 'skipped');"
        "CREATE INDEX IF NOT EXISTS batches_by_table ON batches(tbl, committed, batch_id);"
        "CREATE INDEX IF NOT EXISTS batches_by_commit_time ON batches(committed_at_ms) "
        "WHERE committed_at_ms IS NOT NULL;"
        "CREATE TABLE IF NOT EXISTS table_conditions(tbl TEXT PRIMARY KEY, state TEXT NOT NULL,"
        "  reason TEXT NOT NULL, since_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL);"
        "CREATE TABLE IF NOT EXISTS batch_expectations(batch_id INTEGER NOT NULL, tbl TEXT NOT NULL,"
        "  seq INTEGER NOT NULL, name TEXT NOT NULL, action TEXT NOT NULL, checked INTEGER NOT NULL,"
        "  passed INTEGER NOT NULL, failed INTEGER NOT NULL, PRIMARY KEY(batch_id, name));"));
  });
}

Ledger::Ledger(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Ledger::~Ledger() = default;

Result<std::unique_ptr<Ledger>> Ledger::Open(const std::string& state_dir) {
  return Open(LedgerOptions{state_dir, "", ""});
}

Result<std::unique_ptr<Ledger>> Ledger::OpenReadOnly(const std::string& state_dir) {
  return OpenReadOnly(LedgerOptions{state_dir, "", ""});
}

Result<std::unique_ptr<Ledger>> Ledger::Open(const LedgerOptions& options) {
  auto impl = std::make_unique<Impl>();
  if (options.uri.empty()) {
    FLOE_ASSIGN_OR_RETURN(impl->db, OpenSqliteLedgerDatabase(options.state_dir, true));
  } else {
    FLOE_ASSIGN_OR_RETURN(impl->db, OpenPostgresLedgerDatabase(options.uri, options.pipeline, true,
                                                               options.idle_in_transaction_timeout_ms));
    impl->postgres = true;
  }
  impl->db_path = impl->db->name();
  Status schema = impl->CreateSchema();
  if (!schema.ok()) {
    return options.uri.empty() ? schema.WithContext("state dir " + options.state_dir) : schema;
  }
  return std::unique_ptr<Ledger>(new Ledger(std::move(impl)));
}

Result<std::unique_ptr<Ledger>> Ledger::OpenReadOnly(const LedgerOptions& options) {
  auto impl = std::make_unique<Impl>();
  if (options.uri.empty()) {
    FLOE_ASSIGN_OR_RETURN(impl->db, OpenSqliteLedgerDatabase(options.state_dir, false));
  } else {
    FLOE_ASSIGN_OR_RETURN(impl->db, OpenPostgresLedgerDatabase(options.uri, options.pipeline, false));
  }
  impl->db_path = impl->db->name();
  impl->read_only = true;
  // An older floe's ledger is read as it is (a writer migrates it when it opens).
  FLOE_ASSIGN_OR_RETURN(bool has_meta, impl->db->HasTable("meta"));
  if (has_meta) {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement version,
                          impl->Prepare("SELECT value FROM meta WHERE key = 'schema_version'"));
    FLOE_ASSIGN_OR_RETURN(bool row, version.Step());
    impl->schema_version = row ? version.Int(0) : 0;
  }
  return std::unique_ptr<Ledger>(new Ledger(std::move(impl)));
}

Result<Ledger::DiscoverResult> Ledger::RecordDiscovered(const std::vector<SourceUnit>& files,
                                                        int64_t now_ms) {
  return RecordUnits(files, now_ms, /*for_holders=*/false);
}

Result<int64_t> Ledger::RecordForHolders(const std::vector<SourceUnit>& files, int64_t now_ms) {
  for (const SourceUnit& file : files) {
    if (file.kind == UnitKind::kStreamRange) {
      return Status::InvalidArgument("ledger: stream range " + file.uri +
                                     " can only be recorded by the worker that holds its table");
    }
  }
  FLOE_ASSIGN_OR_RETURN(DiscoverResult result, RecordUnits(files, now_ms, /*for_holders=*/true));
  return result.new_files;
}

Result<Ledger::DiscoverResult> Ledger::RecordUnits(const std::vector<SourceUnit>& files, int64_t now_ms,
                                                   bool for_holders) {
  DiscoverResult result;
  Status status = impl_->Transaction([&]() -> Status {
    // What the ledger knows of these units, in a few round trips rather than one per unit.
    std::vector<std::string> uris;
    uris.reserve(files.size());
    for (const SourceUnit& file : files) uris.push_back(file.uri);
    FLOE_ASSIGN_OR_RETURN(auto known_files, impl_->LookUpFiles(uris));
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement requeue,
        impl_->Prepare(
            "UPDATE files SET state = 'discovered', reason = '', batch_id = NULL, batch_seq = NULL "
            "WHERE uri = ?1 AND state = 'quarantined'"));
    // New units go in with one multi-row INSERT per kRecordRowsPerInsert of
    // them: one round trip to PostgreSQL instead of one per unit (a first
    // poll of a large export lists thousands). A stream range goes in at
    // once, after the units before it, because the next range's overlap
    // check must see it.
    std::vector<const SourceUnit*> inserts;
    // Prepared once per row count within the call (a poll of stream ranges
    // inserts one at a time, every time with the one-row statement).
    std::map<size_t, LedgerStatement> inserts_by_rows;
    auto flush_inserts = [&]() -> Status {
      for (size_t begin = 0; begin < inserts.size(); begin += kRecordRowsPerInsert) {
        const size_t rows = std::min(kRecordRowsPerInsert, inserts.size() - begin);
        auto prepared = inserts_by_rows.find(rows);
        if (prepared == inserts_by_rows.end()) {
          FLOE_ASSIGN_OR_RETURN(LedgerStatement statement, impl_->Prepare(InsertDiscoveredFilesSql(rows)));
          prepared = inserts_by_rows.emplace(rows, std::move(statement)).first;
        }
        LedgerStatement* insert = &prepared->second;
        insert->Reset();
        for (size_t row = 0; row < rows; ++row) {
          const SourceUnit& file = *inserts[begin + row];
          const bool range = file.kind == UnitKind::kStreamRange;
          const int base = static_cast<int>(row) * kDiscoveredFileColumns;
          insert->Bind(base + 1, file.uri)
              .Bind(base + 2, file.table)
              .Bind(base + 3, file.size)
              .Bind(base + 4, file.mtime_ms)
              .Bind(base + 5, file.order_key)
              .Bind(base + 6, file.fingerprint)
              .Bind(base + 7, file.folder_timestamp_ms)
              .Bind(base + 8, EncodePartitionValues(file.partition_values))
              .Bind(base + 9, now_ms)
              .Bind(base + 10, std::string(UnitKindName(file.kind)))
              .Bind(base + 11, range ? file.range.stream : std::string())
              .Bind(base + 12, range ? file.range.partition : std::string())
              .Bind(base + 13, range ? PadPosition(file.range.first) : std::string())
              .Bind(base + 14, range ? PadPosition(file.range.last) : std::string());
        }
        FLOE_RETURN_IF_ERROR(insert->Run());
      }
      inserts.clear();
      return Status::OK();
    };
    // A new range must not overlap a range of its partition the ledger knows.
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement overlap,
        impl_->Prepare("SELECT uri FROM files WHERE kind = 'stream_range' AND stream = ?1 AND "
                       "stream_partition = ?2 AND last_position >= ?3 AND first_position <= ?4 LIMIT 1"));
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement refresh,
        impl_->Prepare(
            "UPDATE files SET tbl = ?2, size = ?3, mtime_ms = ?4, order_key = ?5, fingerprint = ?6, "
            "folder_ts = ?7, partition_values = ?8, updated_at_ms = ?9 WHERE uri = ?1"));
    if (impl_->fence && !for_holders) {
      std::set<std::string> tables;
      for (const SourceUnit& file : files) tables.insert(file.table);
      for (const std::string& table : tables) FLOE_RETURN_IF_ERROR(impl_->CheckFence(table));
    }
    for (const SourceUnit& file : files) {
      if (file.uri.empty() || file.table.empty()) {
        return Status::InvalidArgument("ledger: a discovered file needs a uri and a table (uri \"" +
                                       file.uri + "\", table \"" + file.table + "\")");
      }
      const bool range = file.kind == UnitKind::kStreamRange;
      if (range &&
          (file.range.stream.empty() || file.range.partition.empty() || !IsPosition(file.range.first) ||
           !IsPosition(file.range.last) || ComparePositions(file.range.first, file.range.last) > 0)) {
        return Status::InvalidArgument("ledger: stream range " + file.uri +
                                       " needs a stream, a partition and first <= last decimal positions");
      }
      auto known_file = known_files.find(file.uri);
      const bool known = known_file != known_files.end();
      LedgerStatement* write = nullptr;
      if (!known) {
        if (range) {
          FLOE_RETURN_IF_ERROR(flush_inserts());
          overlap.Reset();
          overlap.Bind(1, file.range.stream)
              .Bind(2, file.range.partition)
              .Bind(3, PadPosition(file.range.first))
              .Bind(4, PadPosition(file.range.last));
          FLOE_ASSIGN_OR_RETURN(bool overlapping, overlap.Step());
          if (overlapping) {
            return Status::InvalidArgument(
                "ledger: stream range " + file.uri + " overlaps " + overlap.Text(0) +
                ", which the ledger already holds (a record would be applied twice)");
          }
        }
        inserts.push_back(&file);
        ++result.new_files;
        if (range) FLOE_RETURN_IF_ERROR(flush_inserts());
        // The same unit listed twice in one call is known the second time.
        known_files[file.uri] =
            Impl::KnownFile{file.table, file.size, file.mtime_ms, FileState::kDiscovered, ""};
        continue;
      } else if (for_holders) {
        continue;  // what the ledger knows is the holder's to keep up to date
      } else if (known_file->second.size != file.size || known_file->second.mtime_ms != file.mtime_ms) {
        const FileState state = known_file->second.state;
        if (state == FileState::kDiscovered) {
          write = &refresh;
        } else if (state == FileState::kQuarantined) {
          // Never ingested: the new version is a new chance.
          result.requeued.emplace_back(file.uri, known_file->second.reason);
          requeue.Reset();
          requeue.Bind(1, file.uri);
          FLOE_RETURN_IF_ERROR(requeue.Run());
          write = &refresh;
        } else if (state == FileState::kSkipped) {
          result.changed_after_skip.push_back(file.uri);
        } else {
          result.changed_after_ingest.push_back(file.uri);
        }
      }
      if (!write) continue;
      write->Reset();
      write->Bind(1, file.uri)
          .Bind(2, file.table)
          .Bind(3, file.size)
          .Bind(4, file.mtime_ms)
          .Bind(5, file.order_key)
          .Bind(6, file.fingerprint)
          .Bind(7, file.folder_timestamp_ms)
          .Bind(8, EncodePartitionValues(file.partition_values))
          .Bind(9, now_ms);
      FLOE_RETURN_IF_ERROR(write->Run());
      known_files[file.uri] =
          Impl::KnownFile{file.table, file.size, file.mtime_ms, FileState::kDiscovered, ""};
    }
    return flush_inserts();
  });
  if (!status.ok()) return status;
  return result;
}

Result<std::vector<LedgerFile>> Ledger::Pending(const std::string& table) {
  std::vector<LedgerFile> files;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query,
                          impl_->Prepare(std::string("SELECT ") + kLedgerFileColumns +
                                         " FROM files WHERE tbl = ?1 AND state = 'discovered' "
                                         "ORDER BY order_key, uri"));
    query.Bind(1, table);
    FLOE_ASSIGN_OR_RETURN(files, impl_->QueryFiles(query));
    return Status::OK();
  });
  if (!status.ok()) return status;
  return files;
}

Result<std::vector<std::string>> Ledger::TablesWithWork() {
  std::vector<std::string> tables;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query,
                          impl_->Prepare("SELECT tbl FROM files WHERE state = 'discovered' "
                                         "UNION SELECT tbl FROM batches WHERE committed = 0 ORDER BY 1"));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) break;
      tables.push_back(query.Text(0));
    }
    return Status::OK();
  });
  if (!status.ok()) return status;
  return tables;
}

Result<std::map<std::string, int64_t>> Ledger::WaitingBytes() {
  std::map<std::string, int64_t> bytes;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement query,
        impl_->Prepare("SELECT tbl, sum(size) FROM files WHERE state = 'discovered' GROUP BY tbl"));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) break;
      bytes[query.Text(0)] = query.Int(1);
    }
    return Status::OK();
  });
  if (!status.ok()) return status;
  return bytes;
}

Result<std::set<std::string>> Ledger::TablesWithCommittedFiles(const std::vector<std::string>& tables) {
  std::set<std::string> with_files;
  if (tables.empty()) return with_files;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement query,
        impl_->Prepare("SELECT 1 FROM files WHERE tbl = ?1 AND state = 'committed' LIMIT 1"));
    for (const std::string& table : tables) {
      query.Reset();
      query.Bind(1, table);
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (row) with_files.insert(table);
    }
    return Status::OK();
  });
  if (!status.ok()) return status;
  return with_files;
}

Result<int64_t> Ledger::OpenBatch(const std::string& table, const std::vector<std::string>& uris) {
  if (uris.empty())
    return Status::InvalidArgument("ledger: a batch of table " + table + " needs at least one file");
  int64_t batch_id = 0;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_RETURN_IF_ERROR(impl_->CheckFence(table));
    FLOE_ASSIGN_OR_RETURN(auto known_files, impl_->LookUpFiles(uris));
    std::set<std::string> seen;
    for (const std::string& uri : uris) {
      if (!seen.insert(uri).second) {
        return Status::InvalidArgument("ledger: file " + uri + " is listed twice in one batch");
      }
      auto known = known_files.find(uri);
      if (known == known_files.end()) return Status::NotFound("ledger: no file " + uri);
      if (known->second.table != table) {
        return Status::InvalidArgument("ledger: file " + uri + " belongs to table " + known->second.table +
                                       ", not " + table);
      }
      if (known->second.state != FileState::kDiscovered) {
        return Status::InvalidArgument("ledger: file " + uri + " is " + FileStateName(known->second.state) +
                                       ", only discovered files can join a batch");
      }
    }
    FLOE_ASSIGN_OR_RETURN(LedgerStatement next,
                          impl_->Prepare("SELECT (SELECT value FROM meta WHERE key = 'next_batch_id'), "
                                         "(SELECT coalesce(max(batch_id), 0) + 1 FROM batches)"));
    FLOE_ASSIGN_OR_RETURN(bool row, next.Step());
    if (!row || !next.OptionalInt(0))
      return Status::Corruption(impl_->db_path + ": meta.next_batch_id is missing");
    batch_id = std::max(next.Int(0), next.Int(1));
    FLOE_ASSIGN_OR_RETURN(LedgerStatement advance,
                          impl_->Prepare("UPDATE meta SET value = ?1 WHERE key = 'next_batch_id'"));
    advance.Bind(1, batch_id + 1);
    FLOE_RETURN_IF_ERROR(advance.Run());
    FLOE_ASSIGN_OR_RETURN(LedgerStatement insert,
                          impl_->Prepare("INSERT INTO batches(batch_id, tbl, committed, "
                                         "snapshot_id, created_at_ms) VALUES (?1, ?2, 0, NULL, ?3)"));
    int64_t now = NowMs();
    insert.Bind(1, batch_id).Bind(2, table).Bind(3, now);
    FLOE_RETURN_IF_ERROR(insert.Run());
    // The files join the batch in their order, a statement per up to
    // kUrisPerStatement files (batch_seq from a CASE over the same parameters).
    for (size_t start = 0; start < uris.size(); start += Impl::kUrisPerStatement) {
      const size_t count = std::min(Impl::kUrisPerStatement, uris.size() - start);
      std::string seq = "CASE uri";
      std::string list;
      for (size_t i = 0; i < count; ++i) {
        const std::string param = "?" + std::to_string(i + 3);
        seq += " WHEN " + param + " THEN " + std::to_string(start + i);
        list += (i ? ", " : "") + param;
      }
      FLOE_ASSIGN_OR_RETURN(
          LedgerStatement move,
          impl_->Prepare("UPDATE files SET state = 'in_batch', batch_id = ?1, batch_seq = " + seq +
                         " END, updated_at_ms = ?2 WHERE uri IN (" + list + ")"));
      move.Bind(1, batch_id).Bind(2, now);
      for (size_t i = 0; i < count; ++i) move.Bind(static_cast<int>(i + 3), uris[start + i]);
      FLOE_RETURN_IF_ERROR(move.Run());
    }
    return Status::OK();
  });
  if (!status.ok()) return status;
  return batch_id;
}

Result<std::vector<LedgerBatch>> Ledger::OpenBatches() {
  std::vector<LedgerBatch> batches;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query,
                          impl_->Prepare("SELECT batch_id, tbl FROM batches WHERE committed = 0 "
                                         "ORDER BY batch_id"));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) break;
      LedgerBatch batch;
      batch.batch_id = query.Int(0);
      batch.table = query.Text(1);
      batches.push_back(std::move(batch));
    }
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement files,
        impl_->Prepare("SELECT uri FROM files WHERE batch_id = ?1 ORDER BY batch_seq, uri"));
    for (LedgerBatch& batch : batches) {
      files.Reset();
      files.Bind(1, batch.batch_id);
      while (true) {
        FLOE_ASSIGN_OR_RETURN(bool row, files.Step());
        if (!row) break;
        batch.uris.push_back(files.Text(0));
      }
    }
    return Status::OK();
  });
  if (!status.ok()) return status;
  return batches;
}

Status Ledger::CommitBatch(int64_t batch_id, int64_t snapshot_id, const std::optional<BatchStats>& stats,
                           const std::vector<LedgerExpectationCount>& expectations) {
  return impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement query,
        impl_->Prepare("SELECT committed, snapshot_id, tbl FROM batches WHERE batch_id = ?1"));
    query.Bind(1, batch_id);
    FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return Status::NotFound("ledger: no batch " + std::to_string(batch_id));
    FLOE_RETURN_IF_ERROR(impl_->CheckFence(query.Text(2)));
    if (query.Int(0) != 0) {
      if (query.OptionalInt(1) == snapshot_id) return Status::OK();  // already recorded
      return Status::InvalidArgument(
          "ledger: batch " + std::to_string(batch_id) + " is already committed with snapshot " +
          std::to_string(query.OptionalInt(1).value_or(0)) + ", not " + std::to_string(snapshot_id));
    }
    int64_t now = NowMs();
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement batch,
        impl_->Prepare(
            "UPDATE batches SET committed = 1, snapshot_id = ?2, committed_at_ms = ?3, files = ?4, "
            "bytes = ?5, rows_read = ?6, inserted = ?7, updated = ?8, deleted = ?9, stale = ?10, "
            "quarantined = ?11, duration_ms = ?12, commit_ms = ?13 WHERE batch_id = ?1"));
    batch.Bind(1, batch_id).Bind(2, snapshot_id).Bind(3, now);
    if (stats) {
      batch.Bind(4, stats->files)
          .Bind(5, stats->bytes)
          .Bind(6, stats->rows)
          .Bind(7, stats->inserted)
          .Bind(8, stats->updated)
          .Bind(9, stats->deleted)
          .Bind(10, stats->stale)
          .Bind(11, stats->quarantined)
          .Bind(12, stats->duration_ms)
          .Bind(13, stats->commit_ms);
    }
    FLOE_RETURN_IF_ERROR(batch.Run());
    FLOE_ASSIGN_OR_RETURN(LedgerStatement files,
                          impl_->Prepare("UPDATE files SET state = 'committed', snapshot_id = ?2, "
                                         "updated_at_ms = ?3 WHERE batch_id = ?1 AND "
                                         "state = 'in_batch'"));
    files.Bind(1, batch_id).Bind(2, snapshot_id).Bind(3, now);
    FLOE_RETURN_IF_ERROR(files.Run());
    const std::string table = query.Text(2);
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement insert,
        impl_->Prepare(
            "INSERT INTO batch_expectations(batch_id, tbl, seq, name, action, checked, passed, failed) "
            "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) ON CONFLICT(batch_id, name) DO UPDATE SET "
            "tbl = excluded.tbl, seq = excluded.seq, action = excluded.action, "
            "checked = excluded.checked, passed = excluded.passed, failed = excluded.failed"));
    int64_t seq = 0;
    for (const LedgerExpectationCount& count : expectations) {
      insert.Reset();
      insert.Bind(1, batch_id)
          .Bind(2, table)
          .Bind(3, seq++)
          .Bind(4, count.name)
          .Bind(5, count.action)
          .Bind(6, count.checked)
          .Bind(7, count.passed)
          .Bind(8, count.failed);
      FLOE_RETURN_IF_ERROR(insert.Run());
    }
    return Status::OK();
  });
}

Result<std::vector<LedgerExpectationCount>> Ledger::ExpectationCounts(
    const std::optional<std::string>& table) {
  std::vector<LedgerExpectationCount> counts;
  // An older floe's ledger, read without migrating it (read-only), has no counts.
  if (impl_->schema_version < 4) return counts;
  Status status = impl_->Transaction([&]() -> Status {
    std::string sql = "SELECT batch_id, tbl, name, action, checked, passed, failed FROM batch_expectations";
    if (table) sql += " WHERE tbl = ?1";
    sql += " ORDER BY batch_id, seq";
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query, impl_->Prepare(sql));
    if (table) query.Bind(1, *table);
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) break;
      counts.push_back({query.Int(0), query.Text(1), query.Text(2), query.Text(3), query.Int(4), query.Int(5),
                        query.Int(6)});
    }
    return Status::OK();
  });
  if (!status.ok()) return status;
  return counts;
}

Status Ledger::ReleaseBatch(int64_t batch_id) {
  return impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query,
                          impl_->Prepare("SELECT committed, tbl FROM batches WHERE batch_id = ?1"));
    query.Bind(1, batch_id);
    FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return Status::NotFound("ledger: no open batch " + std::to_string(batch_id));
    FLOE_RETURN_IF_ERROR(impl_->CheckFence(query.Text(1)));
    if (query.Int(0) != 0) {
      return Status::InvalidArgument("ledger: batch " + std::to_string(batch_id) +
                                     " is committed and cannot be released");
    }
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement files,
        impl_->Prepare("UPDATE files SET state = 'discovered', batch_id = NULL, batch_seq = NULL, "
                       "updated_at_ms = ?2 WHERE batch_id = ?1 AND state = 'in_batch'"));
    files.Bind(1, batch_id).Bind(2, NowMs());
    FLOE_RETURN_IF_ERROR(files.Run());
    FLOE_ASSIGN_OR_RETURN(LedgerStatement remove, impl_->Prepare("DELETE FROM batches WHERE batch_id = ?1"));
    remove.Bind(1, batch_id);
    return remove.Run();
  });
}

Status Ledger::Quarantine(const std::string& uri, const std::string& reason) {
  return impl_->Transaction([&]() -> Status {
    if (impl_->fence) {
      FLOE_ASSIGN_OR_RETURN(auto table_and_state, impl_->TableAndState(uri));
      FLOE_RETURN_IF_ERROR(impl_->CheckFence(table_and_state.first));
    }
    return impl_->SetAside(uri, FileState::kQuarantined, reason,
                           {FileState::kDiscovered, FileState::kInBatch});
  });
}

Status Ledger::Skip(const std::string& uri, const std::string& reason) {
  return impl_->Transaction([&]() -> Status {
    return impl_->SetAside(uri, FileState::kSkipped, reason,
                           {FileState::kDiscovered, FileState::kInBatch, FileState::kQuarantined});
  });
}

Result<int64_t> Ledger::Retry(const std::optional<std::string>& table) {
  int64_t changed = 0;
  Status status = impl_->Transaction([&]() -> Status {
    std::string sql =
        "UPDATE files SET state = 'discovered', reason = '', updated_at_ms = ?1 "
        "WHERE state IN ('quarantined', 'skipped')";
    if (table) sql += " AND tbl = ?2";
    FLOE_ASSIGN_OR_RETURN(LedgerStatement update, impl_->Prepare(sql));
    update.Bind(1, NowMs());
    if (table) update.Bind(2, *table);
    FLOE_RETURN_IF_ERROR(update.Run());
    changed = update.Changes();
    return Status::OK();
  });
  if (!status.ok()) return status;
  return changed;
}

Status Ledger::RetryFiles(const std::vector<std::string>& uris) {
  return impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement update,
        impl_->Prepare(
            "UPDATE files SET state = 'discovered', reason = '', updated_at_ms = ?2 WHERE uri = ?1"));
    for (const std::string& uri : uris) {
      FLOE_ASSIGN_OR_RETURN(auto table_and_state, impl_->TableAndState(uri));
      const FileState state = table_and_state.second;
      if (state != FileState::kQuarantined && state != FileState::kSkipped) {
        return Status::InvalidArgument("ledger: file " + uri + " is " + FileStateName(state) +
                                       "; only quarantined and skipped files can be retried");
      }
      update.Reset();
      update.Bind(1, uri).Bind(2, NowMs());
      FLOE_RETURN_IF_ERROR(update.Run());
    }
    return Status::OK();
  });
}

Status Ledger::ResetTable(const std::string& table) {
  return impl_->Transaction([&]() -> Status {
    FLOE_RETURN_IF_ERROR(impl_->CheckFence(table));
    for (const char* sql :
         {"DELETE FROM files WHERE tbl = ?1", "DELETE FROM batches WHERE tbl = ?1",
          "DELETE FROM watermarks WHERE tbl = ?1", "DELETE FROM table_conditions WHERE tbl = ?1",
          "DELETE FROM batch_expectations WHERE tbl = ?1"}) {
      FLOE_ASSIGN_OR_RETURN(LedgerStatement remove, impl_->Prepare(sql));
      remove.Bind(1, table);
      FLOE_RETURN_IF_ERROR(remove.Run());
    }
    return Status::OK();
  });
}

Result<std::vector<LedgerFile>> Ledger::Files(const LedgerFilter& filter) {
  std::vector<LedgerFile> files;
  Status status = impl_->Transaction([&]() -> Status {
    std::string sql = std::string("SELECT ") + kLedgerFileColumns + " FROM files WHERE 1 = 1";
    // Placeholders numbered without gaps (PostgreSQL types each one from its use).
    const int table_param = filter.table ? 1 : 0;
    const int state_param = filter.state ? table_param + 1 : 0;
    if (table_param) sql += " AND tbl = ?" + std::to_string(table_param);
    if (state_param) sql += " AND state = ?" + std::to_string(state_param);
    sql += " ORDER BY tbl, order_key, uri";
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query, impl_->Prepare(sql));
    if (table_param) query.Bind(table_param, *filter.table);
    if (state_param) query.Bind(state_param, std::string(FileStateName(*filter.state)));
    FLOE_ASSIGN_OR_RETURN(files, impl_->QueryFiles(query));
    return Status::OK();
  });
  if (!status.ok()) return status;
  return files;
}

Result<std::map<std::string, FileState>> Ledger::StatesOf(const std::vector<std::string>& uris) {
  std::map<std::string, FileState> states;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query, impl_->Prepare("SELECT state FROM files WHERE uri = ?1"));
    for (const std::string& uri : uris) {
      query.Reset();
      query.Bind(1, uri);
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) continue;
      const std::string name = query.Text(0);
      auto state = ParseFileState(name);
      if (!state)
        return Status::Corruption(impl_->db_path + ": file " + uri + " has unknown state \"" + name + "\"");
      states[uri] = *state;
    }
    return Status::OK();
  });
  if (!status.ok()) return status;
  return states;
}

Result<std::optional<std::pair<int64_t, int64_t>>> Ledger::LastCommittedSnapshot(const std::string& table) {
  std::optional<std::pair<int64_t, int64_t>> last;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement query,
        impl_->Prepare("SELECT batch_id, snapshot_id FROM batches WHERE tbl = ?1 AND committed = 1 "
                       "AND snapshot_id IS NOT NULL AND snapshot_id != 0 "
                       "ORDER BY batch_id DESC LIMIT 1"));
    query.Bind(1, table);
    FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
    if (row) last = std::make_pair(query.Int(0), query.Int(1));
    return Status::OK();
  });
  if (!status.ok()) return status;
  return last;
}

Result<std::map<std::pair<std::string, std::string>, std::string>> Ledger::StreamEnds() {
  std::map<std::pair<std::string, std::string>, std::string> ends;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query,
                          impl_->Prepare("SELECT stream, stream_partition, MAX(last_position) FROM files "
                                         "WHERE kind = 'stream_range' GROUP BY stream, stream_partition"));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) break;
      ends[{query.Text(0), query.Text(1)}] = UnpadLedgerPosition(query.Text(2));
    }
    return Status::OK();
  });
  if (!status.ok()) return status;
  return ends;
}

Result<std::optional<TableWatermark>> Ledger::Watermark(const std::string& table) {
  std::optional<TableWatermark> watermark;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query,
                          impl_->Prepare("SELECT last_ms, fingerprints FROM watermarks WHERE tbl = ?1"));
    query.Bind(1, table);
    FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
    if (!row) return Status::OK();
    auto fingerprints = DecodeList(query.Text(1));
    if (!fingerprints) {
      return Status::Corruption(impl_->db_path + ": watermarks.fingerprints of table " + table +
                                " is malformed");
    }
    watermark = TableWatermark{table, query.Int(0), std::move(*fingerprints)};
    return Status::OK();
  });
  if (!status.ok()) return status;
  return watermark;
}

Result<std::map<std::string, TableWatermark>> Ledger::Watermarks() {
  std::map<std::string, TableWatermark> watermarks;
  Status status = impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(LedgerStatement query,
                          impl_->Prepare("SELECT tbl, last_ms, fingerprints FROM watermarks"));
    while (true) {
      FLOE_ASSIGN_OR_RETURN(bool row, query.Step());
      if (!row) return Status::OK();
      std::string table = query.Text(0);
      auto fingerprints = DecodeList(query.Text(2));
      if (!fingerprints) {
        return Status::Corruption(impl_->db_path + ": watermarks.fingerprints of table " + table +
                                  " is malformed");
      }
      watermarks[table] = TableWatermark{table, query.Int(1), std::move(*fingerprints)};
    }
  });
  if (!status.ok()) return status;
  return watermarks;
}

Status Ledger::SetWatermark(const TableWatermark& watermark) {
  return SetWatermarks({watermark});
}

Status Ledger::SetWatermarks(const std::vector<TableWatermark>& watermarks) {
  for (const TableWatermark& watermark : watermarks) {
    if (watermark.table.empty()) return Status::InvalidArgument("ledger: a watermark needs a table name");
  }
  if (watermarks.empty()) return Status::OK();
  return impl_->Transaction([&]() -> Status {
    FLOE_ASSIGN_OR_RETURN(
        LedgerStatement upsert,
        impl_->Prepare("INSERT INTO watermarks(tbl, last_ms, fingerprints) VALUES (?1, ?2, ?3) "
                       "ON CONFLICT(tbl) DO UPDATE SET last_ms = excluded.last_ms, "
                       "fingerprints = excluded.fingerprints"));
    for (const TableWatermark& watermark : watermarks) {
      FLOE_RETURN_IF_ERROR(impl_->CheckFence(watermark.table));
      upsert.Reset();
      upsert.Bind(1, watermark.table)
          .Bind(2, watermark.last_successful_write_ms)
          .Bind(3, EncodeList(watermark.fingerprints));
      FLOE_RETURN_IF_ERROR(upsert.Run());
    }
    return Status::OK();
  });
}

}  // namespace floe::ingest
