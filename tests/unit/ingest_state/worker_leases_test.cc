// WorkerLeases against a real PostgreSQL server (FLOE_TEST_PG_URI; skipped
// with a message without it): fair shares as workers join and leave, dead
// workers found by the database's clock, epochs that only grow, a worker
// found dead refused everything until it rejoins, and the ledger's fence.
#include "ingest/state/worker_leases.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <set>
#include <thread>

#include "ingest/state/ledger.h"
#include "sql/sql_connection.h"
#include "test_util.h"
#include "unit/ingest_state/ledger_backends.h"

namespace floe::ingest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class WorkerLeasesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    uri_ = PostgresTestUri();
    if (uri_.empty()) GTEST_SKIP() << kNoPostgresMessage;
    pipeline_ = TestPipelineName("w");
  }
  void TearDown() override {
    if (!uri_.empty()) DropPipelineSchema(uri_, pipeline_);
  }
  std::unique_ptr<WorkerLeases> Join(int64_t lease_timeout_ms = 30'000) {
    auto joined = WorkerLeases::Join({uri_, pipeline_, lease_timeout_ms});
    EXPECT_TRUE(joined.ok()) << joined.status().ToString();
    return joined.ok() ? std::move(*joined) : nullptr;
  }
  static std::vector<std::string> Tables(int count) {
    std::vector<std::string> tables;
    for (int i = 0; i < count; ++i) tables.push_back("cda.t" + std::to_string(10 + i));
    return tables;
  }

  floe::testing::TempDir dir_;
  std::string uri_;
  std::string pipeline_;
};

// Free tables dealt out by pending bytes: a snake draft over the workers
// below their share, by id. Two heavy tables of three go to different
// workers, and counts stay at the share.
TEST(PickByPendingBytesTest, ASnakeDraftBalancesTheBytesAndKeepsTheShare) {
  const std::vector<std::string> free = {"a", "b", "c", "d", "e", "f"};
  const std::map<std::string, int64_t> pending = {{"a", 10},   {"b", 900}, {"c", 20},
                                                  {"d", 1000}, {"e", 30},  {"f", 800}};
  const std::map<std::string, size_t> holding = {{"w1", 0}, {"w2", 0}};
  // Order by bytes: d b f e c a; w1 takes the 1st, 4th and 5th, w2 the rest.
  EXPECT_THAT(PickByPendingBytes(free, pending, holding, 3, "w1"), ElementsAre("d", "e", "c"));
  EXPECT_THAT(PickByPendingBytes(free, pending, holding, 3, "w2"), ElementsAre("b", "f", "a"));
  // What w1 left, dealt again by w2: exactly w2's picks.
  EXPECT_THAT(PickByPendingBytes({"a", "b", "f"}, pending, {{"w1", 3}, {"w2", 0}}, 3, "w2"),
              ::testing::UnorderedElementsAre("b", "f", "a"));
  // A worker at its share is skipped; a worker that already holds some gets fewer.
  EXPECT_TRUE(PickByPendingBytes(free, pending, {{"w1", 3}, {"w2", 0}}, 3, "w1").empty());
  EXPECT_THAT(PickByPendingBytes(free, pending, {{"w1", 2}, {"w2", 0}}, 3, "w1"), ElementsAre("d"));
  // Unknown tables count as nothing pending and keep their given order.
  EXPECT_THAT(PickByPendingBytes({"x", "y", "d"}, pending, {{"w1", 0}}, 3, "w1"), ElementsAre("d", "x", "y"));
}

TEST_F(WorkerLeasesTest, FreeTablesAreDealtOutByPendingBytes) {
  auto first = Join();
  auto second = Join();
  std::map<std::string, int64_t> pending;
  const std::vector<std::string> tables = Tables(6);
  // 1 GB waits in the three tables a worker takes first without pending
  // bytes (the order scrambled by a hash of the names), 1 MB in the others.
  std::vector<std::string> scrambled = tables;
  std::sort(scrambled.begin(), scrambled.end(), [](const std::string& a, const std::string& b) {
    const size_t ha = std::hash<std::string>{}(a);
    const size_t hb = std::hash<std::string>{}(b);
    return ha != hb ? ha < hb : a < b;
  });
  for (size_t i = 0; i < scrambled.size(); ++i) pending[scrambled[i]] = i < 3 ? 1'000'000'000 : 1'000'000;
  ASSERT_OK_AND_ASSIGN(LeaseBalance one, first->Balance(tables, true, pending));
  ASSERT_OK_AND_ASSIGN(LeaseBalance two, second->Balance(tables, true, pending));
  EXPECT_EQ(one.held.size(), 3u);
  EXPECT_EQ(two.held.size(), 3u);
  auto bytes = [&](const LeaseBalance& balance) {
    int64_t sum = 0;
    for (const auto& [table, epoch] : balance.held) sum += pending.at(table);
    return sum;
  };
  // The heavy three are not all on one worker (2 + 1, or 1 + 2).
  EXPECT_GE(bytes(one), 1'000'000'000);
  EXPECT_GE(bytes(two), 1'000'000'000);
}

// A worker whose tables have nothing waiting wants work (SetWantsWork); a
// busy worker hands it a table it has not started, with a new epoch, which
// answers the wish; the taker learns of it at its next balance (and from its
// heartbeat). A wish stays through the wisher's balances until it takes it
// back. The handed table counts in the giver's share,
// so no later balance moves anything; once the giver leaves, it counts for
// its holder.
TEST_F(WorkerLeasesTest, AWorkerThatWantsWorkIsHandedATableNotStarted) {
  auto busy = Join();
  auto idle = Join();
  const std::vector<std::string> tables = Tables(4);
  ASSERT_OK_AND_ASSIGN(LeaseBalance busy_first, busy->Balance(tables));
  ASSERT_OK_AND_ASSIGN(LeaseBalance idle_first, idle->Balance(tables));
  ASSERT_EQ(busy_first.held.size(), 2u);
  ASSERT_EQ(idle_first.held.size(), 2u);
  std::vector<std::string> busy_tables;
  for (const auto& [table, epoch] : busy_first.held) busy_tables.push_back(table);

  // Nothing is handed while no worker wants work.
  ASSERT_OK_AND_ASSIGN(LeaseBalance unchanged, busy->Balance({}, false, {}, busy_tables));
  EXPECT_TRUE(unchanged.handed_over.empty());

  ASSERT_OK_AND_ASSIGN(bool wanted, busy->OthersWantWork());
  EXPECT_FALSE(wanted);
  ASSERT_OK(idle->SetWantsWork(true));
  ASSERT_OK(idle->Balance(tables).status());  // a poll of the wisher keeps the wish
  EXPECT_FALSE(idle->TakeHandedWorkSignal());
  ASSERT_OK_AND_ASSIGN(wanted, busy->OthersWantWork());
  EXPECT_TRUE(wanted);
  ASSERT_OK_AND_ASSIGN(wanted, idle->OthersWantWork());  // its own wish is not another's
  EXPECT_FALSE(wanted);
  // Between its tables the busy worker offers those it has not started, the first first.
  ASSERT_OK_AND_ASSIGN(LeaseBalance handed, busy->Balance({}, false, {}, {busy_tables[1], busy_tables[0]}));
  ASSERT_EQ(handed.handed_over.size(), 1u);  // one taker, one table
  EXPECT_EQ(handed.handed_over[0].first, busy_tables[1]);
  EXPECT_EQ(handed.handed_over[0].second, idle->worker_id());
  EXPECT_TRUE(handed.gained.empty());
  EXPECT_EQ(handed.held.size(), 1u);
  EXPECT_FALSE(busy->LeaseOf(busy_tables[1]).has_value());

  // The taker's heartbeat sees its wish answered, once.
  ASSERT_OK(idle->Heartbeat());
  EXPECT_TRUE(idle->TakeHandedWorkSignal());
  EXPECT_FALSE(idle->TakeHandedWorkSignal());
  ASSERT_OK_AND_ASSIGN(LeaseBalance taken, idle->Balance(tables));
  EXPECT_THAT(taken.handed_in, ElementsAre(busy_tables[1]));
  EXPECT_EQ(taken.held.size(), 3u);
  EXPECT_EQ(taken.held.at(busy_tables[1]), 2);  // a new tenure, a new epoch
  EXPECT_TRUE(taken.released.empty());          // it counts in the giver's share

  // A hand-over answers one wish: nothing more is handed.
  ASSERT_OK_AND_ASSIGN(wanted, busy->OthersWantWork());
  EXPECT_FALSE(wanted);
  ASSERT_OK_AND_ASSIGN(unchanged, busy->Balance({}, false, {}, {busy_tables[0]}));
  EXPECT_TRUE(unchanged.handed_over.empty());
  // A wish taken back (the worker found work of its own) is not answered.
  ASSERT_OK(idle->SetWantsWork(true));
  ASSERT_OK_AND_ASSIGN(wanted, busy->OthersWantWork());
  EXPECT_TRUE(wanted);
  ASSERT_OK(idle->SetWantsWork(false));
  ASSERT_OK_AND_ASSIGN(wanted, busy->OthersWantWork());
  EXPECT_FALSE(wanted);
  ASSERT_OK_AND_ASSIGN(unchanged, busy->Balance({}, false, {}, {busy_tables[0]}));
  EXPECT_TRUE(unchanged.handed_over.empty());
  EXPECT_FALSE(idle->TakeHandedWorkSignal());
  // Counts stay at the share: later balances take and release nothing.
  for (int round = 0; round < 2; ++round) {
    ASSERT_OK_AND_ASSIGN(LeaseBalance settled, busy->Balance(tables));
    EXPECT_TRUE(settled.released.empty());
    EXPECT_TRUE(settled.gained.empty());
    EXPECT_EQ(settled.held.size(), 1u);
    ASSERT_OK_AND_ASSIGN(settled, idle->Balance(tables));
    EXPECT_TRUE(settled.released.empty());
    EXPECT_TRUE(settled.gained.empty());
    EXPECT_EQ(settled.held.size(), 3u);
  }

  // A third worker joins: shares of 2; the taker (3 held, 2 of its own)
  // keeps its share, the giver (1 held + 1 handed) too: nothing is free.
  auto third = Join();
  ASSERT_OK_AND_ASSIGN(LeaseBalance joined, third->Balance(tables));
  EXPECT_TRUE(joined.held.empty());
  ASSERT_OK_AND_ASSIGN(LeaseBalance shed, idle->Balance(tables));
  EXPECT_TRUE(shed.released.empty());
  ASSERT_OK(third->Leave());
  // The giver leaves: the handed table counts for its holder from then on.
  ASSERT_OK(busy->Leave());
  ASSERT_OK_AND_ASSIGN(LeaseBalance alone, idle->Balance(tables));
  EXPECT_EQ(alone.held.size(), 4u);
  EXPECT_EQ(alone.held.at(busy_tables[1]), 2);  // still the tenure it was handed
}

TEST_F(WorkerLeasesTest, SharesAreFairAndMoveAsWorkersJoinAndLeave) {
  auto first = Join();
  ASSERT_OK_AND_ASSIGN(LeaseBalance alone, first->Balance(Tables(5)));
  EXPECT_EQ(alone.held.size(), 5u);
  EXPECT_EQ(alone.gained.size(), 5u);
  EXPECT_EQ(alone.live_workers, 1);
  for (const auto& [table, epoch] : alone.held) EXPECT_EQ(epoch, 1) << table;

  auto second = Join();
  ASSERT_OK_AND_ASSIGN(LeaseBalance joined, second->Balance(Tables(5)));
  EXPECT_TRUE(joined.held.empty());  // everything is held: nothing free yet
  EXPECT_EQ(joined.live_workers, 2);
  ASSERT_OK_AND_ASSIGN(LeaseBalance shed, first->Balance(Tables(5)));
  EXPECT_EQ(shed.held.size(), 3u);  // ceil(5 / 2)
  EXPECT_THAT(shed.released, ElementsAre("cda.t14", "cda.t13"));
  EXPECT_FALSE(first->LeaseOf("cda.t14").has_value());
  ASSERT_OK_AND_ASSIGN(LeaseBalance took, second->Balance(Tables(5)));
  EXPECT_THAT(took.gained, ::testing::UnorderedElementsAre("cda.t13", "cda.t14"));
  EXPECT_EQ(took.held.at("cda.t13"), 2);  // a new tenure, a new epoch
  ASSERT_TRUE(second->LeaseOf("cda.t14").has_value());
  EXPECT_EQ(second->LeaseOf("cda.t14")->worker_id, second->worker_id());
  EXPECT_TRUE(second->Controls("cda.t10"));
  EXPECT_FALSE(second->Controls("cda.t10__bad_rows"));

  // A clean leave frees its tables at once.
  ASSERT_OK(second->Leave());
  ASSERT_OK_AND_ASSIGN(LeaseBalance back, first->Balance(Tables(5)));
  EXPECT_EQ(back.held.size(), 5u);
  EXPECT_EQ(back.held.at("cda.t14"), 3);
  EXPECT_EQ(back.live_workers, 1);

  ASSERT_OK_AND_ASSIGN(auto view, WorkerLeases::Read(uri_, pipeline_));
  ASSERT_EQ(view.first.size(), 1u);
  EXPECT_EQ(view.first[0].worker_id, first->worker_id());
  EXPECT_EQ(view.first[0].pid, ::getpid());
  ASSERT_EQ(view.second.size(), 5u);
  EXPECT_EQ(view.second[4].table, "cda.t14");
  EXPECT_EQ(view.second[4].epoch, 3);
  EXPECT_EQ(view.second[4].worker_id, first->worker_id());
}

TEST_F(WorkerLeasesTest, ASilentWorkerIsDeclaredDeadAndRefusedUntilItRejoins) {
  auto zombie = Join(/*lease_timeout_ms=*/400);
  auto survivor = Join(400);
  ASSERT_OK_AND_ASSIGN(LeaseBalance mine, zombie->Balance(Tables(2)));
  ASSERT_EQ(mine.held.size(), 1u);  // two workers: one table each
  const std::string table = mine.held.begin()->first;
  const TableLease old_lease = *zombie->LeaseOf(table);
  ASSERT_OK(survivor->Balance(Tables(2)).status());

  // The zombie sends nothing for longer than the timeout; the survivor keeps beating.
  for (int i = 0; i < 8; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    ASSERT_OK(survivor->Heartbeat());
  }
  ASSERT_OK_AND_ASSIGN(LeaseBalance took, survivor->Balance(Tables(2)));
  EXPECT_THAT(took.dead_workers, ElementsAre(zombie->worker_id()));
  EXPECT_THAT(took.gained, ElementsAre(table));
  EXPECT_EQ(took.held.at(table), old_lease.epoch + 1);
  ASSERT_OK_AND_ASSIGN(bool current, zombie->StillCurrent(table, old_lease));
  EXPECT_FALSE(current);

  // It learns at its next heartbeat, and from then on holds nothing.
  Status beat = zombie->Heartbeat();
  EXPECT_EQ(beat.kind(), ErrorKind::kFenced) << beat.ToString();
  EXPECT_THAT(beat.message(), HasSubstr("declared dead"));
  EXPECT_TRUE(zombie->lost());
  EXPECT_FALSE(zombie->LeaseOf(table).has_value());
  EXPECT_TRUE(zombie->Controls(table));  // but it knows the table is not its to touch
  EXPECT_EQ(zombie->Balance(Tables(2)).status().kind(), ErrorKind::kFenced);

  const std::string old_id = zombie->worker_id();
  ASSERT_OK(zombie->Rejoin());
  EXPECT_NE(zombie->worker_id(), old_id);
  EXPECT_FALSE(zombie->lost());
  ASSERT_OK_AND_ASSIGN(LeaseBalance again, zombie->Balance(Tables(2)));
  EXPECT_TRUE(again.held.empty());  // the survivor holds both until it sheds one
  ASSERT_OK_AND_ASSIGN(LeaseBalance shed, survivor->Balance(Tables(2)));
  EXPECT_EQ(shed.released.size(), 1u);
  ASSERT_OK_AND_ASSIGN(LeaseBalance regained, zombie->Balance(Tables(2)));
  ASSERT_EQ(regained.gained.size(), 1u);
  EXPECT_GT(regained.held.begin()->second, 1);  // epochs never go back
}

// A worker of this machine whose process is gone (kill -9, a crash) is dead
// at once: a restart need not wait lease_timeout for its own tables.
TEST_F(WorkerLeasesTest, AnExitedWorkerOfThisMachineIsDeadAtOnce) {
  int to_parent[2];
  ASSERT_EQ(::pipe(to_parent), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto crashed = WorkerLeases::Join({uri_, pipeline_, 600'000});
    bool ok = crashed.ok() && (*crashed)->Balance(Tables(3)).ok();
    const std::string id = ok ? (*crashed)->worker_id() : "";
    (void)!::write(to_parent[1], id.data(), id.size());
    ::_exit(ok ? 0 : 1);  // no Leave: as a kill -9 leaves it
  }
  ::close(to_parent[1]);
  char text[256] = {0};
  const ssize_t length = ::read(to_parent[0], text, sizeof(text) - 1);
  ::close(to_parent[0]);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  const std::string crashed_id(text, length > 0 ? static_cast<size_t>(length) : 0);
  ASSERT_FALSE(crashed_id.empty());

  auto restarted = Join(600'000);  // a lease_timeout no test waits for
  ASSERT_OK_AND_ASSIGN(LeaseBalance balance, restarted->Balance(Tables(3)));
  EXPECT_THAT(balance.exited_workers, ElementsAre(crashed_id));
  EXPECT_TRUE(balance.dead_workers.empty());
  EXPECT_EQ(balance.held.size(), 3u);
  EXPECT_EQ(balance.held.at("cda.t10"), 2);
}

TEST_F(WorkerLeasesTest, TheHeartbeatThreadVoidsTheLeasesOfAWorkerFoundDead) {
  auto zombie = Join(400);
  ASSERT_OK(zombie->Balance(Tables(1)).status());
  auto other = Join(400);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  ASSERT_OK(other->Balance(Tables(1)).status());  // removes the silent zombie
  zombie->StartHeartbeats(50);
  for (int i = 0; i < 100 && !zombie->lost(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_TRUE(zombie->lost());
  EXPECT_FALSE(zombie->LeaseOf("cda.t10").has_value());
}

// The ledger's fence: a worker writes a table's records only under its
// current lease; a write after a takeover changes nothing.
TEST_F(WorkerLeasesTest, TheLedgerRefusesWritesUnderALeaseThatMoved) {
  auto zombie = Join(400);
  // As the pipeline does: the ledger's source table "t" is leased as its target "cda.t".
  ASSERT_OK_AND_ASSIGN(LeaseBalance mine, zombie->Balance({"cda.t"}));
  ASSERT_EQ(mine.held.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto ledger, Ledger::Open(LedgerOptions{dir_.File("state"), uri_, pipeline_}));
  ASSERT_OK(ledger->SetFence([&](const std::string& table) { return zombie->LeaseOf("cda." + table); }));
  SourceUnit unit;
  unit.uri = "/t/1";
  unit.table = "t";
  unit.order_key = "1";
  ASSERT_OK(ledger->RecordDiscovered({unit}, 1).status());
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("t", {"/t/1"}));

  // Paused past its lease: another worker takes the table and its batch.
  auto next = Join(400);
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  ASSERT_OK_AND_ASSIGN(LeaseBalance took, next->Balance({"cda.t"}));
  ASSERT_THAT(took.gained, ElementsAre("cda.t"));
  ASSERT_OK_AND_ASSIGN(auto next_ledger, Ledger::Open(LedgerOptions{dir_.File("state2"), uri_, pipeline_}));
  ASSERT_OK(next_ledger->SetFence([&](const std::string& table) { return next->LeaseOf("cda." + table); }));

  // The zombie still believes in its lease (no heartbeat yet): the database says no.
  ASSERT_TRUE(zombie->LeaseOf("cda.t").has_value());
  Status committed = ledger->CommitBatch(batch, 42);
  EXPECT_EQ(committed.kind(), ErrorKind::kFenced) << committed.ToString();
  EXPECT_THAT(committed.message(), HasSubstr("no longer current"));
  EXPECT_EQ(ledger->ReleaseBatch(batch).kind(), ErrorKind::kFenced);
  EXPECT_EQ(ledger->Quarantine("/t/1", "bad").kind(), ErrorKind::kFenced);
  EXPECT_EQ(ledger->RecordDiscovered({unit}, 2).status().kind(), ErrorKind::kFenced);
  ASSERT_OK_AND_ASSIGN(auto open, next_ledger->OpenBatches());
  ASSERT_EQ(open.size(), 1u);  // untouched: the new owner resolves it
  ASSERT_OK(next_ledger->ReleaseBatch(batch));
  ASSERT_OK_AND_ASSIGN(int64_t redo, next_ledger->OpenBatch("t", {"/t/1"}));
  EXPECT_GT(redo, batch);
  EXPECT_EQ(ledger->OpenBatch("t", {"/t/1"}).status().kind(), ErrorKind::kFenced);
  // A table this worker holds no lease of at all is refused without asking.
  EXPECT_EQ(ledger->OpenBatch("u", {"/u/1"}).status().kind(), ErrorKind::kFenced);
}

// A worker that learned of files of a table another worker holds (an SQS
// notification reaches one worker) records them for the holder: new files
// only, unfenced; the holder takes them from the ledger. What the ledger
// already knows stays the holder's (no refresh, no requeue).
TEST_F(WorkerLeasesTest, FilesOfATableAnotherWorkerHoldsAreRecordedForItsHolder) {
  auto holder = Join(30'000);
  ASSERT_OK_AND_ASSIGN(LeaseBalance held, holder->Balance({"cda.t"}));
  ASSERT_EQ(held.held.size(), 1u);
  auto bystander = Join(30'000);
  ASSERT_OK_AND_ASSIGN(LeaseBalance none, bystander->Balance({"cda.t"}));
  ASSERT_TRUE(none.held.empty());
  ASSERT_OK_AND_ASSIGN(auto holder_ledger, Ledger::Open(LedgerOptions{dir_.File("state"), uri_, pipeline_}));
  ASSERT_OK(
      holder_ledger->SetFence([&](const std::string& table) { return holder->LeaseOf("cda." + table); }));
  ASSERT_OK_AND_ASSIGN(auto ledger, Ledger::Open(LedgerOptions{dir_.File("state2"), uri_, pipeline_}));
  ASSERT_OK(ledger->SetFence([&](const std::string& table) { return bystander->LeaseOf("cda." + table); }));

  auto unit = [](const std::string& uri, int64_t size) {
    SourceUnit file;
    file.uri = uri;
    file.table = "t";
    file.order_key = uri;
    file.size = size;
    return file;
  };
  EXPECT_EQ(ledger->RecordDiscovered({unit("/t/1", 10)}, 1).status().kind(), ErrorKind::kFenced);
  ASSERT_OK(holder_ledger->RecordDiscovered({unit("/t/1", 10)}, 1).status());
  ASSERT_OK_AND_ASSIGN(int64_t batch, holder_ledger->OpenBatch("t", {"/t/1"}));
  // /t/1 is the holder's (in a batch, with its size): left alone; /t/2 is new.
  ASSERT_OK_AND_ASSIGN(int64_t added, ledger->RecordForHolders({unit("/t/1", 99), unit("/t/2", 20)}, 2));
  EXPECT_EQ(added, 1);
  ASSERT_OK_AND_ASSIGN(auto pending, holder_ledger->Pending("t"));
  ASSERT_EQ(pending.size(), 1u);
  EXPECT_EQ(pending[0].file.uri, "/t/2");
  EXPECT_EQ(pending[0].file.size, 20);
  ASSERT_OK_AND_ASSIGN(auto states, holder_ledger->StatesOf({"/t/1", "/t/2"}));
  EXPECT_EQ(states.at("/t/1"), FileState::kInBatch);
  ASSERT_OK(holder_ledger->CommitBatch(batch, 7));
  ASSERT_OK_AND_ASSIGN(auto files, holder_ledger->Files({}));
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].file.size, 10);  // not the bystander's 99
  // Twice is one row; stream ranges are the holder's alone.
  ASSERT_OK_AND_ASSIGN(added, ledger->RecordForHolders({unit("/t/2", 20)}, 3));
  EXPECT_EQ(added, 0);
  SourceUnit range = unit("kafka://topic/0/0-9", 0);
  range.kind = UnitKind::kStreamRange;
  range.range.stream = "topic";
  range.range.partition = "0";
  range.range.first = "0";
  range.range.last = "9";
  EXPECT_EQ(ledger->RecordForHolders({range}, 4).status().kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace floe::ingest
