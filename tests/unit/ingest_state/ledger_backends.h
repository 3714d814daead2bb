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

class LedgerBackendTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() != "postgresql") return;
    const char* uri = std::getenv("FLOE_TEST_PG_URI");
    if (!uri || !*uri) {
      GTEST_SKIP() << "skipped: FLOE_TEST_PG_URI is not set (scripts/test.sh starts a PostgreSQL server and "
                      "sets it)";
    }
    pg_uri_ = uri;
    // Short (a schema name and application_name hold 63 bytes) and unique per process and test.
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    pipeline_ =
        "t" + std::to_string(::getpid()) + "_" + std::to_string(std::hash<std::string>{}(test) % 1000000007);
  }

  void TearDown() override {
    if (pg_uri_.empty()) return;
    auto connection = sql::OpenSqlConnection(pg_uri_);
    if (connection.ok())
      (void)(*connection)->Execute("DROP SCHEMA IF EXISTS \"floe_ledger_" + pipeline_ + "\" CASCADE");
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
