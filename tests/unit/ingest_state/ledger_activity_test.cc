// What `floe status`, /metrics and the dashboard read from the ledger: the
// backlog by state, the stats a committed batch keeps and their sums over a
// time window, the newest batch per table, recent batches and quarantines,
// the tables' recorded conditions; a version 2 ledger gains the stats
// columns in place (its old batches have none) and reads without them while
// it is not migrated.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <filesystem>

#include "ingest/state/ledger.h"
#include "test_util.h"
#include "unit/ingest_state/ledger_backends.h"

namespace floe::ingest {
namespace {

SourceUnit File(const std::string& uri, const std::string& table, int64_t size) {
  SourceUnit file;
  file.uri = uri;
  file.table = table;
  file.order_key = uri;
  file.size = size;
  file.mtime_ms = 1;
  return file;
}

BatchStats Stats(int64_t inserted, int64_t updated, int64_t duration_ms) {
  BatchStats stats;
  stats.files = 1;
  stats.bytes = 100;
  stats.rows = inserted + updated;
  stats.inserted = inserted;
  stats.updated = updated;
  stats.duration_ms = duration_ms;
  stats.commit_ms = duration_ms / 2;
  return stats;
}

int64_t LedgerNowMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// SQLite only: an older layout.
class LedgerActivityTest : public ::testing::Test {
 protected:
  std::string StateDir() const { return dir_.File("state"); }
  floe::testing::TempDir dir_;
};

// Every backend (ledger_backends.h).
class LedgerActivityContractTest : public LedgerBackendTest {};
INSTANTIATE_TEST_SUITE_P(Backends, LedgerActivityContractTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST_P(LedgerActivityContractTest, BacklogCountsUnitsNotYetCommittedByState) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(ledger
                ->RecordDiscovered({File("/a/1", "a", 10), File("/a/2", "a", 20), File("/a/3", "a", 30),
                                    File("/a/4", "a", 40), File("/b/1", "b", 5)},
                                   1000)
                .status());
  ASSERT_OK(ledger->RecordDiscovered({File("/a/5", "a", 50)}, 2000).status());
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("a", {"/a/1"}));
  ASSERT_OK(ledger->Quarantine("/a/2", "bad"));
  ASSERT_OK(ledger->Skip("/a/3", "operator"));
  ASSERT_OK_AND_ASSIGN(int64_t committed, ledger->OpenBatch("b", {"/b/1"}));
  ASSERT_OK(ledger->CommitBatch(committed, 7));
  ASSERT_OK_AND_ASSIGN(auto backlog, ledger->Backlog());
  ASSERT_EQ(backlog.size(), 1u) << "b has nothing waiting";
  const TableBacklog& a = backlog["a"];
  EXPECT_EQ(a.pending_files, 2);
  EXPECT_EQ(a.pending_bytes, 90);
  EXPECT_EQ(a.oldest_pending_ms, 1000);
  EXPECT_EQ(a.in_batch_files, 1);
  EXPECT_EQ(a.in_batch_bytes, 10);
  EXPECT_EQ(a.quarantined_files, 1);
  EXPECT_EQ(a.skipped_files, 1);
  (void)batch;
}

TEST_P(LedgerActivityContractTest, CommittedBatchesKeepTheirStatsAndSumOverAWindow) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(
      ledger
          ->RecordDiscovered(
              {File("/a/1", "a", 1), File("/a/2", "a", 1), File("/a/3", "a", 1), File("/b/1", "b", 1)}, 1)
          .status());
  ASSERT_OK_AND_ASSIGN(int64_t first, ledger->OpenBatch("a", {"/a/1"}));
  ASSERT_OK(ledger->CommitBatch(first, 11, Stats(5, 1, 400)));
  const int64_t between = LedgerNowMs();
  ASSERT_OK_AND_ASSIGN(int64_t second, ledger->OpenBatch("a", {"/a/2"}));
  ASSERT_OK(ledger->CommitBatch(second, 12, Stats(2, 3, 100)));
  ASSERT_OK_AND_ASSIGN(int64_t recovered, ledger->OpenBatch("b", {"/b/1"}));
  ASSERT_OK(ledger->CommitBatch(recovered, 0));  // resolved by recovery: no stats
  ASSERT_OK_AND_ASSIGN(int64_t open, ledger->OpenBatch("a", {"/a/3"}));

  ASSERT_OK_AND_ASSIGN(auto all, ledger->CommittedSince(0));
  EXPECT_EQ(all["a"].inserted, 7);
  EXPECT_EQ(all["a"].updated, 4);
  EXPECT_EQ(all["a"].rows, 11);
  EXPECT_EQ(all["a"].duration_ms, 500);
  EXPECT_EQ(all["b"].rows, 0);
  ASSERT_OK_AND_ASSIGN(auto none, ledger->CommittedSince(LedgerNowMs() + 60'000));
  EXPECT_TRUE(none.empty());
  ASSERT_OK_AND_ASSIGN(auto later, ledger->CommittedSince(between));
  EXPECT_GE(later["a"].inserted, 2);  // at least the second batch

  ASSERT_OK_AND_ASSIGN(auto last, ledger->LastCommittedBatches());
  ASSERT_EQ(last.size(), 2u);
  EXPECT_EQ(last["a"].batch_id, second);
  EXPECT_EQ(last["a"].snapshot_id, 12);
  ASSERT_TRUE(last["a"].stats.has_value());
  EXPECT_EQ(last["a"].stats->commit_ms, 50);
  EXPECT_TRUE(last["a"].committed_at_ms.has_value());
  EXPECT_EQ(last["b"].snapshot_id, 0);
  EXPECT_FALSE(last["b"].stats.has_value());

  ASSERT_OK_AND_ASSIGN(auto recent, ledger->RecentBatches(0, 3));
  ASSERT_EQ(recent.size(), 3u);
  EXPECT_EQ(recent[0].batch_id, open);
  EXPECT_FALSE(recent[0].committed);
  EXPECT_EQ(recent[1].batch_id, recovered);
  EXPECT_EQ(recent[2].batch_id, second);
}

TEST_P(LedgerActivityContractTest, QuarantinesNewestFirstAndPerWindow) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(ledger->RecordDiscovered({File("/a/1", "a", 1), File("/a/2", "a", 1), File("/b/1", "b", 1)}, 1)
                .status());
  ASSERT_OK(ledger->Quarantine("/a/1", "first"));
  ASSERT_OK(ledger->Quarantine("/b/1", "second <script>"));
  ASSERT_OK_AND_ASSIGN(auto newest, ledger->NewestFiles(FileState::kQuarantined, 1));
  ASSERT_EQ(newest.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto both, ledger->NewestFiles(FileState::kQuarantined, 10));
  EXPECT_EQ(both.size(), 2u);
  ASSERT_OK_AND_ASSIGN(auto counts, ledger->QuarantinedSince(0));
  EXPECT_EQ(counts["a"], 1);
  EXPECT_EQ(counts["b"], 1);
  ASSERT_OK_AND_ASSIGN(auto future, ledger->QuarantinedSince(LedgerNowMs() + 60'000));
  EXPECT_TRUE(future.empty());
}

TEST_P(LedgerActivityContractTest, TableConditionsKeepTheirStartWhileUnchanged) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(ledger->SetTableCondition("a", "stopped", "CDA table a was reset", 100));
  ASSERT_OK(ledger->SetTableCondition("a", "stopped", "CDA table a was reset", 200));
  ASSERT_OK_AND_ASSIGN(auto conditions, ledger->TableConditions());
  EXPECT_EQ(conditions["a"].since_ms, 100);
  EXPECT_EQ(conditions["a"].updated_at_ms, 200);
  ASSERT_OK(ledger->SetTableCondition("a", "failing", "catalog down", 300));
  ASSERT_OK_AND_ASSIGN(conditions, ledger->TableConditions());
  EXPECT_EQ(conditions["a"].state, "failing");
  EXPECT_EQ(conditions["a"].since_ms, 300);
  ASSERT_OK_AND_ASSIGN(auto reader, OpenReadOnly());
  ASSERT_OK_AND_ASSIGN(auto seen, reader->TableConditions());
  EXPECT_EQ(seen.size(), 1u);
  ASSERT_OK(ledger->ClearTableCondition("a"));
  ASSERT_OK_AND_ASSIGN(conditions, ledger->TableConditions());
  EXPECT_TRUE(conditions.empty());
  ASSERT_OK(ledger->SetTableCondition("b", "stopped", "rolled back", 1));
  ASSERT_OK(ledger->ResetTable("b"));
  ASSERT_OK_AND_ASSIGN(conditions, ledger->TableConditions());
  EXPECT_TRUE(conditions.empty()) << "a reload forgets the condition";
}

TEST_F(LedgerActivityTest, AVersionTwoLedgerReadsWithoutStatsUntilAWriterMigratesIt) {
  ASSERT_TRUE(std::filesystem::create_directories(StateDir()));
  {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((StateDir() + "/ledger.db").c_str(), &db), SQLITE_OK);
    const char* v2 =
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
        "CREATE TABLE files(uri TEXT PRIMARY KEY, tbl TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms INTEGER "
        "NOT NULL, order_key TEXT NOT NULL, fingerprint TEXT NOT NULL, folder_ts INTEGER NOT NULL, "
        "partition_values TEXT NOT NULL, state TEXT NOT NULL, batch_id INTEGER, batch_seq INTEGER, "
        "snapshot_id "
        "INTEGER, reason TEXT NOT NULL, discovered_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL, "
        "kind "
        "TEXT NOT NULL DEFAULT 'file', stream TEXT NOT NULL DEFAULT '', stream_partition TEXT NOT NULL "
        "DEFAULT "
        "'', first_position TEXT NOT NULL DEFAULT '', last_position TEXT NOT NULL DEFAULT '');"
        "CREATE TABLE batches(batch_id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, committed INTEGER NOT NULL, "
        "snapshot_id INTEGER, created_at_ms INTEGER NOT NULL);"
        "CREATE TABLE watermarks(tbl TEXT PRIMARY KEY, last_ms INTEGER NOT NULL, fingerprints TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('next_batch_id', 8), ('schema_version', 2);"
        "INSERT INTO batches VALUES (7, 'a', 1, 42, 1);"
        "INSERT INTO files VALUES ('/a/1', 'a', 10, 1, 'k', '', 0, '', 'committed', 7, 0, 42, '', 1, 1, "
        "'file', "
        "'', '', '', '');"
        "INSERT INTO files VALUES ('/a/2', 'a', 20, 1, 'k', '', 0, '', 'discovered', NULL, NULL, NULL, '', "
        "5, 5, "
        "'file', '', '', '', '');";
    ASSERT_EQ(sqlite3_exec(db, v2, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  {
    ASSERT_OK_AND_ASSIGN(auto reader, Ledger::OpenReadOnly(StateDir()));
    ASSERT_OK_AND_ASSIGN(auto backlog, reader->Backlog());
    EXPECT_EQ(backlog["a"].pending_files, 1);
    ASSERT_OK_AND_ASSIGN(auto last, reader->LastCommittedBatches());
    EXPECT_TRUE(last.empty());
    ASSERT_OK_AND_ASSIGN(auto conditions, reader->TableConditions());
    EXPECT_TRUE(conditions.empty());
  }
  ASSERT_OK_AND_ASSIGN(auto ledger, Ledger::Open(StateDir()));
  ASSERT_OK_AND_ASSIGN(auto last, ledger->LastCommittedBatches());
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(last["a"].batch_id, 7);
  EXPECT_EQ(last["a"].snapshot_id, 42);
  EXPECT_FALSE(last["a"].stats.has_value()) << "kept no stats before version 3";
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("a", {"/a/2"}));
  EXPECT_EQ(batch, 8);
  LedgerExpectationCount positive;
  positive.name = "positive";
  positive.action = "drop";
  positive.checked = 1;
  positive.failed = 1;
  ASSERT_OK(ledger->CommitBatch(batch, 43, Stats(1, 0, 10), {positive}));
  ASSERT_OK_AND_ASSIGN(auto sums, ledger->CommittedSince(0));
  EXPECT_EQ(sums["a"].inserted, 1);
  ASSERT_OK_AND_ASSIGN(auto counts, ledger->ExpectationCounts(std::string("a")));
  ASSERT_EQ(counts.size(), 1u) << "migrated through version 3 to 4";
  EXPECT_EQ(counts[0].failed, 1);
}

}  // namespace
}  // namespace floe::ingest
