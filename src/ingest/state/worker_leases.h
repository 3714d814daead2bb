// WorkerLeases: the workers of one pipeline that share a PostgreSQL ledger
// ([state] uri), and which worker holds which source table — the scale-out
// of docs/scale-out.md. PostgreSQL does the coordination (rows, row locks, an
// advisory lock, its clock); Iceberg's optimistic commits and the leases'
// epochs do the fencing.
//
// Contract:
// - Join registers this process as a new worker, with a fresh id
//   "<host>:<pid>:<random>", in the ledger's schema (tables `workers` and
//   `table_leases`, created when missing). Heartbeat (and every Balance)
//   renews it. A worker whose last heartbeat is older than lease_timeout by
//   the DATABASE's clock is dead (no two machines' clocks are compared): the
//   next Balance of any worker removes it, and its tables are free. A worker
//   of the same machine (the same boot and pid namespace) whose process has
//   exited is removed at once (a restart after kill -9 need not wait).
// - Each source table has one lease row, never deleted. Its epoch grows by
//   one at every grant, so a table's epochs only increase and one epoch names
//   one worker's tenure; the epoch goes into each commit's snapshot summary
//   (floe.lease-epoch) and every fenced write checks it (FenceQuery).
// - Balance(tables) registers the tables not seen before, removes dead
//   workers and gives this worker its fair share, ceil(tables / live
//   workers): it takes free tables (no holder, or a dead one; in an order
//   scrambled by a hash of their names, or dealt out by pending bytes when
//   the caller knows them) up to the share and releases those it
//   holds above it (the last by name), so a worker that joins receives its
//   share as the others release theirs at their next Balance. Balances of all
//   workers are serialised by an advisory lock of the pipeline.
// - A worker found dead (its row is gone: it was paused, or cut off from the
//   database, for longer than lease_timeout) gets kFenced from Heartbeat and
//   Balance, and holds nothing from then on: every lease it had is void, and
//   whatever it does under them is refused. Rejoin registers it again under a
//   new id, with no lease; it gets tables at its next Balance, with new epochs.
// - Work hand-over: a continuous worker whose tables have nothing waiting
//   says it wants work (SetWantsWork(true), after its poll), until it finds
//   work of its own (SetWantsWork(false)). A worker that still has
//   tables whose waiting work it has not started hands them, in the order
//   given, at a Balance, one to each worker that wants work, with a new
//   epoch. A handed table goes on counting in the share of the worker that
//   handed it (`counted_for`, while that worker lives), so no count balance
//   moves it back or moves another table to even out counts. Which tables
//   are worth handing (cheap for the taker) is the caller's choice.
// - Leave releases every lease and removes the worker (a clean stop: the
//   others take its tables at their next poll instead of after lease_timeout).
// - With StartHeartbeats, a background thread renews the worker every
//   interval and, when it finds the worker dead, voids its leases at once.
// Thread-safe: one connection behind a mutex; LeaseOf reads memory only.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "common/status.h"
#include "ingest/state/ledger.h"
#include "sql/sql_connection.h"

namespace floe::ingest {

struct WorkerLeasesOptions {
  std::string uri;       // the PostgreSQL ledger's database
  std::string pipeline;  // the ledger's schema is the pipeline's
  int64_t lease_timeout_ms = 30'000;
};

// What one Balance did.
struct LeaseBalance {
  std::map<std::string, int64_t> held;  // source table -> epoch, after the balance
  std::vector<std::string> gained;      // granted by this balance
  std::vector<std::string> handed_in;   // handed to this worker by another since the last balance
  std::vector<std::pair<std::string, std::string>> handed_over;  // (table, worker) given by this balance
  std::vector<std::string> released;        // given up by this balance (above the fair share)
  std::vector<std::string> dead_workers;    // removed by this balance: no heartbeat for lease_timeout
  std::vector<std::string> exited_workers;  // removed by this balance: their process on this machine is gone
  int64_t live_workers = 0;
  int64_t tables = 0;
};

// One worker as `floe status` shows it.
struct WorkerRecord {
  std::string worker_id;
  std::string host;
  int64_t pid = 0;
  int64_t started_at_ms = 0;
  int64_t heartbeat_age_ms = 0;  // by the database's clock
};

// One table's lease as `floe status` shows it (worker_id empty: free).
struct LeaseRecord {
  std::string table;
  std::string worker_id;
  int64_t epoch = 0;
  int64_t held_for_ms = 0;  // since it was granted, by the database's clock
  std::string handed_by;    // the live worker that handed it over (its share counts it); empty: none
};

// The free tables `self` takes when they are dealt out by pending bytes
// (WorkerLeases::Balance): `holding` has every live worker (self included)
// with the tables it holds now; `share` is the fair share. Exposed for tests.
std::vector<std::string> PickByPendingBytes(std::vector<std::string> free,
                                            const std::map<std::string, int64_t>& pending_bytes,
                                            const std::map<std::string, size_t>& holding, size_t share,
                                            const std::string& self);

class WorkerLeases {
 public:
  static Result<std::unique_ptr<WorkerLeases>> Join(const WorkerLeasesOptions& options);
  ~WorkerLeases();  // stops the heartbeat thread; does not Leave

  // A copy: Rejoin changes it while other threads (the commit guard) read it.
  std::string worker_id() const;
  int64_t lease_timeout_ms() const { return options_.lease_timeout_ms; }

  Status Heartbeat();
  // `take` false: only registers, removes the dead and releases above the
  // share (between the tables of a poll: a worker that joined gets its share
  // without waiting for the poll to end); nothing is taken.
  // `pending_bytes` (source table -> bytes this worker's discovery found
  // waiting, may be partial): free tables are then dealt out by it, the
  // most pending first, in a snake draft over the live workers below their
  // share (by id), and this worker takes its own picks; a worker balancing
  // later deals what is left the same way. Counts stay at the fair share,
  // so leases never move because backlogs change.
  // `not_started`: tables this worker holds whose waiting work it has not
  // started (not the one it starts next), the first to hand over first, to
  // workers that want work (see the contract above).
  Result<LeaseBalance> Balance(const std::vector<std::string>& tables, bool take = true,
                               const std::map<std::string, int64_t>& pending_bytes = {},
                               const std::vector<std::string>& not_started = {});
  // Says whether this worker wants work: true when none of its tables has
  // work waiting (after a poll), false when it starts work again (a wish
  // another worker answered is already gone; taking back a wish no one saw
  // writes nothing).
  Status SetWantsWork(bool wants);
  // Whether another live worker wants work now (one indexed read): a caller
  // asks before working out which of its tables it could hand over.
  Result<bool> OthersWantWork();
  // True once, after this worker said it wants work, when another worker
  // handed it a table (seen by the heartbeat thread): the caller's wait for
  // its next poll can end early.
  bool TakeHandedWorkSignal() { return handed_work_.exchange(false); }
  Status Rejoin();
  Status Leave();
  // Gives up one table now (its lease stays at its epoch until the next grant).
  Status Release(const std::string& table);

  // The lease this worker holds on `table` as far as it knows (nullopt: none,
  // or the worker was found dead). Memory only.
  std::optional<TableLease> LeaseOf(const std::string& table) const;
  // Whether `table` is under lease control: it was in the lease table at the
  // last Balance (a worker found dead still knows which tables it must not touch).
  bool Controls(const std::string& table) const;
  // Whether `lease` is still the current one of `table`, asked of the database.
  Result<bool> StillCurrent(const std::string& table, const TableLease& lease);
  // True once a heartbeat found this worker dead, until Rejoin.
  bool lost() const { return lost_.load(); }

  // The query that, run in any transaction on the ledger's database with
  // parameters (table, worker id, epoch), returns a row only while that lease
  // is current, and locks the lease row until the transaction ends (a
  // takeover waits for it).
  std::string FenceQuery() const;

  // Renews the worker every `interval_ms` on a thread of its own.
  void StartHeartbeats(int64_t interval_ms);

  // For `floe status`: the pipeline's workers and leases, read once.
  static Result<std::pair<std::vector<WorkerRecord>, std::vector<LeaseRecord>>> Read(
      const std::string& uri, const std::string& pipeline);

 private:
  explicit WorkerLeases(WorkerLeasesOptions options);
  Status Connect();
  Status Register();  // a new worker id and row
  // In a transaction: renews this worker; kFenced when its row is gone.
  Status RenewLocked();
  void VoidLeasesLocked();
  // In Balance's transaction: hands `not_started`, in order, to the workers
  // that want work, one each, taking one of each taker's tables in exchange.
  Status HandOverLocked(const std::vector<std::string>& not_started, const sql::SqlResult& leases,
                        const std::set<std::string>& live_workers, std::map<std::string, int64_t>& held,
                        LeaseBalance& balance);

  WorkerLeasesOptions options_;
  std::string schema_;  // quoted
  std::string lock_key_;
  std::string worker_id_;
  mutable std::mutex mutex_;  // connection_, held_
  std::unique_ptr<sql::SqlConnection> connection_;
  std::map<std::string, int64_t> held_;
  std::set<std::string> controlled_;  // every table of the lease table at the last Balance
  std::atomic<bool> lost_{false};
  std::atomic<bool> wants_work_{false};  // as this worker last said
  std::atomic<bool> handed_work_{false};

  std::thread heartbeat_thread_;
  std::condition_variable heartbeat_wake_;
  bool stopping_ = false;  // under mutex_
};

}  // namespace floe::ingest
