// Fault injection at every I/O call of one snapshot commit (a row delta
// adding a data file and position deletes, tagged floe.batch-id = 2) into a
// table with one snapshot, for a filesystem and a SQLite catalog, one test
// case per call index: the call fails (a retryable storage error) or the
// process dies at it (the write lost, or torn when the catalog is SQLite;
// fault_test_util.h says why). Then the caller recovers as the pipeline does: the
// batch is looked up in the table's history and committed again only when
// absent. Afterwards the table loads, every snapshot's manifest list,
// manifests and files are readable, batch 2 is in exactly one snapshot and
// the current snapshot holds exactly the files of both commits.
#include <gtest/gtest.h>

#include <set>

#include "catalog/filesystem/filesystem_catalog.h"
#include "catalog_test_util.h"
#include "fault_test_util.h"

namespace floe::iceberg {
namespace {

using floe::testing::FaultCase;

[[maybe_unused]] const bool kTmpfs = (floe::testing::UseTmpfsForTempDirs(), true);

// max_calls: more than a commit's calls; slots: more than its default
// spread, which is every call here (stride 1: a commit makes ~30 calls and a
// case takes milliseconds). TheCasesCoverEveryCallOfTheCommit checks both;
// fault_test_util.h describes the two modes.
constexpr floe::testing::FaultCoverage kCoverage{.max_calls = 40, .stride = 1, .slots = 40};

class CommitFaultTest : public ::testing::Test {
 protected:
  Result<std::unique_ptr<catalog::Catalog>> OpenCatalog(const std::string& kind, std::shared_ptr<FileIO> io) {
    if (kind == "sql") {
      return catalog::OpenSqlCatalog("sqlite://" + File("catalog.db"), File("wh"), std::move(io));
    }
    return catalog::OpenFilesystemCatalog(File("wh"), std::move(io));
  }

  // The table with its first snapshot (one data file of partition a).
  void CreateTable(const std::string& kind) {
    ASSERT_OK_AND_ASSIGN(auto catalog, OpenCatalog(kind, MakeLocalFileIO()));
    ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
    catalog::TableCreation creation;
    creation.schema = floe::testing::EventSchema();
    creation.properties = {{kCommitMinWaitMsProperty, "1"}, {kCommitMaxWaitMsProperty, "2"}};
    ASSERT_OK_AND_ASSIGN(auto ops, catalog->CreateTable({{"db"}, "t"}, creation));
    ASSERT_OK_AND_ASSIGN(Table table, Table::Load(ops));
    ASSERT_OK(table.NewFastAppend().AppendFile(DataA()).Set("floe.batch-id", "1").Commit().status());
  }

  std::string Data(const std::string& name) { return File("wh") + "/db/t/data/" + name; }
  DataFile DataA() { return floe::testing::FakeDataFile(Data("a.parquet"), 10); }

  // The commit under test, through a catalog whose FileIO is `io`.
  Status CommitBatch2(const std::string& kind, std::shared_ptr<FileIO> io) {
    FLOE_ASSIGN_OR_RETURN(auto catalog, OpenCatalog(kind, std::move(io)));
    FLOE_ASSIGN_OR_RETURN(auto ops, catalog->LoadTable({{"db"}, "t"}));
    FLOE_ASSIGN_OR_RETURN(Table table, Table::Load(ops));
    return table.NewRowDelta()
        .AddRows(floe::testing::FakeDataFile(Data("b.parquet"), 5))
        .AddDeletes(floe::testing::FakePositionDeletes(Data("a-deletes.parquet"), Data("a.parquet"), 2))
        .Set("floe.batch-id", "2")
        .Commit()
        .status();
  }

  // Calls of a fault-free commit, logged (measured once per catalog).
  const std::vector<std::string>& CallsOfACleanCommit(const std::string& kind) {
    static std::map<std::string, std::vector<std::string>> calls;
    if (auto it = calls.find(kind); it != calls.end()) return it->second;
    floe::testing::TempDir scratch;
    root_ = scratch.path();
    CreateTable(kind);
    FaultInjectingFileIO counter(MakeLocalFileIO());
    EXPECT_OK(CommitBatch2(kind, counter.Wrap(MakeLocalFileIO())));
    root_ = dir_.path();
    return calls[kind] = counter.CallLog();
  }

  static int CountBatch(const TableMetadata& metadata, const std::string& batch) {
    int n = 0;
    for (const Snapshot& s : metadata.snapshots) {
      auto it = s.summary.find("floe.batch-id");
      if (it != s.summary.end() && it->second == batch) ++n;
    }
    return n;
  }

  void RecoverAndCheck(const std::string& kind) {
    ASSERT_OK_AND_ASSIGN(auto catalog, OpenCatalog(kind, MakeLocalFileIO()));
    ASSERT_OK_AND_ASSIGN(auto ops, catalog->LoadTable({{"db"}, "t"}));
    ASSERT_OK_AND_ASSIGN(Table table, Table::Load(ops));
    if (CountBatch(table.metadata(), "2") == 0) {
      ASSERT_OK(CommitBatch2(kind, MakeLocalFileIO()));
      ASSERT_OK(table.Refresh());
    }
    const TableMetadata& metadata = table.metadata();
    EXPECT_EQ(CountBatch(metadata, "1"), 1);
    EXPECT_EQ(CountBatch(metadata, "2"), 1);
    for (const Snapshot& snapshot : metadata.snapshots) {
      SCOPED_TRACE("snapshot " + std::to_string(snapshot.snapshot_id));
      ASSERT_OK(ReadManifestList(table.io(), snapshot.manifest_list).status());
      ASSERT_OK(LiveEntries(table.io(), metadata, snapshot).status());
    }
    const Snapshot* current = metadata.CurrentSnapshot();
    ASSERT_NE(current, nullptr);
    EXPECT_EQ(current->summary.at("floe.batch-id"), "2");
    EXPECT_EQ(floe::testing::LivePaths(table, *current),
              (std::vector<std::string>{Data("a-deletes.parquet"), Data("a.parquet"), Data("b.parquet")}));
  }

  void RunCase(const FaultCase& c) {
    const std::vector<std::string>& calls = CallsOfACleanCommit(c.catalog);
    SCOPED_TRACE(floe::testing::FaultTrace(c, calls, kCoverage));
    CreateTable(c.catalog);
    floe::testing::InjectFault(c, calls, kCoverage, [&](FaultInjectingFileIO& faults, FaultPlan plan) {
      faults.Reset(std::move(plan));
      (void)CommitBatch2(c.catalog, faults.Wrap(MakeLocalFileIO()));
    });
    if (IsSkipped() || HasFailure()) return;
    RecoverAndCheck(c.catalog);
  }

  // Where the catalog and warehouse live: this test's directory.
  std::string File(const std::string& name) const { return (root_ / name).string(); }

  floe::testing::TempDir dir_;
  std::filesystem::path root_ = dir_.path();
};

TEST_F(CommitFaultTest, TheCasesCoverEveryCallOfTheCommit) {
  for (const std::string kind : {"filesystem", "sql"}) {
    const auto calls = static_cast<int64_t>(CallsOfACleanCommit(kind).size());
    EXPECT_GT(calls, 5) << kind;
    floe::testing::ExpectTheCasesCoverEveryCall(CallsOfACleanCommit(kind), kCoverage, kind);
  }
}

class CommitFaultAtEveryCall : public CommitFaultTest, public ::testing::WithParamInterface<FaultCase> {};

TEST_P(CommitFaultAtEveryCall, LeavesTheTableReadableWithTheBatchOnce) {
  RunCase(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Commit, CommitFaultAtEveryCall,
                         ::testing::ValuesIn(floe::testing::FaultCases({"filesystem", "sql"}, kCoverage)),
                         floe::testing::FaultCaseName);

}  // namespace
}  // namespace floe::iceberg
