// Two clients committing to one table through floe serve at the same time:
// every commit either lands or is answered 409 and retried after a reload
// by the transaction layer, so in the end every append is in the table
// exactly once and the snapshot chain is linear.
#include <gtest/gtest.h>

#include <atomic>
#include <set>

#include "iceberg/transaction/commit_retry.h"
#include "iceberg/transaction/table.h"
#include "rest_server_fixture.h"
#include "unit/iceberg_catalog/catalog_test_util.h"

namespace floe::catalog::rest {
namespace {

constexpr int kClients = 2;
constexpr int kCommitsPerClient = 15;

TEST_F(RestServerTest, TwoClientsCommittingLoseNothing) {
  StartServer();
  const TableIdentifier id{{"db"}, "events"};
  {
    ASSERT_OK_AND_ASSIGN(auto client, Client());
    ASSERT_OK(client->CreateNamespace({"db"}, {}));
    TableCreation creation;
    creation.schema = floe::testing::EventSchema();
    creation.properties = {{iceberg::kCommitNumRetriesProperty, "1000"},
                           {iceberg::kCommitMinWaitMsProperty, "1"},
                           {iceberg::kCommitMaxWaitMsProperty, "10"}};
    ASSERT_OK(client->CreateTable(id, creation).status());
  }
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int c = 0; c < kClients; ++c) {
    threads.emplace_back([&, c] {
      auto client = Client();  // each thread has its own client and connections
      if (!client.ok()) {
        ++failures;
        return;
      }
      auto ops = (*client)->LoadTable(id);
      if (!ops.ok()) {
        ++failures;
        return;
      }
      auto table = iceberg::Table::Load(*ops);
      if (!table.ok()) {
        ++failures;
        return;
      }
      for (int i = 0; i < kCommitsPerClient; ++i) {
        const std::string path =
            warehouse_ + "/db/events/data/c" + std::to_string(c) + "-" + std::to_string(i);
        auto committed = table->NewFastAppend().AppendFile(floe::testing::FakeDataFile(path, 1)).Commit();
        if (!committed.ok()) {
          ADD_FAILURE() << "client " << c << " commit " << i << ": " << committed.status().ToString();
          ++failures;
        }
      }
    });
  }
  for (auto& t : threads) t.join();
  ASSERT_EQ(failures.load(), 0);

  ASSERT_OK_AND_ASSIGN(auto client, Client());
  ASSERT_OK_AND_ASSIGN(auto ops, client->LoadTable(id));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, iceberg::Table::Load(ops));
  const iceberg::TableMetadata& m = table.metadata();
  ASSERT_NE(m.CurrentSnapshot(), nullptr);
  EXPECT_EQ(m.snapshots.size(), static_cast<size_t>(kClients * kCommitsPerClient));
  EXPECT_EQ(m.last_sequence_number, kClients * kCommitsPerClient);
  auto live = floe::testing::LivePaths(table, *m.CurrentSnapshot());
  std::set<std::string> unique(live.begin(), live.end());
  EXPECT_EQ(live.size(), static_cast<size_t>(kClients * kCommitsPerClient));
  EXPECT_EQ(unique.size(), live.size());
  // Linear history: each snapshot's parent is the one committed before it.
  std::set<int64_t> sequence_numbers;
  for (const auto& s : m.snapshots) sequence_numbers.insert(s.sequence_number);
  EXPECT_EQ(sequence_numbers.size(), m.snapshots.size());
}

// The same race at the protocol level: two commits from one base, the second is 409.
TEST_F(RestServerTest, SecondCommitFromTheSameBaseIsRefused) {
  StartServer();
  ASSERT_OK_AND_ASSIGN(auto first, Client());
  ASSERT_OK_AND_ASSIGN(auto second, Client());
  ASSERT_OK(first->CreateNamespace({"db"}, {}));
  TableCreation creation;
  creation.schema = floe::testing::EventSchema();
  ASSERT_OK_AND_ASSIGN(auto ops_a, first->CreateTable({{"db"}, "t"}, creation));
  ASSERT_OK_AND_ASSIGN(auto ops_b, second->LoadTable({{"db"}, "t"}));
  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable base, ops_b->Load());
  const std::vector<iceberg::TableRequirement> from_base = {
      iceberg::requirement::AssertRefSnapshotId{"main", std::nullopt},
      iceberg::requirement::AssertLastAssignedFieldId{base.metadata.last_column_id}};
  iceberg::update::AddSchema widened{base.metadata.schemas[0], std::nullopt};
  widened.schema.fields.push_back(
      iceberg::MakeNestedField(5, "note", iceberg::PrimitiveType(iceberg::TypeKind::kString)));
  widened.schema.schema_id = 1;
  ASSERT_OK(ops_a->Commit(from_base, {widened, iceberg::update::SetCurrentSchema{-1}}).status());
  Status lost = ops_b->Commit(from_base, {widened, iceberg::update::SetCurrentSchema{-1}}).status();
  EXPECT_EQ(lost.kind(), ErrorKind::kCommitFailed);
  EXPECT_TRUE(lost.retryable());
  EXPECT_NE(lost.message().find("409"), std::string::npos);
  ASSERT_OK_AND_ASSIGN(iceberg::LoadedTable now, ops_b->Load());
  EXPECT_EQ(now.metadata.schemas.size(), 2u);
}

}  // namespace
}  // namespace floe::catalog::rest
