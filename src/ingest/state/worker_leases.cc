// WorkerLeases (worker_leases.h): the workers and table leases of a pipeline
// in its PostgreSQL ledger schema.
#include "ingest/state/worker_leases.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <functional>
#include <random>
#include <set>

#include "ingest/state/ledger_database.h"

namespace floe::ingest {
namespace {

// Milliseconds by the database's clock: every worker measures ages by it.
constexpr const char* kDatabaseNowMs = "(extract(epoch from clock_timestamp()) * 1000)::bigint";

std::string HostName() {
  char name[256] = {0};
  if (::gethostname(name, sizeof(name) - 1) != 0 || name[0] == '\0') return "unknown-host";
  return name;
}

// Where this process's pid means something: the boot and the pid namespace.
// Two workers with the same process space see each other's pids, so one can
// tell at once that the other has exited (kill(pid, 0) fails with ESRCH).
std::string ProcessSpace() {
  std::string boot;
  if (FILE* file = std::fopen("/proc/sys/kernel/random/boot_id", "r")) {
    char text[64] = {0};
    if (std::fgets(text, sizeof(text), file)) boot = text;
    std::fclose(file);
  }
  while (!boot.empty() && (boot.back() == '\n' || boot.back() == ' ')) boot.pop_back();
  char link[128] = {0};
  const ssize_t length = ::readlink("/proc/self/ns/pid", link, sizeof(link) - 1);
  if (boot.empty() || length <= 0) return "";  // unknown: never judged by pid
  return boot + "/" + std::string(link, static_cast<size_t>(length));
}

bool ProcessGone(int64_t pid) {
  return pid > 0 && ::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH;
}

std::string RandomHex() {
  std::random_device device;
  char text[9];
  std::snprintf(text, sizeof(text), "%08x", static_cast<unsigned>(device()));
  return text;
}

int64_t ToInt(const sql::SqlValue& value) {
  if (!value) return 0;
  try {
    return std::stoll(*value);
  } catch (...) {
    return 0;
  }
}

// Whose share a lease row (tbl, worker_id, epoch, counted_for) counts in: a
// table handed over counts for the worker that handed it, while that worker
// lives; any other for its holder.
std::string CountedFor(const sql::SqlRow& row, const std::set<std::string>& live_workers) {
  if (row[3] && live_workers.count(*row[3]) > 0) return *row[3];
  return row[1].value_or("");
}

// Runs `body` in one transaction of `connection`; any error rolls back.
template <typename Body>
Status InTransaction(sql::SqlConnection& connection, Body&& body) {
  FLOE_RETURN_IF_ERROR(connection.Begin());
  Status status = body();
  if (status.ok()) status = connection.Commit();
  if (!status.ok() && connection.connected()) connection.Rollback();
  return status;
}

}  // namespace

WorkerLeases::WorkerLeases(WorkerLeasesOptions options)
    : options_(std::move(options)),
      schema_(sql::QuoteSqlIdentifier(PostgresLedgerSchema(options_.pipeline))),
      lock_key_(PostgresAdvisoryKey("floe leases", PostgresLedgerSchema(options_.pipeline))) {}

WorkerLeases::~WorkerLeases() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  heartbeat_wake_.notify_all();
  if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
}

Result<std::unique_ptr<WorkerLeases>> WorkerLeases::Join(const WorkerLeasesOptions& options) {
  if (options.uri.empty() || options.pipeline.empty())
    return Status::InvalidArgument("worker leases need a PostgreSQL ledger and the pipeline's name");
  std::unique_ptr<WorkerLeases> leases(new WorkerLeases(options));
  std::lock_guard lock(leases->mutex_);
  FLOE_RETURN_IF_ERROR(leases->Connect());
  FLOE_RETURN_IF_ERROR(leases->Register());
  return leases;
}

Status WorkerLeases::Connect() {
  if (connection_ && connection_->connected()) return Status::OK();
  connection_.reset();
  FLOE_ASSIGN_OR_RETURN(auto connection, sql::OpenSqlConnection(options_.uri, false, "ledger"));
  const std::string application = "floe " + options_.pipeline + " leases pid " + std::to_string(::getpid());
  FLOE_RETURN_IF_ERROR(
      connection->Execute("SELECT set_config('application_name', ?1, false)", {application}).status());
  // A worker paused inside a Balance must not hold the others' Balance past half its lease.
  FLOE_RETURN_IF_ERROR(connection
                           ->Execute("SELECT set_config('idle_in_transaction_session_timeout', ?1, false)",
                                     {std::to_string(options_.lease_timeout_ms / 2)})
                           .status());
  FLOE_RETURN_IF_ERROR(InTransaction(*connection, [&]() -> Status {
    FLOE_RETURN_IF_ERROR(
        connection->Execute("SELECT pg_advisory_xact_lock(?1::bigint)", {lock_key_}).status());
    FLOE_RETURN_IF_ERROR(connection->Execute("CREATE SCHEMA IF NOT EXISTS " + schema_).status());
    FLOE_RETURN_IF_ERROR(
        connection
            ->Execute("CREATE TABLE IF NOT EXISTS " + schema_ +
                      ".workers(worker_id TEXT COLLATE \"C\" PRIMARY KEY, host TEXT NOT NULL, "
                      "process_space TEXT NOT NULL, "
                      "pid BIGINT NOT NULL, started_at_ms BIGINT NOT NULL, "
                      "heartbeat_at_ms BIGINT NOT NULL)")
            .status());
    FLOE_RETURN_IF_ERROR(
        connection
            ->Execute("CREATE TABLE IF NOT EXISTS " + schema_ +
                      ".table_leases(tbl TEXT COLLATE \"C\" PRIMARY KEY, worker_id TEXT COLLATE "
                      "\"C\", epoch BIGINT NOT NULL, granted_at_ms BIGINT NOT NULL)")
            .status());
    // Added with work hand-over: ledgers made before get the columns here.
    FLOE_RETURN_IF_ERROR(
        connection
            ->Execute("ALTER TABLE " + schema_ +
                      ".workers ADD COLUMN IF NOT EXISTS wants_work BOOLEAN NOT NULL DEFAULT false")
            .status());
    return connection
        ->Execute("ALTER TABLE " + schema_ +
                  ".table_leases ADD COLUMN IF NOT EXISTS counted_for TEXT COLLATE \"C\"")
        .status();
  }));
  connection_ = std::move(connection);
  return Status::OK();
}

Status WorkerLeases::Register() {
  worker_id_ = HostName() + ":" + std::to_string(::getpid()) + ":" + RandomHex();
  FLOE_RETURN_IF_ERROR(connection_
                           ->Execute("INSERT INTO " + schema_ +
                                         ".workers(worker_id, host, process_space, pid, started_at_ms, "
                                         "heartbeat_at_ms) VALUES (?1, ?2, ?4, ?3, " +
                                         kDatabaseNowMs + ", " + kDatabaseNowMs + ")",
                                     {worker_id_, HostName(), std::to_string(::getpid()), ProcessSpace()})
                           .status());
  held_.clear();
  lost_ = false;
  return Status::OK();
}

void WorkerLeases::VoidLeasesLocked() {
  held_.clear();
  lost_ = true;
}

Status WorkerLeases::RenewLocked() {
  FLOE_ASSIGN_OR_RETURN(
      sql::SqlResult renewed,
      connection_->Execute("UPDATE " + schema_ + ".workers SET heartbeat_at_ms = " + kDatabaseNowMs +
                               " WHERE worker_id = ?1 RETURNING wants_work",
                           {worker_id_}));
  if (renewed.rows.size() == 1) {
    const bool still_wants = renewed.rows[0][0].value_or("") == "t";
    // Only a worker that handed this one a table clears its wish in between.
    if (wants_work_.load() && !still_wants) handed_work_ = true;
    wants_work_ = still_wants;
    return Status::OK();
  }
  VoidLeasesLocked();
  return Status::Fenced("worker " + worker_id_ +
                        " was declared dead by the other workers (no heartbeat for longer than [state] "
                        "lease_timeout = " +
                        std::to_string(options_.lease_timeout_ms / 1000) +
                        "s: paused, or cut off from the database): its table leases are void");
}

Status WorkerLeases::Heartbeat() {
  std::lock_guard lock(mutex_);
  if (lost_) return Status::Fenced("worker " + worker_id_ + " was declared dead; it must rejoin");
  FLOE_RETURN_IF_ERROR(Connect());
  return RenewLocked();
}

Status WorkerLeases::Rejoin() {
  std::lock_guard lock(mutex_);
  FLOE_RETURN_IF_ERROR(Connect());
  return Register();
}

std::vector<std::string> PickByPendingBytes(std::vector<std::string> free,
                                            const std::map<std::string, int64_t>& pending_bytes,
                                            const std::map<std::string, size_t>& holding, size_t share,
                                            const std::string& self) {
  auto pending = [&](const std::string& table) {
    auto it = pending_bytes.find(table);
    return it == pending_bytes.end() ? int64_t{0} : std::max<int64_t>(it->second, 0);
  };
  // The most pending first; equal ones keep their (scrambled) order.
  std::stable_sort(free.begin(), free.end(),
                   [&](const std::string& a, const std::string& b) { return pending(a) > pending(b); });
  std::map<std::string, size_t> count = holding;  // as tables are dealt
  std::vector<std::string> workers;               // those below the share, by id
  for (const auto& [worker, held] : holding) {
    if (held < share) workers.push_back(worker);
  }
  std::vector<std::string> picks;
  if (workers.empty()) return picks;
  // A snake draft: rounds alternate direction, so the first pick of one
  // round and the last of the next go to the same worker.
  size_t round = 0;
  size_t next = 0;
  for (const std::string& table : free) {
    const std::string* to = nullptr;
    for (size_t tried = 0; tried < workers.size() && to == nullptr; ++tried) {
      const size_t at = round % 2 == 0 ? next : workers.size() - 1 - next;
      if (count[workers[at]] < share) to = &workers[at];
      if (++next == workers.size()) {
        next = 0;
        ++round;
      }
    }
    if (to == nullptr) break;  // every worker is at its share
    ++count[*to];
    if (*to == self) picks.push_back(table);
  }
  return picks;
}

Result<LeaseBalance> WorkerLeases::Balance(const std::vector<std::string>& tables, bool take,
                                           const std::map<std::string, int64_t>& pending_bytes,
                                           const std::vector<std::string>& not_started) {
  std::lock_guard lock(mutex_);
  if (lost_) return Status::Fenced("worker " + worker_id_ + " was declared dead; it must rejoin");
  FLOE_RETURN_IF_ERROR(Connect());
  LeaseBalance balance;
  std::map<std::string, int64_t> held;
  std::set<std::string> controlled;
  Status status = InTransaction(*connection_, [&]() -> Status {
    FLOE_RETURN_IF_ERROR(
        connection_->Execute("SELECT pg_advisory_xact_lock(?1::bigint)", {lock_key_}).status());
    FLOE_RETURN_IF_ERROR(RenewLocked());
    FLOE_ASSIGN_OR_RETURN(
        sql::SqlResult dead,
        connection_->Execute("DELETE FROM " + schema_ + ".workers WHERE heartbeat_at_ms < " + kDatabaseNowMs +
                                 " - ?1::bigint RETURNING worker_id",
                             {std::to_string(options_.lease_timeout_ms)}));
    for (const sql::SqlRow& row : dead.rows) balance.dead_workers.push_back(row[0].value_or(""));
    // Workers of this machine (the same boot and pid namespace) whose process
    // has exited are dead now, not after lease_timeout: a restart after a
    // crash (systemd, cron) goes on at once.
    if (const std::string space = ProcessSpace(); !space.empty()) {
      FLOE_ASSIGN_OR_RETURN(sql::SqlResult neighbours,
                            connection_->Execute("SELECT worker_id, pid FROM " + schema_ +
                                                     ".workers WHERE process_space = ?1 AND worker_id <> ?2",
                                                 {space, worker_id_}));
      for (const sql::SqlRow& row : neighbours.rows) {
        if (!ProcessGone(ToInt(row[1]))) continue;
        FLOE_RETURN_IF_ERROR(
            connection_->Execute("DELETE FROM " + schema_ + ".workers WHERE worker_id = ?1", {row[0]})
                .status());
        balance.exited_workers.push_back(row[0].value_or(""));
      }
    }
    for (const std::string& table : tables) {
      if (controlled_.count(table) > 0) continue;  // lease rows are never deleted
      FLOE_RETURN_IF_ERROR(connection_
                               ->Execute("INSERT INTO " + schema_ +
                                             ".table_leases(tbl, worker_id, epoch, granted_at_ms) "
                                             "VALUES (?1, NULL, 0, 0) ON CONFLICT (tbl) DO NOTHING",
                                         {table})
                               .status());
    }
    FLOE_ASSIGN_OR_RETURN(sql::SqlResult live,
                          connection_->Execute("SELECT worker_id FROM " + schema_ + ".workers"));
    std::set<std::string> live_workers;
    for (const sql::SqlRow& row : live.rows) live_workers.insert(row[0].value_or(""));
    FLOE_ASSIGN_OR_RETURN(sql::SqlResult leases,
                          connection_->Execute("SELECT tbl, worker_id, epoch, counted_for FROM " + schema_ +
                                               ".table_leases ORDER BY tbl"));
    auto is_live = [&](const sql::SqlValue& worker) { return worker && live_workers.count(*worker) > 0; };
    std::vector<std::string> mine;  // held by this worker
    std::vector<std::string> own;   // of those, the ones counted in its share (it may release them)
    std::vector<std::string> free;
    size_t counted = 0;  // leases counted in this worker's share: its own, and those it handed over
    controlled.clear();
    for (const sql::SqlRow& row : leases.rows) {
      const std::string table = row[0].value_or("");
      controlled.insert(table);
      if (!is_live(row[1])) {
        free.push_back(table);
        continue;
      }
      const bool counted_here = CountedFor(row, live_workers) == worker_id_;
      if (counted_here) ++counted;
      if (*row[1] != worker_id_) continue;
      mine.push_back(table);
      held[table] = ToInt(row[2]);
      if (counted_here) own.push_back(table);
    }
    balance.live_workers = static_cast<int64_t>(live_workers.size());
    balance.tables = static_cast<int64_t>(leases.rows.size());
    const size_t share = live_workers.empty()
                             ? leases.rows.size()
                             : (leases.rows.size() + live_workers.size() - 1) / live_workers.size();
    // Above the share (a worker joined): the last of its own tables by name go back.
    while (counted > share && !own.empty()) {
      const std::string table = own.back();
      own.pop_back();
      FLOE_RETURN_IF_ERROR(
          connection_
              ->Execute("UPDATE " + schema_ +
                            ".table_leases SET worker_id = NULL, counted_for = NULL WHERE tbl = "
                            "?1 AND worker_id = ?2",
                        {table, worker_id_})
              .status());
      std::erase(mine, table);
      held.erase(table);
      --counted;
      balance.released.push_back(table);
    }
    // Free tables in a scrambled order, so that tables of one family
    // (cc_claim, cc_claim_2, ..., often alike in size) spread over workers.
    std::sort(free.begin(), free.end(), [](const std::string& a, const std::string& b) {
      const size_t ha = std::hash<std::string>{}(a);
      const size_t hb = std::hash<std::string>{}(b);
      return ha != hb ? ha < hb : a < b;
    });
    if (take && !pending_bytes.empty()) {
      std::map<std::string, size_t> holding;  // live worker -> leases counted in its share
      for (const std::string& worker : live_workers) holding[worker] = 0;
      for (const sql::SqlRow& row : leases.rows) {
        if (!is_live(row[1])) continue;
        const std::string counter = CountedFor(row, live_workers);
        if (counter != worker_id_) ++holding[counter];
      }
      holding[worker_id_] = counted;
      free = PickByPendingBytes(free, pending_bytes, holding, share, worker_id_);
    }
    for (const std::string& table : free) {
      if (!take || counted >= share) break;
      FLOE_ASSIGN_OR_RETURN(sql::SqlResult granted,
                            connection_->Execute("UPDATE " + schema_ +
                                                     ".table_leases SET worker_id = ?2, epoch = epoch + 1, "
                                                     "counted_for = NULL, granted_at_ms = " +
                                                     kDatabaseNowMs + " WHERE tbl = ?1 RETURNING epoch",
                                                 {table, worker_id_}));
      if (granted.rows.empty()) continue;
      ++counted;
      mine.push_back(table);
      held[table] = ToInt(granted.rows[0][0]);
      balance.gained.push_back(table);
    }
    for (const std::string& table : mine) {
      if (held_.count(table) == 0 &&
          std::find(balance.gained.begin(), balance.gained.end(), table) == balance.gained.end())
        balance.handed_in.push_back(table);
    }
    if (!not_started.empty())
      FLOE_RETURN_IF_ERROR(HandOverLocked(not_started, leases, live_workers, held, balance));
    return Status::OK();
  });
  if (!status.ok()) return status;
  held_ = held;
  controlled_ = std::move(controlled);
  balance.held = std::move(held);
  return balance;
}

Status WorkerLeases::HandOverLocked(const std::vector<std::string>& not_started, const sql::SqlResult& leases,
                                    const std::set<std::string>& live_workers,
                                    std::map<std::string, int64_t>& held, LeaseBalance& balance) {
  FLOE_ASSIGN_OR_RETURN(sql::SqlResult takers,
                        connection_->Execute("SELECT worker_id FROM " + schema_ +
                                                 ".workers WHERE wants_work AND worker_id <> ?1 ORDER BY "
                                                 "heartbeat_at_ms, worker_id",
                                             {worker_id_}));
  std::vector<std::string> offer;
  for (const std::string& table : not_started) {
    if (held.count(table) > 0) offer.push_back(table);
  }
  size_t next_offer = 0;
  for (const sql::SqlRow& row : takers.rows) {
    if (next_offer == offer.size()) break;
    const std::string taker = row[0].value_or("");
    const std::string& table = offer[next_offer++];
    // The lease goes on counting in the share it counted in (this worker's,
    // or that of the worker that handed it here), so that no later balance
    // moves a table back or away to even out counts.
    std::string counted_for = worker_id_;
    for (const sql::SqlRow& lease : leases.rows) {
      if (lease[0] && *lease[0] == table) counted_for = CountedFor(lease, live_workers);
    }
    FLOE_ASSIGN_OR_RETURN(sql::SqlResult given,
                          connection_->Execute("UPDATE " + schema_ +
                                                   ".table_leases SET worker_id = ?3, epoch = epoch + 1, "
                                                   "counted_for = ?4, granted_at_ms = " +
                                                   kDatabaseNowMs + " WHERE tbl = ?1 AND worker_id = ?2",
                                               {table, worker_id_, taker, counted_for}));
    if (given.rows_affected != 1) continue;
    FLOE_RETURN_IF_ERROR(
        connection_
            ->Execute("UPDATE " + schema_ + ".workers SET wants_work = false WHERE worker_id = ?1", {taker})
            .status());
    held.erase(table);
    balance.handed_over.emplace_back(table, taker);
  }
  return Status::OK();
}

Status WorkerLeases::SetWantsWork(bool wants) {
  std::lock_guard lock(mutex_);
  if (lost_) return Status::Fenced("worker " + worker_id_ + " was declared dead; it must rejoin");
  // Taking a wish back that no one saw (or a worker already answered) writes nothing.
  if (!wants && !wants_work_.load()) return Status::OK();
  FLOE_RETURN_IF_ERROR(Connect());
  FLOE_ASSIGN_OR_RETURN(
      sql::SqlResult set,
      connection_->Execute("UPDATE " + schema_ + ".workers SET wants_work = ?2 WHERE worker_id = ?1",
                           {worker_id_, wants ? "true" : "false"}));
  wants_work_ = wants && set.rows_affected == 1;
  return Status::OK();
}

Result<bool> WorkerLeases::OthersWantWork() {
  std::lock_guard lock(mutex_);
  if (lost_) return false;
  FLOE_RETURN_IF_ERROR(Connect());
  FLOE_ASSIGN_OR_RETURN(sql::SqlResult wanting,
                        connection_->Execute("SELECT 1 FROM " + schema_ +
                                                 ".workers WHERE wants_work AND worker_id <> ?1 LIMIT 1",
                                             {worker_id_}));
  return !wanting.rows.empty();
}

Status WorkerLeases::Release(const std::string& table) {
  std::lock_guard lock(mutex_);
  held_.erase(table);
  FLOE_RETURN_IF_ERROR(Connect());
  return connection_
      ->Execute(
          "UPDATE " + schema_ +
              ".table_leases SET worker_id = NULL, counted_for = NULL WHERE tbl = ?1 AND worker_id = ?2",
          {table, worker_id_})
      .status();
}

Status WorkerLeases::Leave() {
  std::lock_guard lock(mutex_);
  held_.clear();
  FLOE_RETURN_IF_ERROR(Connect());
  return InTransaction(*connection_, [&]() -> Status {
    FLOE_RETURN_IF_ERROR(
        connection_
            ->Execute("UPDATE " + schema_ +
                          ".table_leases SET worker_id = NULL, counted_for = NULL WHERE worker_id = ?1",
                      {worker_id_})
            .status());
    // What it handed over counts for the holders from now on.
    FLOE_RETURN_IF_ERROR(
        connection_
            ->Execute("UPDATE " + schema_ + ".table_leases SET counted_for = NULL WHERE counted_for = ?1",
                      {worker_id_})
            .status());
    return connection_->Execute("DELETE FROM " + schema_ + ".workers WHERE worker_id = ?1", {worker_id_})
        .status();
  });
}

std::string WorkerLeases::worker_id() const {
  std::lock_guard lock(mutex_);
  return worker_id_;
}

bool WorkerLeases::Controls(const std::string& table) const {
  std::lock_guard lock(mutex_);
  return controlled_.count(table) > 0;
}

std::optional<TableLease> WorkerLeases::LeaseOf(const std::string& table) const {
  std::lock_guard lock(mutex_);
  auto it = held_.find(table);
  if (it == held_.end()) return std::nullopt;
  return TableLease{worker_id_, it->second, table};
}

Result<bool> WorkerLeases::StillCurrent(const std::string& table, const TableLease& lease) {
  std::lock_guard lock(mutex_);
  FLOE_RETURN_IF_ERROR(Connect());
  FLOE_ASSIGN_OR_RETURN(
      sql::SqlResult current,
      connection_->Execute(
          "SELECT 1 FROM " + schema_ + ".table_leases WHERE tbl = ?1 AND worker_id = ?2 AND epoch = ?3",
          {table, lease.worker_id, std::to_string(lease.epoch)}));
  return !current.rows.empty();
}

std::string WorkerLeases::FenceQuery() const {
  return "SELECT 1 FROM " + schema_ +
         ".table_leases WHERE tbl = ?1 AND worker_id = ?2 AND epoch = ?3 FOR SHARE";
}

void WorkerLeases::StartHeartbeats(int64_t interval_ms) {
  heartbeat_thread_ = std::thread([this, interval_ms] {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
      heartbeat_wake_.wait_for(lock, std::chrono::milliseconds(interval_ms), [this] { return stopping_; });
      if (stopping_ || lost_) continue;
      // A failed renewal (the database away) is tried again at the next beat;
      // a worker found dead has its leases voided by RenewLocked.
      if (Connect().ok()) (void)RenewLocked();
    }
  });
}

Result<std::pair<std::vector<WorkerRecord>, std::vector<LeaseRecord>>> WorkerLeases::Read(
    const std::string& uri, const std::string& pipeline) {
  const std::string schema = PostgresLedgerSchema(pipeline);
  FLOE_ASSIGN_OR_RETURN(auto connection, sql::OpenSqlConnection(uri, false, "ledger"));
  FLOE_ASSIGN_OR_RETURN(sql::SqlResult exists,
                        connection->Execute("SELECT 1 FROM pg_tables WHERE schemaname = ?1 AND tablename = "
                                            "'table_leases'",
                                            {schema}));
  std::pair<std::vector<WorkerRecord>, std::vector<LeaseRecord>> out;
  if (exists.rows.empty()) return out;
  const std::string quoted = sql::QuoteSqlIdentifier(schema);
  FLOE_RETURN_IF_ERROR(connection->Execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY").status());
  auto workers =
      connection->Execute(std::string("SELECT worker_id, host, pid, started_at_ms, ") + kDatabaseNowMs +
                          " - heartbeat_at_ms FROM " + quoted + ".workers ORDER BY worker_id");
  auto leases =
      connection->Execute(std::string("SELECT tbl, coalesce(worker_id, ''), epoch, CASE WHEN "
                                      "worker_id IS NULL THEN 0 ELSE ") +
                          kDatabaseNowMs + " - granted_at_ms END, to_jsonb(l) ->> 'counted_for' FROM " +
                          quoted + ".table_leases l ORDER BY tbl");
  connection->Rollback();
  if (!workers.ok()) return workers.status();
  if (!leases.ok()) return leases.status();
  for (const sql::SqlRow& row : workers->rows) {
    out.first.push_back(
        WorkerRecord{row[0].value_or(""), row[1].value_or(""), ToInt(row[2]), ToInt(row[3]), ToInt(row[4])});
  }
  for (const sql::SqlRow& row : leases->rows) {
    // counted_for: read through to_jsonb, so that a ledger no worker of this
    // version has opened yet (no such column) reads as nothing handed over.
    std::string handed_by = row[4].value_or("");
    const bool live = std::any_of(out.first.begin(), out.first.end(),
                                  [&](const WorkerRecord& worker) { return worker.worker_id == handed_by; });
    if (!live || handed_by == row[1].value_or("")) handed_by.clear();
    out.second.push_back(LeaseRecord{row[0].value_or(""), row[1].value_or(""), ToInt(row[2]), ToInt(row[3]),
                                     std::move(handed_by)});
  }
  return out;
}

}  // namespace floe::ingest
