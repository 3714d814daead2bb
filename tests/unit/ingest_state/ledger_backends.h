// The ledger tests run on both backends: "sqlite" (<state dir>/ledger.db) and
// "postgresql" (the database FLOE_TEST_PG_URI names, which scripts/test.sh
// starts; without it the PostgreSQL half is skipped with a message). Each
// PostgreSQL test has a pipeline (schema) of its own, dropped at the end.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>

#include "ingest/state/ledger.h"
#include "sql/sql_connection.h"
#include "test_util.h"

namespace floe::ingest {

// The PostgreSQL test server of the PostgreSQL tests: FLOE_TEST_PG_URI, or "" when unset.
inline std::string PostgresTestUri() {
  const char* uri = std::getenv("FLOE_TEST_PG_URI");
  return uri ? uri : "";
}
inline constexpr const char* kNoPostgresMessage =
    "skipped: FLOE_TEST_PG_URI is not set (scripts/test.sh starts a PostgreSQL server and sets it)";

// A pipeline name for the running test: short (a schema name and
// application_name hold 63 bytes) and unique per process and test.
inline std::string TestPipelineName(const std::string& prefix) {
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  return prefix + std::to_string(::getpid()) + "_" +
         std::to_string(std::hash<std::string>{}(test) % 1000000007);
}

// Drops the pipeline's ledger schema (its ledger, workers and leases).
inline void DropPipelineSchema(const std::string& uri, const std::string& pipeline) {
  auto connection = sql::OpenSqlConnection(uri);
  if (connection.ok())
    (void)(*connection)->Execute("DROP SCHEMA IF EXISTS \"floe_ledger_" + pipeline + "\" CASCADE");
}

class LedgerBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "postgresql") return;
    pg_uri_ = PostgresTestUri();
    if (pg_uri_.empty()) GTEST_SKIP() << kNoPostgresMessage;
    pipeline_ = TestPipelineName("t");
  }

  void TearDown() override {
    if (!pg_uri_.empty()) DropPipelineSchema(pg_uri_, pipeline_);
  }

  bool OnPostgres() const { return GetParam() == "postgresql"; }
  std::string StateDir() const { return dir_.File("state/nested/pipeline"); }
  LedgerOptions Options() const { return LedgerOptions{StateDir(), pg_uri_, pipeline_}; }
  Result<std::unique_ptr<Ledger>> Open() const { return Ledger::Open(Options()); }
  Result<std::unique_ptr<Ledger>> OpenReadOnly() const { return Ledger::OpenReadOnly(Options()); }

  floe::testing::TempDir dir_;
  std::string pg_uri_;
  std::string pipeline_;
};

}  // namespace floe::ingest
