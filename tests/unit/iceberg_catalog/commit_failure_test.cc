// What a snapshot commit leaves behind when the catalog says no, or cannot
// say: definite failures delete every file the action wrote, an unknown
// outcome deletes nothing.
#include <gtest/gtest.h>

#include "catalog/filesystem/filesystem_catalog.h"
#include "catalog_test_util.h"

namespace floe::iceberg {
namespace {

// Delegates to a real table, but answers commits with a scripted error.
class FaultyOperations final : public TableOperations {
 public:
  FaultyOperations(std::shared_ptr<TableOperations> inner, Status fault, bool commit_first)
      : inner_(std::move(inner)), fault_(std::move(fault)), commit_first_(commit_first) {}
  Result<LoadedTable> Load() override { return inner_->Load(); }
  Result<LoadedTable> Commit(const std::vector<TableRequirement>& requirements,
                             const std::vector<TableUpdate>& updates) override {
    ++commits;
    if (commit_first_) FLOE_RETURN_IF_ERROR(inner_->Commit(requirements, updates).status());
    return fault_;
  }
  FileIO& io() override { return inner_->io(); }
  std::string name() const override { return inner_->name(); }
  int commits = 0;

 private:
  std::shared_ptr<TableOperations> inner_;
  Status fault_;
  bool commit_first_;
};

class CommitFailureTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_OK_AND_ASSIGN(catalog_, catalog::OpenFilesystemCatalog(dir_.File("wh")));
    ASSERT_OK(catalog_->CreateNamespace({"db"}, {}));
    catalog::TableCreation creation;
    creation.schema = floe::testing::EventSchema();
    creation.properties = {{kCommitNumRetriesProperty, "2"}, {kCommitMinWaitMsProperty, "1"}};
    ASSERT_OK_AND_ASSIGN(ops_, catalog_->CreateTable({{"db"}, "t"}, creation));
  }
  size_t Avro() { return floe::testing::CountFiles(dir_.path() / "wh" / "db" / "t" / "metadata", ".avro"); }

  floe::testing::TempDir dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  std::shared_ptr<TableOperations> ops_;
};

TEST_F(CommitFailureTest, RetriesExhaustedDeleteEverythingWritten) {
  auto faulty = std::make_shared<FaultyOperations>(ops_, Status::CommitFailed("lost the race"), false);
  ASSERT_OK_AND_ASSIGN(Table table, Table::Load(faulty));
  auto result =
      table.NewFastAppend().AppendFile(floe::testing::FakeDataFile(dir_.File("a.parquet"), 1)).Commit();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kCommitFailed);
  EXPECT_NE(result.status().message().find("3 attempts"), std::string::npos) << result.status().ToString();
  EXPECT_EQ(faulty->commits, 3);
  EXPECT_EQ(Avro(), 0u);
}

TEST_F(CommitFailureTest, NonRetryableErrorsAreNotRetriedAndCleanUp) {
  auto faulty = std::make_shared<FaultyOperations>(ops_, Status::IOError("disk full"), false);
  ASSERT_OK_AND_ASSIGN(Table table, Table::Load(faulty));
  auto result =
      table.NewFastAppend().AppendFile(floe::testing::FakeDataFile(dir_.File("a.parquet"), 1)).Commit();
  EXPECT_EQ(result.status().kind(), ErrorKind::kIOError);
  EXPECT_EQ(faulty->commits, 1);
  EXPECT_EQ(Avro(), 0u);
}

TEST_F(CommitFailureTest, UnknownOutcomeKeepsEveryFileItWrote) {
  // The commit went through but the answer was lost: the table references the files.
  auto faulty = std::make_shared<FaultyOperations>(ops_, Status::CommitStateUnknown("connection lost"), true);
  ASSERT_OK_AND_ASSIGN(Table table, Table::Load(faulty));
  auto result =
      table.NewFastAppend().AppendFile(floe::testing::FakeDataFile(dir_.File("a.parquet"), 1)).Commit();
  EXPECT_EQ(result.status().kind(), ErrorKind::kCommitStateUnknown);
  EXPECT_EQ(faulty->commits, 1);
  EXPECT_EQ(Avro(), 2u);  // manifest + manifest list
  ASSERT_OK_AND_ASSIGN(Table reloaded, Table::Load(ops_));
  ASSERT_NE(reloaded.metadata().CurrentSnapshot(), nullptr);
  EXPECT_EQ(floe::testing::LivePaths(reloaded, *reloaded.metadata().CurrentSnapshot()),
            std::vector<std::string>{dir_.File("a.parquet")});
}

TEST(RetryPolicy, PropertiesAndBackoff) {
  RetryPolicy defaults = RetryPolicy::FromProperties({});
  EXPECT_EQ(defaults.num_retries, 4);
  RetryPolicy p = RetryPolicy::FromProperties(
      {{kCommitNumRetriesProperty, "7"}, {kCommitMinWaitMsProperty, "10"}, {kCommitMaxWaitMsProperty, "40"}});
  EXPECT_EQ(p.num_retries, 7);
  for (int retry = 1; retry <= 6; ++retry) {
    const int64_t cap = std::min<int64_t>(40, int64_t{10} << (retry - 1));
    const int64_t wait = p.WaitMs(retry);
    EXPECT_GE(wait, cap / 2);
    EXPECT_LE(wait, cap);
  }
  RetryPolicy bad =
      RetryPolicy::FromProperties({{kCommitNumRetriesProperty, "-1"}, {kCommitMinWaitMsProperty, "x"}});
  EXPECT_EQ(bad.num_retries, 4);
  EXPECT_EQ(bad.min_wait_ms, 100);
}

}  // namespace
}  // namespace floe::iceberg
