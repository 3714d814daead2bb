// SqliteDatabase / SqliteStatement: statements, transactions that roll back
// on error, and the error kinds callers rely on (busy is retryable, a damaged
// file is Corruption, a bind error surfaces at Step) with messages naming the
// database.
#include "sqlite/sqlite_database.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>

#include "test_util.h"

namespace floe {
namespace {

using ::testing::HasSubstr;

SqliteOpenOptions Create() {
  SqliteOpenOptions options;
  options.create_if_missing = true;
  return options;
}

TEST(SqliteDatabaseTest, StatementsBindStepAndRead) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, SqliteDatabase::Open(dir.File("a.db"), Create()));
  ASSERT_OK(db->SetJournalMode("wal"));
  ASSERT_OK(db->Exec("CREATE TABLE t(k TEXT PRIMARY KEY, v INTEGER)"));
  ASSERT_OK_AND_ASSIGN(SqliteStatement insert, db->Prepare("INSERT INTO t(k, v) VALUES (?1, ?2)"));
  insert.Bind(1, std::string("a")).Bind(2, int64_t{7});
  ASSERT_OK(insert.Run());
  EXPECT_EQ(db->Changes(), 1);
  insert.Reset();
  insert.Bind(1, std::optional<std::string>("b")).Bind(2, std::optional<int64_t>());
  ASSERT_OK(insert.Run());
  ASSERT_OK_AND_ASSIGN(SqliteStatement query, db->Prepare("SELECT k, v FROM t ORDER BY k"));
  ASSERT_OK_AND_ASSIGN(bool row, query.Step());
  ASSERT_TRUE(row);
  EXPECT_EQ(query.ColumnCount(), 2);
  EXPECT_EQ(query.Text(0), "a");
  EXPECT_EQ(query.OptionalInt(1), 7);
  ASSERT_OK_AND_ASSIGN(row, query.Step());
  ASSERT_TRUE(row);
  EXPECT_TRUE(query.IsNull(1));
  EXPECT_EQ(query.OptionalInt(1), std::nullopt);
  EXPECT_EQ(query.OptionalText(1), std::nullopt);
  ASSERT_OK_AND_ASSIGN(row, query.Step());
  EXPECT_FALSE(row);
}

TEST(SqliteDatabaseTest, TransactionsCommitOrRollBack) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto db, SqliteDatabase::Open(dir.File("a.db"), Create()));
  ASSERT_OK(db->Exec("CREATE TABLE t(v INTEGER)"));
  ASSERT_OK(db->Transaction([&] { return db->Exec("INSERT INTO t VALUES (1)"); }));
  Status failed = db->Transaction([&]() -> Status {
    FLOE_RETURN_IF_ERROR(db->Exec("INSERT INTO t VALUES (2)"));
    return Status::Internal("the body failed");
  });
  EXPECT_EQ(failed.kind(), ErrorKind::kInternal);
  ASSERT_OK_AND_ASSIGN(SqliteStatement count, db->Prepare("SELECT count(*), max(v) FROM t"));
  ASSERT_OK_AND_ASSIGN(bool row, count.Step());
  ASSERT_TRUE(row);
  EXPECT_EQ(count.Int(0), 1);  // the failed body's insert was rolled back
  EXPECT_EQ(count.Int(1), 1);
}

TEST(SqliteDatabaseTest, ErrorsNameTheDatabaseAndKeepTheirKind) {
  testing::TempDir dir;
  const std::string path = dir.File("a.db");
  SqliteOpenOptions named = Create();
  named.name = "ledger of test";
  ASSERT_OK_AND_ASSIGN(auto db, SqliteDatabase::Open(path, named));
  ASSERT_OK(db->SetJournalMode("wal"));
  ASSERT_OK(db->Exec("CREATE TABLE t(v INTEGER)"));
  auto bad_sql = db->Prepare("SELEKT 1");
  ASSERT_FALSE(bad_sql.ok());
  EXPECT_THAT(bad_sql.status().message(), HasSubstr("ledger of test"));
  EXPECT_THAT(bad_sql.status().message(), HasSubstr("SELEKT 1"));
  // A bind error (index out of range) is reported by the next Step.
  ASSERT_OK_AND_ASSIGN(SqliteStatement stmt, db->Prepare("INSERT INTO t VALUES (?1)"));
  stmt.Bind(5, int64_t{1});
  EXPECT_FALSE(stmt.Run().ok());

  // Another connection holding the write lock: busy, retryable.
  SqliteOpenOptions impatient;
  impatient.busy_timeout_ms = 10;
  ASSERT_OK_AND_ASSIGN(auto other, SqliteDatabase::Open(path, impatient));
  ASSERT_OK(db->Begin());
  ASSERT_OK(db->Exec("INSERT INTO t VALUES (1)"));
  Status busy = other->Begin();
  EXPECT_EQ(busy.kind(), ErrorKind::kIOError) << busy.ToString();
  EXPECT_TRUE(busy.retryable());
  ASSERT_OK(db->Commit());

  // Not a database: Corruption.
  const std::string garbage = dir.File("garbage.db");
  {
    std::ofstream out(garbage, std::ios::binary);
    out << std::string(8192, 'x');
  }
  ASSERT_OK_AND_ASSIGN(auto damaged, SqliteDatabase::Open(garbage, SqliteOpenOptions{}));
  Status corrupt = damaged->Exec("SELECT * FROM sqlite_master");
  EXPECT_EQ(corrupt.kind(), ErrorKind::kCorruption) << corrupt.ToString();
  EXPECT_THAT(corrupt.message(), HasSubstr(garbage));

  // Missing without create_if_missing; read-only refuses writes.
  EXPECT_FALSE(SqliteDatabase::Open(dir.File("missing.db"), SqliteOpenOptions{}).ok());
  SqliteOpenOptions read_only;
  read_only.read_only = true;
  ASSERT_OK_AND_ASSIGN(auto reader, SqliteDatabase::Open(path, read_only));
  EXPECT_FALSE(reader->Exec("INSERT INTO t VALUES (3)").ok());
}

}  // namespace
}  // namespace floe
