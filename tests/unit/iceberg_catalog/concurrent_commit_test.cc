// Two processes committing to one table through one catalog database: every
// commit lands exactly once (no lost update, no duplicate), sequence numbers
// are dense and the totals add up. SQLite always; PostgreSQL when
// FLOE_TEST_PG_URI names a server (scripts/test.sh starts one).
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <set>

#include "catalog_test_util.h"
#include "iceberg/transaction/table.h"

namespace floe::iceberg {
namespace {

constexpr int kCommitsPerProcess = 100;
constexpr int kProcesses = 2;

// Runs in a forked child: its own catalog connection, 100 appends. Returns the exit code.
int AppendMany(const std::string& uri, const std::string& warehouse, const std::string& catalog_name,
               int process) {
  auto catalog = catalog::OpenSqlCatalog(uri, warehouse, nullptr, catalog_name);
  if (!catalog.ok()) return 10;
  auto ops = (*catalog)->LoadTable({{"db"}, "events"});
  if (!ops.ok()) return 11;
  auto table = Table::Load(*ops);
  if (!table.ok()) return 12;
  for (int i = 0; i < kCommitsPerProcess; ++i) {
    const std::string path =
        warehouse + "/db/events/data/p" + std::to_string(process) + "-" + std::to_string(i) + ".parquet";
    auto committed = table->NewFastAppend()
                         .AppendFile(floe::testing::FakeDataFile(path, process * 1000 + i + 1))
                         .Set("floe.batch-id", std::to_string(i))
                         .Commit();
    if (!committed.ok()) {
      fprintf(stderr, "process %d commit %d: %s\n", process, i, committed.status().ToString().c_str());
      return 13;
    }
  }
  return 0;
}

void RunConcurrentAppends(const std::string& uri, const std::string& warehouse,
                          const std::string& catalog_name) {
  {
    ASSERT_OK_AND_ASSIGN(auto catalog, catalog::OpenSqlCatalog(uri, warehouse, nullptr, catalog_name));
    ASSERT_OK(catalog->CreateNamespace({"db"}, {}));
    catalog::TableCreation creation;
    creation.schema = floe::testing::EventSchema();
    creation.properties = {{kCommitNumRetriesProperty, "10000"},
                           {kCommitMinWaitMsProperty, "1"},
                           {kCommitMaxWaitMsProperty, "20"}};
    ASSERT_OK(catalog->CreateTable({{"db"}, "events"}, creation).status());
  }
  std::vector<pid_t> children;
  for (int p = 0; p < kProcesses; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) ::_exit(AppendMany(uri, warehouse, catalog_name, p));
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }

  ASSERT_OK_AND_ASSIGN(auto catalog, catalog::OpenSqlCatalog(uri, warehouse, nullptr, catalog_name));
  ASSERT_OK_AND_ASSIGN(auto ops, catalog->LoadTable({{"db"}, "events"}));
  ASSERT_OK_AND_ASSIGN(Table table, Table::Load(ops));
  const TableMetadata& m = table.metadata();
  const int total = kProcesses * kCommitsPerProcess;
  EXPECT_EQ(m.snapshots.size(), static_cast<size_t>(total));
  EXPECT_EQ(m.last_sequence_number, total);
  std::set<int64_t> sequence_numbers;
  for (const auto& s : m.snapshots) sequence_numbers.insert(s.sequence_number);
  EXPECT_EQ(sequence_numbers.size(), static_cast<size_t>(total));
  // The main branch is one linear history through every snapshot.
  int chain = 0;
  for (const Snapshot* s = m.CurrentSnapshot(); s != nullptr;
       s = s->parent_snapshot_id ? m.SnapshotById(*s->parent_snapshot_id) : nullptr) {
    ++chain;
  }
  EXPECT_EQ(chain, total);

  int64_t expected_records = 0;
  std::set<std::string> expected_paths;
  for (int p = 0; p < kProcesses; ++p) {
    for (int i = 0; i < kCommitsPerProcess; ++i) {
      expected_records += p * 1000 + i + 1;
      expected_paths.insert(warehouse + "/db/events/data/p" + std::to_string(p) + "-" + std::to_string(i) +
                            ".parquet");
    }
  }
  const Snapshot* current = m.CurrentSnapshot();
  ASSERT_NE(current, nullptr);
  EXPECT_EQ(current->summary.at("total-records"), std::to_string(expected_records));
  EXPECT_EQ(current->summary.at("total-data-files"), std::to_string(total));
  ASSERT_OK_AND_ASSIGN(auto live, LiveEntries(table.io(), m, *current));
  std::set<std::string> live_paths;
  int64_t live_records = 0;
  for (const auto& e : live) {
    live_paths.insert(e.data_file.file_path);
    live_records += e.data_file.record_count;
  }
  EXPECT_EQ(live.size(), static_cast<size_t>(total));
  EXPECT_EQ(live_paths, expected_paths);
  EXPECT_EQ(live_records, expected_records);
}

TEST(ConcurrentCommit, TwoProcessesAppendThroughSqlite) {
  floe::testing::TempDir dir;
  RunConcurrentAppends("sqlite://" + dir.File("catalog.db"), dir.File("warehouse"), "floe");
}

TEST(ConcurrentCommit, TwoProcessesAppendThroughPostgres) {
  const char* uri = std::getenv("FLOE_TEST_PG_URI");
  if (uri == nullptr || *uri == '\0') {
    GTEST_SKIP()
        << "skipped: FLOE_TEST_PG_URI is not set (scripts/test.sh starts a PostgreSQL server and sets it)";
  }
  floe::testing::TempDir dir;
  RunConcurrentAppends(uri, dir.File("warehouse"), "concurrent_" + std::to_string(::getpid()));
}

}  // namespace
}  // namespace floe::iceberg
