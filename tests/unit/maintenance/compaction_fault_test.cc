// Fault injection at every I/O call of one compaction (two partitions of
// small files, position deletes on two of them) in a SQLite catalog, one
// test case per call index: the call fails (a retryable storage error) or
// the process dies at it, with the write lost or torn. Then compaction runs
// again without faults. Afterwards the table reads exactly the rows it held
// before, every file any snapshot needs exists, every partition is one file
// with no deletes left, and no row is live twice.
#include <gtest/gtest.h>

#include "fault_test_util.h"
#include "maintenance/maintenance.h"
#include "maintenance_test_util.h"

namespace floe::maintenance {
namespace {

using floe::testing::FaultCase;
using iceberg::DataFile;
using iceberg::DataFileContent;
using testing::MaintenanceTableTest;
using testing::Range;

[[maybe_unused]] const bool kTmpfs = (floe::testing::UseTmpfsForTempDirs(), true);

// max_calls: more than a compaction's calls (221); slots: more than its
// default spread (TheCasesCoverEveryCallOfTheCompaction checks both;
// fault_test_util.h describes the two modes).
constexpr floe::testing::FaultCoverage kCoverage{.max_calls = 240, .stride = 16, .slots = 32};

class CompactionFaultTest : public MaintenanceTableTest {
 protected:
  // Three small files in partition a with deletes on two of them, two in b.
  // The files have fixed names, so every run makes the same calls: the scan
  // reads a delete file only for the data files inside its file_path bounds
  // (TableScan's PathWithinBounds), and with random names a-1 fell inside or
  // outside [a-0, a-2] by chance — the compaction made 216 or 221 calls, and
  // a case index did not name the same call on every run.
  void FillTable() {
    iceberg::Table table = Open();
    std::vector<DataFile> a;
    for (int i = 0; i < 3; ++i) {
      a.push_back(Append(table, Range(i * 10, i * 10 + 10), "a", "a-" + std::to_string(i)));
    }
    for (int i = 0; i < 2; ++i) {
      Append(table, Range(100 + i * 10, 100 + i * 10 + 10), "b", "b-" + std::to_string(i));
    }
    CommitDeletes(table, WritePositionDeletes(table, "a", {{a[0].file_path, 3}, {a[2].file_path, 7}}, "a"));
    expected_ = ScanIds(table);
    ASSERT_EQ(expected_.size(), 48u);
  }

  static CompactionOptions Options() {
    CompactionOptions options;
    options.min_input_files = 2;
    return options;
  }

  // Compacts the table through a catalog whose FileIO is `io`.
  Status Compact(std::shared_ptr<FileIO> io) {
    FLOE_ASSIGN_OR_RETURN(auto catalog, catalog::OpenSqlCatalog("sqlite://" + dir_.File("catalog.db"),
                                                                dir_.File("warehouse"), std::move(io)));
    FLOE_ASSIGN_OR_RETURN(auto ops, catalog->LoadTable(id_));
    FLOE_ASSIGN_OR_RETURN(iceberg::Table table, iceberg::Table::Load(ops));
    return CompactTable(table, Options()).status();
  }

  // Calls of a fault-free compaction, logged (measured once, in this test's
  // directory, which then starts again).
  const std::vector<std::string>& CallsOfACleanCompaction() {
    static std::vector<std::string> calls;
    if (!calls.empty()) return calls;
    FillTable();
    FaultInjectingFileIO counter(MakeLocalFileIO());
    EXPECT_OK(Compact(counter.Wrap(MakeLocalFileIO())));
    calls = counter.CallLog();
    catalog_.reset();
    for (const auto& entry : std::filesystem::directory_iterator(dir_.path()))
      std::filesystem::remove_all(entry);
    SetUp();
    return calls;
  }

  void ExpectConsistentAfterACleanRerun() {
    ASSERT_OK(Compact(MakeLocalFileIO()));
    iceberg::Table table = Open();
    EXPECT_EQ(ScanIds(table), expected_);  // sorted: a row live twice would show twice
    EXPECT_EQ(LiveFiles(table, DataFileContent::kData).size(), 2u);
    EXPECT_TRUE(LiveFiles(table, DataFileContent::kPositionDeletes).empty());
    const std::set<std::string> on_disk = FilesOnDisk();
    for (const std::string& needed : FilesNeededBySnapshots(table)) {
      EXPECT_TRUE(on_disk.count(needed)) << needed << " is referenced but missing";
    }
  }

  void RunCase(const FaultCase& c) {
    const std::vector<std::string>& calls = CallsOfACleanCompaction();
    SCOPED_TRACE(floe::testing::FaultTrace(c, calls, kCoverage));
    FillTable();
    floe::testing::InjectFault(c, calls, kCoverage, [&](FaultInjectingFileIO& faults, FaultPlan plan) {
      faults.Reset(std::move(plan));
      (void)Compact(faults.Wrap(MakeLocalFileIO()));
    });
    if (IsSkipped() || HasFailure()) return;
    ExpectConsistentAfterACleanRerun();
  }

  std::vector<int64_t> expected_;
};

TEST_F(CompactionFaultTest, TheCasesCoverEveryCallOfTheCompaction) {
  const auto calls = static_cast<int64_t>(CallsOfACleanCompaction().size());
  EXPECT_GT(calls, 20);
  floe::testing::ExpectTheCasesCoverEveryCall(CallsOfACleanCompaction(), kCoverage, "compaction");
}

class CompactionFaultAtEveryCall : public CompactionFaultTest,
                                   public ::testing::WithParamInterface<FaultCase> {};

TEST_P(CompactionFaultAtEveryCall, KeepsTheRowsAndEveryReferencedFile) {
  RunCase(GetParam());
}

INSTANTIATE_TEST_SUITE_P(Compaction, CompactionFaultAtEveryCall,
                         ::testing::ValuesIn(floe::testing::FaultCases({"sql"}, kCoverage)),
                         floe::testing::FaultCaseName);

}  // namespace
}  // namespace floe::maintenance
