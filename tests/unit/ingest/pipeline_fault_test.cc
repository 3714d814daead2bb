// Fault injection at every I/O call of one pipeline batch (a merge of
// updates, a delete, a stale change and new keys into a table that already
// holds a committed batch), one test case per call index, for a filesystem
// and a SQLite catalog: the call fails (storage answers with a retryable
// error and the run goes on), or the process dies at it (with the write lost
// when the call publishes a file, or after a torn write that leaves half the
// file at its path). After a rerun without faults the table and the ledger
// are consistent: the rows equal those of a run without faults, every source
// file is committed once (and counted once by the table's snapshots), no
// batch id is in two snapshots and no batch is left open.
//
// A torn file is what storage without atomic publish leaves; torn writes
// run against the SQLite catalog only (fault_test_util.h says why).
#include "fault_test_util.h"
#include "pipeline_test_util.h"

namespace floe::ingest::pipeline_testing {
namespace {

using floe::testing::FaultCase;

[[maybe_unused]] const bool kTmpfs = (floe::testing::UseTmpfsForTempDirs(), true);

// max_calls: more than a batch's calls (120 with the filesystem catalog, 101
// with SQLite when written), so every call has a case in the exhaustive mode;
// slots: more than the batch's default spread (fault_test_util.h describes
// the two modes). TheCasesCoverEveryCallOfTheBatch says when to raise them.
constexpr floe::testing::FaultCoverage kCoverage{.max_calls = 192, .stride = 4, .slots = 64};

// The rows after both batches: 1 keeps its first version (its second change
// is older), 2 and 4 updated, 3 deleted, 5 untouched, 6 and 7 new.
const std::map<int64_t, std::string> kExpectedRows = {{1, "one"},  {2, "two v2"}, {4, "four v2"},
                                                      {5, "five"}, {6, "six"},    {7, "seven"}};

class PipelineFaultTest : public PipelineTest {
 protected:
  void UseCatalog(const std::string& kind) {
    config_.performance.threads = 1;  // one call order, so an index names the same call every run
    if (kind == "sql") {
      config_.catalog.type = "sql";
      config_.catalog.uri = "sqlite://" + (dir_.path() / "catalog.db").string();
    }
  }

  // Batch 1 committed without faults, batch 2 (two files of one folder) landed.
  void PrepareTheBatch() {
    WriteCdaFile("cc_claim", "1", 1000, "part-0.parquet",
                 {{1, "a", 0, "one"},
                  {2, "b", 0, "two"},
                  {3, "c", 0, "three"},
                  {4, "d", 0, "four"},
                  {5, "e", 0, "five"}});
    WriteManifest({{"cc_claim", 1000}});
    {
      ASSERT_OK_AND_ASSIGN(auto first, OpenPipeline());
      ASSERT_OK_AND_ASSIGN(RunSummary summary, first->RunOnce());
      ASSERT_TRUE(summary.ok()) << summary.Format();
    }
    WriteCdaFile("cc_claim", "1", 2000, "part-1.parquet",
                 {{2, "1b", 4, "two v2"}, {3, "1c", 1, ""}, {6, "1d", 0, "six"}});
    WriteCdaFile("cc_claim", "1", 2000, "part-2.parquet",
                 {{4, "1e", 4, "four v2"}, {7, "1f", 0, "seven"}, {1, "0", 4, "one stale"}});
    WriteManifest({{"cc_claim", 2000}});
  }

  // The calls the batch makes without faults, as FaultInjectingFileIO logs
  // them (measured once per catalog, in this test's directory, which is then
  // prepared again).
  const std::vector<std::string>& CallsOfACleanBatch(const std::string& catalog) {
    static std::map<std::string, std::vector<std::string>> calls;
    if (auto it = calls.find(catalog); it != calls.end()) return it->second;
    PrepareTheBatch();
    FaultInjectingFileIO counter(MakeLocalFileIO());
    auto summary = RunWith(counter, FaultPlan{});
    EXPECT_TRUE(summary.ok() && summary->ok())
        << (summary.ok() ? summary->Format() : summary.status().ToString());
    Wipe();
    return calls[catalog] = counter.CallLog();
  }

  void ExpectConsistentAfterACleanRerun() {
    ASSERT_OK_AND_ASSIGN(auto pipeline, OpenPipeline());
    ASSERT_OK_AND_ASSIGN(RunSummary summary, pipeline->RunOnce());
    EXPECT_TRUE(summary.ok()) << summary.Format() << log_.str();
    EXPECT_EQ(Rows("cc_claim"), kExpectedRows);
    // The ledger: every file committed, no batch left open.
    LedgerFilter all;
    all.table = "cc_claim";
    ASSERT_OK_AND_ASSIGN(std::vector<LedgerFile> files, pipeline->ledger().Files(all));
    ASSERT_EQ(files.size(), 3u);
    for (const LedgerFile& file : files) {
      EXPECT_EQ(file.state, FileState::kCommitted) << file.file.uri << ": " << FileStateName(file.state);
      EXPECT_TRUE(file.batch_id.has_value()) << file.file.uri;
    }
    ASSERT_OK_AND_ASSIGN(auto open, pipeline->ledger().OpenBatches());
    EXPECT_TRUE(open.empty());
    // The table: each batch id in one snapshot, each source file counted once.
    ASSERT_OK_AND_ASSIGN(iceberg::Table table, LoadTable("cc_claim"));
    std::set<std::string> batch_ids;
    int64_t source_files = 0;
    for (const iceberg::Snapshot& snapshot : table.metadata().snapshots) {
      auto batch = snapshot.summary.find(kSummaryBatchId);
      if (batch == snapshot.summary.end()) continue;
      EXPECT_TRUE(batch_ids.insert(batch->second).second) << "batch " << batch->second << " committed twice";
      auto counted = snapshot.summary.find("floe.source-files");
      if (counted != snapshot.summary.end()) source_files += std::stoll(counted->second);
    }
    EXPECT_EQ(source_files, 3);
  }

  // One case: the fault at `index`, then the clean rerun and the checks.
  void RunCase(const FaultCase& c) {
    UseCatalog(c.catalog);
    const std::vector<std::string>& calls = CallsOfACleanBatch(c.catalog);
    SCOPED_TRACE(floe::testing::FaultTrace(c, calls, kCoverage));
    PrepareTheBatch();
    floe::testing::InjectFault(c, calls, kCoverage, [&](FaultInjectingFileIO& faults, FaultPlan plan) {
      (void)RunWith(faults, std::move(plan));
    });
    if (IsSkipped() || HasFailure()) return;
    ExpectConsistentAfterACleanRerun();
  }
};

TEST_F(PipelineFaultTest, TheCasesCoverEveryCallOfTheBatch) {
  for (const std::string catalog : {"filesystem", "sql"}) {
    UseCatalog(catalog);
    const auto calls = static_cast<int64_t>(CallsOfACleanBatch(catalog).size());
    EXPECT_GT(calls, 10) << catalog;
    floe::testing::ExpectTheCasesCoverEveryCall(CallsOfACleanBatch(catalog), kCoverage, catalog);
  }
}

class FaultAtEveryCall : public PipelineFaultTest, public ::testing::WithParamInterface<FaultCase> {};

TEST_P(FaultAtEveryCall, LeavesTheTableAndLedgerConsistentAfterARerun) {
  RunCase(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Batch, FaultAtEveryCall,
                         ::testing::ValuesIn(floe::testing::FaultCases({"filesystem", "sql"}, kCoverage)),
                         floe::testing::FaultCaseName);

}  // namespace
}  // namespace floe::ingest::pipeline_testing
