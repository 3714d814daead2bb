#include "ingest/state/ledger.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "test_util.h"
#include "unit/ingest_state/ledger_backends.h"

namespace floe::ingest {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

SourceUnit File(const std::string& uri, const std::string& table, const std::string& order_key,
                int64_t size = 100, int64_t mtime_ms = 1000) {
  SourceUnit file;
  file.uri = uri;
  file.table = table;
  file.order_key = order_key;
  file.size = size;
  file.mtime_ms = mtime_ms;
  return file;
}

std::vector<std::string> Uris(const std::vector<LedgerFile>& files) {
  std::vector<std::string> uris;
  for (const LedgerFile& file : files) uris.push_back(file.file.uri);
  return uris;
}

LedgerFile OnlyFile(Ledger& ledger, const std::string& uri) {
  auto files = ledger.Files({});
  EXPECT_TRUE(files.ok());
  for (const LedgerFile& file : *files) {
    if (file.file.uri == uri) return file;
  }
  ADD_FAILURE() << "no file " << uri;
  return {};
}

// SQLite only: the files in the state dir, SQLite's own damage and older layouts.
class LedgerTest : public ::testing::Test {
 protected:
  std::string StateDir() const { return dir_.File("state/nested/pipeline"); }
  floe::testing::TempDir dir_;
};

// Every backend (ledger_backends.h).
class LedgerContractTest : public LedgerBackendTest {};
INSTANTIATE_TEST_SUITE_P(Backends, LedgerContractTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST_F(LedgerTest, OpenCreatesTheStateDirWithDatabaseAndLock) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Ledger::Open(StateDir()));
  EXPECT_TRUE(std::filesystem::is_regular_file(StateDir() + "/ledger.db"));
  EXPECT_TRUE(std::filesystem::is_regular_file(StateDir() + "/ledger.lock"));
  ASSERT_OK_AND_ASSIGN(auto files, ledger->Files({}));
  EXPECT_TRUE(files.empty());
  ASSERT_OK_AND_ASSIGN(auto tables, ledger->TablesWithWork());
  EXPECT_TRUE(tables.empty());
  EXPECT_FALSE(Ledger::Open("").ok());
}

TEST_P(LedgerContractTest, RecordDiscoveredKeepsEveryFieldAndPendingFollowsOrderKey) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  SourceUnit detailed = File("s3://b/t/fp/200/part-1.parquet", "pc_policy", "0002");
  detailed.fingerprint = "abc123";
  detailed.folder_timestamp_ms = 1664585730000;
  detailed.partition_values = {{"year", "2026"}, {"na&me=", "50% off\nnow"}, {"", ""}};
  ASSERT_OK_AND_ASSIGN(auto result, ledger->RecordDiscovered(
                                        {File("/t/c", "pc_policy", "0003"), detailed,
                                         File("/t/a", "pc_policy", "0001"), File("/u/a", "pc_user", "0001")},
                                        5000));
  EXPECT_EQ(result.new_files, 4);
  EXPECT_TRUE(result.changed_after_ingest.empty());

  ASSERT_OK_AND_ASSIGN(auto pending, ledger->Pending("pc_policy"));
  EXPECT_THAT(Uris(pending), ElementsAre("/t/a", "s3://b/t/fp/200/part-1.parquet", "/t/c"));
  const LedgerFile& stored = pending[1];
  EXPECT_EQ(stored.file.table, "pc_policy");
  EXPECT_EQ(stored.file.size, 100);
  EXPECT_EQ(stored.file.mtime_ms, 1000);
  EXPECT_EQ(stored.file.order_key, "0002");
  EXPECT_EQ(stored.file.fingerprint, "abc123");
  EXPECT_EQ(stored.file.folder_timestamp_ms, 1664585730000);
  EXPECT_EQ(stored.file.partition_values, detailed.partition_values);
  EXPECT_EQ(stored.state, FileState::kDiscovered);
  EXPECT_FALSE(stored.batch_id.has_value());
  EXPECT_EQ(stored.discovered_at_ms, 5000);
  EXPECT_EQ(stored.updated_at_ms, 5000);
  ASSERT_OK_AND_ASSIGN(auto tables, ledger->TablesWithWork());
  EXPECT_THAT(tables, ElementsAre("pc_policy", "pc_user"));

  // Seen again: nothing new; a still-discovered file that changed takes the new values.
  ASSERT_OK_AND_ASSIGN(auto again,
                       ledger->RecordDiscovered({File("/t/a", "pc_policy", "0001", 150, 2000)}, 9000));
  EXPECT_EQ(again.new_files, 0);
  EXPECT_TRUE(again.changed_after_ingest.empty());
  LedgerFile changed = OnlyFile(*ledger, "/t/a");
  EXPECT_EQ(changed.file.size, 150);
  EXPECT_EQ(changed.file.mtime_ms, 2000);
  EXPECT_EQ(changed.discovered_at_ms, 5000);
  EXPECT_EQ(changed.updated_at_ms, 9000);

  SourceUnit no_table = File("/x", "", "1");
  EXPECT_FALSE(ledger->RecordDiscovered({no_table}, 1).ok());
}

TEST_P(LedgerContractTest, BatchLifecycleCommitAndRelease) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(ledger->RecordDiscovered(
      {File("/t/1", "t", "1"), File("/t/2", "t", "2"), File("/t/3", "t", "3"), File("/u/1", "u", "1")}, 1));

  ASSERT_OK_AND_ASSIGN(int64_t first, ledger->OpenBatch("t", {"/t/2", "/t/1"}));
  ASSERT_OK_AND_ASSIGN(auto pending, ledger->Pending("t"));
  EXPECT_THAT(Uris(pending), ElementsAre("/t/3"));
  LedgerFile in_batch = OnlyFile(*ledger, "/t/1");
  EXPECT_EQ(in_batch.state, FileState::kInBatch);
  EXPECT_EQ(in_batch.batch_id, first);
  ASSERT_OK_AND_ASSIGN(auto open, ledger->OpenBatches());
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].batch_id, first);
  EXPECT_EQ(open[0].table, "t");
  EXPECT_FALSE(open[0].committed);
  EXPECT_THAT(open[0].uris, ElementsAre("/t/2", "/t/1"));  // the order given

  ASSERT_OK(ledger->CommitBatch(first, 777));
  LedgerFile committed = OnlyFile(*ledger, "/t/2");
  EXPECT_EQ(committed.state, FileState::kCommitted);
  EXPECT_EQ(committed.snapshot_id, 777);
  EXPECT_EQ(committed.batch_id, first);
  ASSERT_OK_AND_ASSIGN(open, ledger->OpenBatches());
  EXPECT_TRUE(open.empty());
  EXPECT_OK(ledger->CommitBatch(first, 777));  // repeating the same commit is harmless
  auto other_snapshot = ledger->CommitBatch(first, 778);
  EXPECT_EQ(other_snapshot.kind(), ErrorKind::kInvalidArgument);
  EXPECT_THAT(other_snapshot.message(), HasSubstr("already committed with snapshot 777"));
  EXPECT_EQ(ledger->CommitBatch(999, 1).kind(), ErrorKind::kNotFound);
  EXPECT_EQ(ledger->ReleaseBatch(first).kind(), ErrorKind::kInvalidArgument);

  ASSERT_OK_AND_ASSIGN(int64_t second, ledger->OpenBatch("t", {"/t/3"}));
  EXPECT_GT(second, first);
  ASSERT_OK(ledger->ReleaseBatch(second));
  LedgerFile released = OnlyFile(*ledger, "/t/3");
  EXPECT_EQ(released.state, FileState::kDiscovered);
  EXPECT_FALSE(released.batch_id.has_value());
  EXPECT_EQ(ledger->ReleaseBatch(second).kind(), ErrorKind::kNotFound);
  ASSERT_OK_AND_ASSIGN(int64_t third, ledger->OpenBatch("t", {"/t/3"}));
  EXPECT_GT(third, second);  // a released id is not reused
}

TEST_P(LedgerContractTest, OpenBatchRejectsFilesItCannotTakeAndChangesNothing) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(
      ledger->RecordDiscovered({File("/t/1", "t", "1"), File("/t/2", "t", "2"), File("/u/1", "u", "1")}, 1));
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("t", {"/t/1"}));
  (void)batch;

  auto in_batch = ledger->OpenBatch("t", {"/t/2", "/t/1"});
  ASSERT_FALSE(in_batch.ok());
  EXPECT_THAT(in_batch.status().message(), HasSubstr("file /t/1 is in_batch"));
  auto other_table = ledger->OpenBatch("t", {"/u/1"});
  EXPECT_THAT(other_table.status().message(), HasSubstr("belongs to table u, not t"));
  auto unknown = ledger->OpenBatch("t", {"/t/9"});
  EXPECT_EQ(unknown.status().kind(), ErrorKind::kNotFound);
  auto twice = ledger->OpenBatch("t", {"/t/2", "/t/2"});
  EXPECT_THAT(twice.status().message(), HasSubstr("listed twice"));
  EXPECT_FALSE(ledger->OpenBatch("t", {}).ok());

  EXPECT_EQ(OnlyFile(*ledger, "/t/2").state, FileState::kDiscovered);  // the failed calls rolled back
  ASSERT_OK_AND_ASSIGN(auto open, ledger->OpenBatches());
  EXPECT_EQ(open.size(), 1u);
}

TEST_P(LedgerContractTest, BatchIdsIncreaseAcrossReopenAndReset) {
  int64_t last = 0;
  for (int round = 0; round < 3; ++round) {
    ASSERT_OK_AND_ASSIGN(auto ledger, Open());
    std::string uri = "/t/" + std::to_string(round);
    ASSERT_OK(ledger->RecordDiscovered({File(uri, "t", uri)}, 1));
    ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("t", {uri}));
    EXPECT_GT(batch, last);
    last = batch;
    if (round == 1) ASSERT_OK(ledger->ResetTable("t"));  // drops the batches; ids go on
  }
}

TEST_P(LedgerContractTest, OpenBatchesSurviveReopen) {
  int64_t batch = 0;
  {
    ASSERT_OK_AND_ASSIGN(auto ledger, Open());
    ASSERT_OK(ledger->RecordDiscovered({File("/t/1", "t", "1"), File("/t/2", "t", "2")}, 1));
    ASSERT_OK_AND_ASSIGN(batch, ledger->OpenBatch("t", {"/t/1", "/t/2"}));
  }
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK_AND_ASSIGN(auto open, ledger->OpenBatches());
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].batch_id, batch);
  EXPECT_THAT(open[0].uris, ElementsAre("/t/1", "/t/2"));
  ASSERT_OK_AND_ASSIGN(auto tables, ledger->TablesWithWork());
  EXPECT_THAT(tables, ElementsAre("t"));  // an open batch is work even with nothing pending
}

TEST_P(LedgerContractTest, QuarantineSkipAndRetry) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(ledger->RecordDiscovered(
      {File("/t/1", "t", "1"), File("/t/2", "t", "2"), File("/t/3", "t", "3"), File("/u/1", "u", "1")}, 1));
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("t", {"/t/1", "/t/2"}));

  ASSERT_OK(ledger->Quarantine("/t/1", "Corruption: bad page header"));
  LedgerFile quarantined = OnlyFile(*ledger, "/t/1");
  EXPECT_EQ(quarantined.state, FileState::kQuarantined);
  EXPECT_EQ(quarantined.reason, "Corruption: bad page header");
  EXPECT_FALSE(quarantined.batch_id.has_value());
  ASSERT_OK_AND_ASSIGN(auto open, ledger->OpenBatches());
  EXPECT_THAT(open[0].uris, ElementsAre("/t/2"));  // it left the batch
  ASSERT_OK(ledger->CommitBatch(batch, 5));
  EXPECT_EQ(OnlyFile(*ledger, "/t/1").state, FileState::kQuarantined);  // commit does not touch it

  ASSERT_OK(ledger->Skip("/t/3", "operator"));
  ASSERT_OK(ledger->Skip("/u/1", "empty"));
  EXPECT_EQ(OnlyFile(*ledger, "/t/3").state, FileState::kSkipped);
  auto from_committed = ledger->Quarantine("/t/2", "x");
  EXPECT_EQ(from_committed.kind(), ErrorKind::kInvalidArgument);
  EXPECT_THAT(from_committed.message(), HasSubstr("/t/2 is committed"));
  EXPECT_EQ(ledger->Skip("/t/2", "x").kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(ledger->Quarantine("/nope", "x").kind(), ErrorKind::kNotFound);

  ASSERT_OK_AND_ASSIGN(auto set_aside, ledger->Files({std::nullopt, FileState::kSkipped}));
  EXPECT_THAT(Uris(set_aside), ElementsAre("/t/3", "/u/1"));
  ASSERT_OK_AND_ASSIGN(auto t_skipped, ledger->Files({std::string("t"), FileState::kSkipped}));
  EXPECT_THAT(Uris(t_skipped), ElementsAre("/t/3"));

  ASSERT_OK_AND_ASSIGN(int64_t retried, ledger->Retry(std::string("t")));
  EXPECT_EQ(retried, 2);
  ASSERT_OK_AND_ASSIGN(auto pending, ledger->Pending("t"));
  EXPECT_THAT(Uris(pending), ElementsAre("/t/1", "/t/3"));
  EXPECT_EQ(pending[0].reason, "");
  EXPECT_EQ(OnlyFile(*ledger, "/u/1").state, FileState::kSkipped);
  ASSERT_OK_AND_ASSIGN(retried, ledger->Retry(std::nullopt));
  EXPECT_EQ(retried, 1);
  EXPECT_EQ(OnlyFile(*ledger, "/u/1").state, FileState::kDiscovered);
}

TEST_P(LedgerContractTest, ChangedAfterIngestIsReportedAndLeftAlone) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(
      ledger->RecordDiscovered({File("/t/1", "t", "1"), File("/t/2", "t", "2"), File("/t/3", "t", "3")}, 1));
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("t", {"/t/1"}));
  ASSERT_OK(ledger->CommitBatch(batch, 9));
  ASSERT_OK(ledger->Quarantine("/t/2", "bad"));

  ASSERT_OK_AND_ASSIGN(auto result, ledger->RecordDiscovered(
                                        {File("/t/1", "t", "1", 101, 1000), File("/t/2", "t", "2", 100, 1001),
                                         File("/t/3", "t", "3", 100, 1000)},
                                        2));
  EXPECT_EQ(result.new_files, 0);
  // Issue 15 item 11: a quarantined file was never ingested, so its new
  // version is taken again instead of being "changed after it was ingested".
  EXPECT_THAT(result.changed_after_ingest, ElementsAre("/t/1"));
  ASSERT_EQ(result.requeued.size(), 1u);
  EXPECT_EQ(result.requeued[0], (std::pair<std::string, std::string>{"/t/2", "bad"}));
  LedgerFile committed = OnlyFile(*ledger, "/t/1");
  EXPECT_EQ(committed.file.size, 100);  // the ledger keeps what was ingested
  EXPECT_EQ(committed.state, FileState::kCommitted);
  LedgerFile requeued = OnlyFile(*ledger, "/t/2");
  EXPECT_EQ(requeued.state, FileState::kDiscovered);
  EXPECT_EQ(requeued.file.mtime_ms, 1001);
  EXPECT_EQ(requeued.reason, "");
  // Reported once: the next listing of the same version is quiet.
  ASSERT_OK_AND_ASSIGN(auto again, ledger->RecordDiscovered({File("/t/2", "t", "2", 100, 1001)}, 3));
  EXPECT_TRUE(again.requeued.empty());
  // A skipped file stays skipped (the operator set it aside on purpose).
  ASSERT_OK(ledger->Skip("/t/3", "resent later"));
  ASSERT_OK_AND_ASSIGN(auto skipped, ledger->RecordDiscovered({File("/t/3", "t", "3", 7, 5000)}, 4));
  EXPECT_THAT(skipped.changed_after_skip, ElementsAre("/t/3"));
  EXPECT_EQ(OnlyFile(*ledger, "/t/3").state, FileState::kSkipped);
}

// Issue 15 item 13: files put back one by one (floe files --retry FILE|GLOB).
TEST_P(LedgerContractTest, RetryFilesTakesQuarantinedAndSkippedFilesAllOrNone) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(
      ledger->RecordDiscovered({File("/t/1", "t", "1"), File("/t/2", "t", "2"), File("/t/3", "t", "3")}, 1));
  ASSERT_OK(ledger->Quarantine("/t/1", "bad"));
  ASSERT_OK(ledger->Skip("/t/2", "on purpose"));
  Status mixed = ledger->RetryFiles({"/t/1", "/t/3"});
  EXPECT_EQ(mixed.kind(), ErrorKind::kInvalidArgument);
  EXPECT_EQ(OnlyFile(*ledger, "/t/1").state, FileState::kQuarantined);  // nothing changed
  EXPECT_EQ(ledger->RetryFiles({"/t/9"}).kind(), ErrorKind::kNotFound);
  ASSERT_OK(ledger->RetryFiles({"/t/1", "/t/2"}));
  EXPECT_EQ(OnlyFile(*ledger, "/t/1").state, FileState::kDiscovered);
  EXPECT_EQ(OnlyFile(*ledger, "/t/2").state, FileState::kDiscovered);
  EXPECT_EQ(OnlyFile(*ledger, "/t/2").reason, "");
}

TEST_P(LedgerContractTest, ResetTableForgetsOneTable) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(
      ledger->RecordDiscovered({File("/t/1", "t", "1"), File("/t/2", "t", "2"), File("/u/1", "u", "1")}, 1));
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("t", {"/t/1"}));
  (void)batch;
  ASSERT_OK(ledger->SetWatermark({"t", 100, {"fp1"}}));
  ASSERT_OK(ledger->SetWatermark({"u", 200, {"fp2"}}));

  ASSERT_OK(ledger->ResetTable("t"));
  ASSERT_OK_AND_ASSIGN(auto files, ledger->Files({}));
  EXPECT_THAT(Uris(files), ElementsAre("/u/1"));
  ASSERT_OK_AND_ASSIGN(auto open, ledger->OpenBatches());
  EXPECT_TRUE(open.empty());
  ASSERT_OK_AND_ASSIGN(auto t_mark, ledger->Watermark("t"));
  EXPECT_FALSE(t_mark.has_value());
  ASSERT_OK_AND_ASSIGN(auto u_mark, ledger->Watermark("u"));
  ASSERT_TRUE(u_mark.has_value());
  EXPECT_EQ(u_mark->last_successful_write_ms, 200);
  ASSERT_OK_AND_ASSIGN(auto all, ledger->Watermarks());
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all.at("u").last_successful_write_ms, 200);
  EXPECT_EQ(all.at("u").fingerprints, std::vector<std::string>{"fp2"});

  // The table can be discovered again from scratch.
  ASSERT_OK_AND_ASSIGN(auto again, ledger->RecordDiscovered({File("/t/1", "t", "1")}, 3));
  EXPECT_EQ(again.new_files, 1);
}

// Lookups and the move into a batch go a few hundred units per statement:
// past that size, order, duplicates and errors behave as for a few.
TEST_P(LedgerContractTest, ManyUnitsPerCallKeepTheirOrderAndChecks) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  std::vector<SourceUnit> files;
  for (int i = 0; i < 450; ++i)
    files.push_back(File("/m/" + std::to_string(i), "m", std::to_string(1000 + i)));
  files.push_back(files[7]);  // listed twice in one call: recorded once
  ASSERT_OK_AND_ASSIGN(auto recorded, ledger->RecordDiscovered(files, 1));
  EXPECT_EQ(recorded.new_files, 450);
  files.pop_back();
  ASSERT_OK_AND_ASSIGN(auto again, ledger->RecordDiscovered(files, 2));
  EXPECT_EQ(again.new_files, 0);
  std::vector<std::string> order;
  for (int i = 449; i >= 0; --i) order.push_back("/m/" + std::to_string(i));  // a batch in its own order
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("m", order));
  ASSERT_OK_AND_ASSIGN(auto open, ledger->OpenBatches());
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].batch_id, batch);
  EXPECT_EQ(open[0].uris, order);
  // One unknown or taken file among hundreds refuses the whole batch.
  ASSERT_OK(ledger->ReleaseBatch(batch));
  order.push_back("/m/unknown");
  EXPECT_EQ(ledger->OpenBatch("m", order).status().kind(), ErrorKind::kNotFound);
  order.pop_back();
  ASSERT_OK(ledger->OpenBatch("m", {"/m/300"}).status());
  auto taken = ledger->OpenBatch("m", order);
  EXPECT_EQ(taken.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_THAT(taken.status().message(), HasSubstr("/m/300 is in_batch"));
  ASSERT_OK_AND_ASSIGN(auto pending, ledger->Pending("m"));
  EXPECT_EQ(pending.size(), 449u);
}

TEST_P(LedgerContractTest, WatermarksRoundTrip) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK_AND_ASSIGN(auto none, ledger->Watermark("t"));
  EXPECT_FALSE(none.has_value());
  ASSERT_OK(ledger->SetWatermark({"t", 1562112543759, {"123456789", "odd&=%\nname", ""}}));
  ASSERT_OK_AND_ASSIGN(auto mark, ledger->Watermark("t"));
  ASSERT_TRUE(mark.has_value());
  EXPECT_EQ(mark->table, "t");
  EXPECT_EQ(mark->last_successful_write_ms, 1562112543759);
  EXPECT_THAT(mark->fingerprints, ElementsAre("123456789", "odd&=%\nname", ""));
  ASSERT_OK(ledger->SetWatermark({"t", 5, {}}));
  ASSERT_OK_AND_ASSIGN(mark, ledger->Watermark("t"));
  EXPECT_EQ(mark->last_successful_write_ms, 5);
  EXPECT_TRUE(mark->fingerprints.empty());
  EXPECT_FALSE(ledger->SetWatermark({"", 1, {}}).ok());
}

TEST_F(LedgerTest, SecondOpenOfTheSameStateDirFails) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Ledger::Open(StateDir()));
  auto second = Ledger::Open(StateDir());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().kind(), ErrorKind::kInvalidArgument);
  EXPECT_THAT(second.status().message(), HasSubstr("another floe process is using state dir " + StateDir()));
  EXPECT_THAT(second.status().message(), HasSubstr("(pid " + std::to_string(::getpid()) + ")"));
  ledger.reset();
  ASSERT_OK_AND_ASSIGN(auto reopened, Ledger::Open(StateDir()));
}

// `floe files` beside a running `floe run`: a read-only open takes no lock,
// sees committed changes, and cannot change anything.
TEST_P(LedgerContractTest, ReadOnlyOpenWorksWhileTheWriterHoldsTheLock) {
  EXPECT_EQ(OpenReadOnly().status().kind(), ErrorKind::kNotFound);
  ASSERT_OK_AND_ASSIGN(auto writer, Open());
  ASSERT_OK(writer->RecordDiscovered({File("/t/1", "t", "1")}, 1));
  ASSERT_OK_AND_ASSIGN(auto reader, OpenReadOnly());
  ASSERT_OK_AND_ASSIGN(auto files, reader->Files({}));
  EXPECT_THAT(Uris(files), ElementsAre("/t/1"));
  ASSERT_OK_AND_ASSIGN(int64_t batch, writer->OpenBatch("t", {"/t/1"}));
  ASSERT_OK_AND_ASSIGN(auto open, reader->OpenBatches());
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].batch_id, batch);
  EXPECT_FALSE(reader->Quarantine("/t/1", "read-only").ok());
  ASSERT_OK_AND_ASSIGN(auto still, writer->Files({}));
  EXPECT_EQ(still[0].state, FileState::kInBatch);
}

TEST_P(LedgerContractTest, ABatchOpenedByAProcessThatDiesIsStillOpenAfterReopen) {
  {
    ASSERT_OK_AND_ASSIGN(auto ledger, Open());
    ASSERT_OK(ledger->RecordDiscovered({File("/t/1", "t", "1"), File("/t/2", "t", "2")}, 1));
  }
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // No destructors, no close: the process just ends after the call returned.
    auto ledger = Open();
    if (!ledger.ok()) ::_exit(2);
    auto batch = (*ledger)->OpenBatch("t", {"/t/2"});
    ::_exit(batch.ok() && *batch == 1 ? 0 : 3);
  }
  int wait_status = 0;
  ASSERT_EQ(::waitpid(child, &wait_status, 0), child);
  ASSERT_TRUE(WIFEXITED(wait_status));
  ASSERT_EQ(WEXITSTATUS(wait_status), 0);

  ASSERT_OK_AND_ASSIGN(auto ledger, Open());  // the dead process's lock is gone
  ASSERT_OK_AND_ASSIGN(auto open, ledger->OpenBatches());
  ASSERT_EQ(open.size(), 1u);
  EXPECT_EQ(open[0].batch_id, 1);
  EXPECT_THAT(open[0].uris, ElementsAre("/t/2"));
  ASSERT_OK_AND_ASSIGN(auto pending, ledger->Pending("t"));
  EXPECT_THAT(Uris(pending), ElementsAre("/t/1"));
}

// Scale-out: every worker of a pipeline opens its PostgreSQL ledger; their
// calls are serialised, so batch ids stay unique however they interleave.
TEST_P(LedgerContractTest, WorkersOfAPipelineShareItsPostgresLedger) {
  if (!OnPostgres()) GTEST_SKIP() << "the SQLite lock: SecondOpenOfTheSameStateDirFails";
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK_AND_ASSIGN(auto second, Open());
  std::vector<SourceUnit> files;
  for (int i = 0; i < 40; ++i)
    files.push_back(File("/t/" + std::to_string(i), i % 2 ? "odd" : "even", std::to_string(100 + i)));
  ASSERT_OK(ledger->RecordDiscovered(files, 1).status());
  ASSERT_OK(second->RecordDiscovered(files, 2).status());  // the other worker saw the same listing
  std::vector<int64_t> ids[2];
  auto open_batches = [&](Ledger& worker, const std::string& table, std::vector<int64_t>& out) {
    auto pending = worker.Pending(table);
    ASSERT_OK(pending.status());
    for (const LedgerFile& file : *pending) {
      auto batch = worker.OpenBatch(table, {file.file.uri});
      ASSERT_OK(batch.status());
      out.push_back(*batch);
    }
  };
  std::thread even([&] { open_batches(*ledger, "even", ids[0]); });
  std::thread odd([&] { open_batches(*second, "odd", ids[1]); });
  even.join();
  odd.join();
  std::set<int64_t> all(ids[0].begin(), ids[0].end());
  all.insert(ids[1].begin(), ids[1].end());
  EXPECT_EQ(ids[0].size() + ids[1].size(), 40u);
  EXPECT_EQ(all.size(), 40u);
  // Another pipeline in the same database is independent, and readers take no lock.
  LedgerOptions other = Options();
  other.pipeline += "_other";
  ASSERT_OK_AND_ASSIGN(auto other_ledger, Ledger::Open(other));
  ASSERT_OK(other_ledger->RecordDiscovered({File("/o/1", "o", "1")}, 1).status());
  ASSERT_OK_AND_ASSIGN(auto mine, ledger->Files({}));
  EXPECT_EQ(mine.size(), 40u);  // not the other pipeline's file
  ASSERT_OK_AND_ASSIGN(auto reader, OpenReadOnly());
  other_ledger.reset();
  auto connection = sql::OpenSqlConnection(pg_uri_);
  ASSERT_OK(connection.status());
  ASSERT_OK((*connection)->Execute("DROP SCHEMA \"floe_ledger_" + other.pipeline + "\" CASCADE").status());
}

// A PostgreSQL ledger whose connection is lost fails the call in progress
// with a retryable error (nothing of it is kept) and reconnects at the next call.
TEST_P(LedgerContractTest, ALostConnectionIsRetryableAndTheNextCallReconnects) {
  if (!OnPostgres()) GTEST_SKIP() << "PostgreSQL only";
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(ledger->RecordDiscovered({File("/t/1", "t", "1")}, 1).status());
  auto admin = sql::OpenSqlConnection(pg_uri_);
  ASSERT_OK(admin.status());
  auto kill = [&]() {
    ASSERT_OK_AND_ASSIGN(auto killed,
                         (*admin)->Execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                           "WHERE application_name = ?",
                                           {"floe " + pipeline_ + " pid " + std::to_string(::getpid())}));
    ASSERT_EQ(killed.rows.size(), 1u);
  };
  kill();
  auto lost = ledger->OpenBatch("t", {"/t/1"});
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().kind(), ErrorKind::kIOError) << lost.status().ToString();
  EXPECT_TRUE(lost.status().retryable()) << lost.status().ToString();
  EXPECT_THAT(lost.status().ToString(), ::testing::Not(HasSubstr("floe:floe@")));
  ASSERT_OK_AND_ASSIGN(auto pending, ledger->Pending("t"));  // reconnected
  EXPECT_THAT(Uris(pending), ElementsAre("/t/1"));
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("t", {"/t/1"}));
  EXPECT_EQ(batch, 1);
}

TEST_F(LedgerTest, ADamagedDatabaseIsAnErrorNotACrash) {
  std::filesystem::create_directories(StateDir());
  {
    std::ofstream out(StateDir() + "/ledger.db", std::ios::binary);
    out << std::string(8192, 'x');
  }
  auto ledger = Ledger::Open(StateDir());
  ASSERT_FALSE(ledger.ok());
  EXPECT_EQ(ledger.status().kind(), ErrorKind::kCorruption) << ledger.status().ToString();
  EXPECT_THAT(ledger.status().message(), HasSubstr(StateDir()));
}

SourceUnit Range(const std::string& partition, const std::string& first, const std::string& last) {
  SourceUnit unit;
  unit.kind = UnitKind::kStreamRange;
  unit.table = "orders";
  unit.range = StreamRange{"shop.orders", partition, first, last};
  unit.uri = StreamRangeUri("kafka", unit.range);
  unit.order_key = partition + "/" + first;
  unit.size = 10;
  return unit;
}

TEST_P(LedgerContractTest, StreamRangesRoundTripAndNeverOverlap) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  // Positions beyond 64 and 128 bits (Kinesis sequence numbers have 56 digits, up to 129) keep every digit.
  const std::string big = "49590338271490256608559692538361571095921575989136588898";
  ASSERT_OK(
      ledger->RecordDiscovered({Range("0", "0", "99"), Range("0", "100", "199"), Range("1", "5", "5")}, 1)
          .status());
  SourceUnit kinesis = Range("shardId-000000000001", big.substr(0, 55), big);
  ASSERT_OK(ledger->RecordDiscovered({kinesis}, 1).status());
  LedgerFile stored = OnlyFile(*ledger, kinesis.uri);
  EXPECT_EQ(stored.file.kind, UnitKind::kStreamRange);
  EXPECT_EQ(stored.file.range.stream, "shop.orders");
  EXPECT_EQ(stored.file.range.partition, "shardId-000000000001");
  EXPECT_EQ(stored.file.range.first, big.substr(0, 55));
  EXPECT_EQ(stored.file.range.last, big);
  const std::string longest = "1" + std::string(128, '7');  // 129 digits, the API's maximum
  ASSERT_OK(ledger->RecordDiscovered({Range("shardId-000000000002", longest, longest)}, 1).status());
  EXPECT_EQ(OnlyFile(*ledger, StreamRangeUri("kafka", StreamRange{"shop.orders", "shardId-000000000002",
                                                                  longest, longest}))
                .file.range.last,
            longest);
  EXPECT_EQ(ledger->RecordDiscovered({Range("shardId-000000000003", "1", longest + "0")}, 1).status().kind(),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(OnlyFile(*ledger, "kafka://shop.orders/0/100-199").file.range.first, "100");

  // Recording the same range again is a no-op; an overlapping one is refused and changes nothing.
  ASSERT_OK_AND_ASSIGN(auto again, ledger->RecordDiscovered({Range("0", "0", "99")}, 2));
  EXPECT_EQ(again.new_files, 0);
  for (auto [first, last] : {std::pair{"150", "250"}, std::pair{"50", "60"}, std::pair{"199", "199"}}) {
    Status overlap =
        ledger->RecordDiscovered({Range("0", first, last), Range("0", "1000", "1001")}, 3).status();
    EXPECT_EQ(overlap.kind(), ErrorKind::kInvalidArgument) << first << "-" << last;
    EXPECT_THAT(overlap.message(), HasSubstr("overlaps kafka://shop.orders/0/"));
  }
  EXPECT_EQ(ledger->Files({}).ValueOr({}).size(), 5u);  // the good range of a refused call was not kept
  ASSERT_OK(ledger->RecordDiscovered({Range("0", "200", "299"), Range("1", "6", "9")}, 4).status());

  for (auto [first, last] :
       {std::pair{"9", "3"}, std::pair{"01", "3"}, std::pair{"", "3"}, std::pair{"1x", "3"}}) {
    EXPECT_EQ(ledger->RecordDiscovered({Range("2", first, last)}, 5).status().kind(),
              ErrorKind::kInvalidArgument)
        << first << "-" << last;
  }
}

// New units go in several to a statement (32 a statement): a poll of many
// files, ranges among them, and the same unit listed twice must come out as
// if inserted one by one.
TEST_P(LedgerContractTest, APollOfManyUnitsIsRecordedWholeAcrossStatements) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  std::vector<SourceUnit> units;
  for (int i = 0; i < 70; ++i) {
    char key[8];
    std::snprintf(key, sizeof(key), "%04d", i);
    SourceUnit file = File("/t/" + std::string(key), i % 3 == 0 ? "a" : "b", key, 100 + i, 1000 + i);
    file.fingerprint = "fp" + std::to_string(i);
    file.folder_timestamp_ms = 1664585730000 + i;
    file.partition_values = {{"n", std::to_string(i)}};
    units.push_back(file);
    if (i == 40) units.push_back(Range("0", "0", "99"));
    if (i == 41) units.push_back(Range("0", "100", "199"));
  }
  units.push_back(units[5]);  // listed twice in one poll
  ASSERT_OK_AND_ASSIGN(auto result, ledger->RecordDiscovered(units, 7000));
  EXPECT_EQ(result.new_files, 72);
  ASSERT_OK_AND_ASSIGN(auto files, ledger->Files({}));
  ASSERT_EQ(files.size(), 72u);
  for (int i : {0, 31, 32, 33, 63, 64, 69}) {
    char key[8];
    std::snprintf(key, sizeof(key), "%04d", i);
    LedgerFile stored = OnlyFile(*ledger, "/t/" + std::string(key));
    EXPECT_EQ(stored.file.table, i % 3 == 0 ? "a" : "b") << i;
    EXPECT_EQ(stored.file.size, 100 + i);
    EXPECT_EQ(stored.file.mtime_ms, 1000 + i);
    EXPECT_EQ(stored.file.order_key, key);
    EXPECT_EQ(stored.file.fingerprint, "fp" + std::to_string(i));
    EXPECT_EQ(stored.file.folder_timestamp_ms, 1664585730000 + i);
    EXPECT_EQ(stored.file.partition_values,
              (std::vector<std::pair<std::string, std::string>>{{"n", std::to_string(i)}}));
    EXPECT_EQ(stored.file.kind, UnitKind::kFile);
    EXPECT_EQ(stored.state, FileState::kDiscovered);
    EXPECT_EQ(stored.discovered_at_ms, 7000);
  }
  EXPECT_EQ(OnlyFile(*ledger, "kafka://shop.orders/0/100-199").file.range.last, "199");

  // Two ranges of one call that overlap each other are refused, and the
  // files recorded before them in that call go too.
  std::vector<SourceUnit> overlapping;
  for (int i = 0; i < 40; ++i) overlapping.push_back(File("/u/" + std::to_string(i), "u", "1"));
  overlapping.push_back(Range("1", "0", "9"));
  overlapping.push_back(Range("1", "5", "20"));
  Status refused = ledger->RecordDiscovered(overlapping, 8000).status();
  EXPECT_EQ(refused.kind(), ErrorKind::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr("overlaps kafka://shop.orders/1/0-9"));
  EXPECT_EQ(ledger->Files({}).ValueOr({}).size(), 72u);
}

TEST_P(LedgerContractTest, SetWatermarksWritesSeveralTablesInOneCall) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(ledger->SetWatermarks({}));
  ASSERT_OK(ledger->SetWatermarks({{"t", 100, {"fp1"}}, {"u", 200, {"fp2", "fp3"}}}));
  ASSERT_OK(ledger->SetWatermarks({{"u", 300, {"fp4"}}}));
  ASSERT_OK_AND_ASSIGN(auto marks, ledger->Watermarks());
  ASSERT_EQ(marks.size(), 2u);
  EXPECT_EQ(marks["t"].last_successful_write_ms, 100);
  EXPECT_EQ(marks["u"].last_successful_write_ms, 300);
  EXPECT_EQ(marks["u"].fingerprints, std::vector<std::string>{"fp4"});
  // A nameless one refuses the whole call.
  EXPECT_EQ(ledger->SetWatermarks({{"v", 1, {}}, {"", 2, {}}}).kind(), ErrorKind::kInvalidArgument);
  ASSERT_OK_AND_ASSIGN(auto after, ledger->Watermarks());
  EXPECT_EQ(after.count("v"), 0u);
}

TEST_F(LedgerTest, AVersionOneLedgerIsMigratedInPlace) {
  std::filesystem::create_directories(StateDir());
  {
    // The layout floe wrote before stream units existed, with one committed file.
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((StateDir() + "/ledger.db").c_str(), &db), SQLITE_OK);
    const char* v1 =
        "CREATE TABLE meta(key TEXT PRIMARY KEY, value INTEGER NOT NULL);"
        "CREATE TABLE files(uri TEXT PRIMARY KEY, tbl TEXT NOT NULL, size INTEGER NOT NULL, mtime_ms INTEGER "
        "NOT "
        "NULL, order_key TEXT NOT NULL, fingerprint TEXT NOT NULL, folder_ts INTEGER NOT NULL, "
        "partition_values "
        "TEXT NOT NULL, state TEXT NOT NULL, batch_id INTEGER, batch_seq INTEGER, snapshot_id INTEGER, "
        "reason "
        "TEXT NOT NULL, discovered_at_ms INTEGER NOT NULL, updated_at_ms INTEGER NOT NULL);"
        "CREATE TABLE batches(batch_id INTEGER PRIMARY KEY, tbl TEXT NOT NULL, committed INTEGER NOT NULL, "
        "snapshot_id INTEGER, created_at_ms INTEGER NOT NULL);"
        "CREATE TABLE watermarks(tbl TEXT PRIMARY KEY, last_ms INTEGER NOT NULL, fingerprints TEXT NOT NULL);"
        "INSERT INTO meta VALUES ('next_batch_id', 8), ('schema_version', 1);"
        "INSERT INTO batches VALUES (7, 'cc_claim', 1, 42, 1);"
        "INSERT INTO files VALUES ('/cda/cc_claim/f/1/a.parquet', 'cc_claim', 10, 1, 'k', 'f', 1, '', "
        "'committed', 7, 0, 42, '', 1, 1);";
    ASSERT_EQ(sqlite3_exec(db, v1, nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  ASSERT_OK_AND_ASSIGN(auto ledger, Ledger::Open(StateDir()));
  LedgerFile file = OnlyFile(*ledger, "/cda/cc_claim/f/1/a.parquet");
  EXPECT_EQ(file.file.kind, UnitKind::kFile);
  EXPECT_EQ(file.state, FileState::kCommitted);
  EXPECT_EQ(file.snapshot_id, 42);
  ASSERT_OK(ledger->RecordDiscovered({Range("0", "0", "9")}, 1).status());
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("orders", {"kafka://shop.orders/0/0-9"}));
  EXPECT_EQ(batch, 8);  // ids continue after the migrated ones
  LedgerExpectationCount positive;
  positive.name = "positive";
  positive.action = "warn";
  positive.checked = 9;
  positive.passed = 9;
  ASSERT_OK(ledger->CommitBatch(batch, 43, std::nullopt, {positive}));  // the counts of version 4
  ledger.reset();
  ASSERT_OK_AND_ASSIGN(auto reopened, Ledger::Open(StateDir()));  // already version 4: opens as is
  EXPECT_EQ(reopened->Files({}).ValueOr({}).size(), 2u);
  EXPECT_EQ(reopened->ExpectationCounts(std::string("orders")).ValueOr({}).size(), 1u);
}

TEST_F(LedgerTest, ExpectationCountsCommitWithTheBatchAndAVersionThreeLedgerGainsThem) {
  { ASSERT_OK_AND_ASSIGN(auto ledger, Ledger::Open(StateDir())); }
  {
    // The layout of a version 3 ledger (batch stats and table conditions,
    // no batch_expectations).
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open((StateDir() + "/ledger.db").c_str(), &db), SQLITE_OK);
    ASSERT_EQ(
        sqlite3_exec(db,
                     "DROP TABLE batch_expectations; UPDATE meta SET value = 3 WHERE key = 'schema_version';",
                     nullptr, nullptr, nullptr),
        SQLITE_OK)
        << sqlite3_errmsg(db);
    sqlite3_close(db);
  }
  {
    // Read-only (`floe files`) does not migrate: a version 3 ledger has no counts.
    ASSERT_OK_AND_ASSIGN(auto read_only, Ledger::OpenReadOnly(StateDir()));
    ASSERT_OK_AND_ASSIGN(auto none, read_only->ExpectationCounts(std::nullopt));
    EXPECT_TRUE(none.empty());
  }
  ASSERT_OK_AND_ASSIGN(auto ledger, Ledger::Open(StateDir()));
  ASSERT_OK(ledger->RecordDiscovered({File("/cda/a.parquet", "cc_claim", "k")}, 1).status());
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("cc_claim", {"/cda/a.parquet"}));
  LedgerExpectationCount positive;
  positive.name = "positive";
  positive.action = "drop";
  positive.checked = 10;
  positive.passed = 7;
  positive.failed = 3;
  LedgerExpectationCount known = positive;
  known.name = "known";
  known.action = "warn";
  ASSERT_OK(ledger->CommitBatch(batch, 42, std::nullopt, {positive, known}));
  ASSERT_OK_AND_ASSIGN(auto counts, ledger->ExpectationCounts(std::string("cc_claim")));
  ASSERT_EQ(counts.size(), 2u);
  EXPECT_EQ(counts[0].batch_id, batch);
  EXPECT_EQ(counts[0].table, "cc_claim");
  EXPECT_EQ(counts[0].name, "positive");  // in the order recorded
  EXPECT_EQ(counts[0].action, "drop");
  EXPECT_EQ(counts[0].checked, 10);
  EXPECT_EQ(counts[0].passed, 7);
  EXPECT_EQ(counts[0].failed, 3);
  EXPECT_EQ(counts[1].name, "known");
  EXPECT_TRUE(ledger->ExpectationCounts(std::string("other")).ValueOr({{}}).empty());
  ledger.reset();
  {
    ASSERT_OK_AND_ASSIGN(auto read_only, Ledger::OpenReadOnly(StateDir()));
    EXPECT_EQ(read_only->ExpectationCounts(std::nullopt).ValueOr({}).size(), 2u) << "migrated to version 4";
  }
  ASSERT_OK_AND_ASSIGN(ledger, Ledger::Open(StateDir()));
  ASSERT_OK(ledger->ResetTable("cc_claim"));
  EXPECT_TRUE(ledger->ExpectationCounts(std::nullopt).ValueOr({{}}).empty());
}

TEST_P(LedgerContractTest, StatesOfNamesTheStateOfEveryKnownUri) {
  ASSERT_OK_AND_ASSIGN(auto ledger, Open());
  ASSERT_OK(ledger->RecordDiscovered({File("/a", "t", "1"), File("/b", "t", "2"), File("/c", "t", "3")}, 1));
  ASSERT_OK_AND_ASSIGN(int64_t batch, ledger->OpenBatch("t", {"/a"}));
  ASSERT_OK(ledger->CommitBatch(batch, 42));
  ASSERT_OK(ledger->Quarantine("/c", "broken"));
  ASSERT_OK_AND_ASSIGN(auto states, ledger->StatesOf({"/a", "/b", "/c", "/unknown"}));
  EXPECT_EQ(states, (std::map<std::string, FileState>{{"/a", FileState::kCommitted},
                                                      {"/b", FileState::kDiscovered},
                                                      {"/c", FileState::kQuarantined}}));
}

TEST_F(LedgerTest, FileStateNames) {
  EXPECT_STREQ(FileStateName(FileState::kDiscovered), "discovered");
  EXPECT_STREQ(FileStateName(FileState::kInBatch), "in_batch");
  EXPECT_STREQ(FileStateName(FileState::kCommitted), "committed");
  EXPECT_STREQ(FileStateName(FileState::kQuarantined), "quarantined");
  EXPECT_STREQ(FileStateName(FileState::kSkipped), "skipped");
}

}  // namespace
}  // namespace floe::ingest
