// LeaseGuard fences catalog commits with a worker's table leases, against a
// real PostgreSQL server (FLOE_TEST_PG_URI; skipped with a message without
// it): inside the SQL catalog's own commit transaction when the catalog is
// the ledger's database, and right before the commit for any other catalog
// (here a SQLite catalog). A commit under a lease that moved changes nothing.
#include "ingest/lease_guard.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <thread>

#include "catalog/open/open_catalog.h"
#include "iceberg/transaction/table.h"
#include "sql/sql_connection.h"
#include "test_util.h"
#include "unit/iceberg_catalog/catalog_test_util.h"
#include "unit/ingest_state/ledger_backends.h"

namespace floe::ingest {
namespace {

using ::testing::HasSubstr;

class LeaseGuardTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    uri_ = PostgresTestUri();
    if (uri_.empty()) GTEST_SKIP() << kNoPostgresMessage;
    pipeline_ = TestPipelineName("g");
  }
  void TearDown() override {
    if (uri_.empty()) return;
    DropPipelineSchema(uri_, pipeline_);
    auto connection = sql::OpenSqlConnection(uri_);
    if (!connection.ok()) return;
    (void)(*connection)->Execute("DELETE FROM iceberg_tables WHERE catalog_name = ?1", {pipeline_});
    (void)(*connection)
        ->Execute("DELETE FROM iceberg_namespace_properties WHERE catalog_name = ?1", {pipeline_});
  }
  // The catalog this case commits through: the ledger's own PostgreSQL database, or a SQLite file.
  catalog::CatalogOptions CatalogOf(std::shared_ptr<catalog::CommitGuard> guard) {
    catalog::CatalogOptions options;
    options.type = "sql";
    options.uri = GetParam() == "same-database" ? uri_ : "sqlite://" + dir_.File("catalog.db");
    options.name = pipeline_;
    options.warehouse = dir_.File("warehouse");
    options.commit_guard = std::move(guard);
    return options;
  }

  floe::testing::TempDir dir_;
  std::string uri_;
  std::string pipeline_;
};

INSTANTIATE_TEST_SUITE_P(Catalogs, LeaseGuardTest, ::testing::Values("same-database", "sqlite"),
                         [](const auto& info) {
                           return info.param == "same-database" ? "SameDatabase" : "Sqlite";
                         });

TEST_P(LeaseGuardTest, ACommitLandsOnlyUnderTheCurrentLease) {
  ASSERT_OK_AND_ASSIGN(auto zombie, WorkerLeases::Join({uri_, pipeline_, 400}));
  const catalog::TableIdentifier id{{"ns"}, "events"};
  ASSERT_OK(zombie->Balance({id.ToString()}).status());
  auto guard = std::make_shared<LeaseGuard>(*zombie, uri_);
  ASSERT_OK_AND_ASSIGN(auto tables, catalog::OpenCatalog(CatalogOf(guard)));
  ASSERT_OK(tables->CreateNamespace({"ns"}, {}));
  catalog::TableCreation creation;
  creation.schema = floe::testing::EventSchema();
  ASSERT_OK_AND_ASSIGN(auto ops, tables->CreateTable(id, creation));
  ASSERT_OK_AND_ASSIGN(iceberg::Table table, iceberg::Table::Load(ops));
  ASSERT_OK(table.NewFastAppend()
                .AppendFile(floe::testing::FakeDataFile(dir_.File("warehouse/a"), 1))
                .Commit()
                .status());

  // A side table (no lease row) is not fenced.
  const catalog::TableIdentifier side{{"ns"}, "events__bad_rows"};
  ASSERT_OK_AND_ASSIGN(auto side_ops, tables->CreateTable(side, creation));
  ASSERT_OK_AND_ASSIGN(iceberg::Table side_table, iceberg::Table::Load(side_ops));

  // Another worker takes the table over while this one is silent.
  ASSERT_OK_AND_ASSIGN(auto next, WorkerLeases::Join({uri_, pipeline_, 400}));
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  ASSERT_OK_AND_ASSIGN(LeaseBalance took, next->Balance({id.ToString()}));
  ASSERT_EQ(took.gained.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto before, ops->Load());

  ASSERT_OK_AND_ASSIGN(table, iceberg::Table::Load(ops));
  auto refused =
      table.NewFastAppend().AppendFile(floe::testing::FakeDataFile(dir_.File("warehouse/b"), 1)).Commit();
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().kind(), ErrorKind::kFenced) << refused.status().ToString();
  EXPECT_THAT(refused.status().message(), HasSubstr("no longer holds the lease of epoch 1"));
  ASSERT_OK_AND_ASSIGN(auto after, ops->Load());
  EXPECT_EQ(after.metadata_location, before.metadata_location);

  ASSERT_OK(side_table.NewFastAppend()
                .AppendFile(floe::testing::FakeDataFile(dir_.File("warehouse/c"), 1))
                .Commit()
                .status());

  // The new owner commits through its own guard.
  auto next_guard = std::make_shared<LeaseGuard>(*next, uri_);
  ASSERT_OK_AND_ASSIGN(auto next_tables, catalog::OpenCatalog(CatalogOf(next_guard)));
  ASSERT_OK_AND_ASSIGN(auto next_ops, next_tables->LoadTable(id));
  ASSERT_OK_AND_ASSIGN(iceberg::Table owned, iceberg::Table::Load(next_ops));
  ASSERT_OK(owned.NewFastAppend()
                .AppendFile(floe::testing::FakeDataFile(dir_.File("warehouse/d"), 1))
                .Commit()
                .status());
}

}  // namespace
}  // namespace floe::ingest
