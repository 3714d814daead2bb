// The SQL catalog against real SQLite, and against PostgreSQL when
// FLOE_TEST_PG_URI names a server (scripts/test.sh starts one).
#include "catalog/sql/sql_metastore.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>

#include "test_util.h"

namespace floe::catalog {
namespace {

struct Backend {
  std::string label;
  std::string uri;
};

class SqlCatalogTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql") {
      const char* uri = std::getenv("FLOE_TEST_PG_URI");
      if (!uri || !*uri) {
        GTEST_SKIP()
            << "skipped: FLOE_TEST_PG_URI is not set (scripts/test.sh starts a PostgreSQL server and "
               "sets it)";
      }
      uri_ = uri;
      // A fresh catalog name per test keeps tests independent on a shared server.
      catalog_name_ = "t" + std::to_string(::getpid()) + "_" +
                      ::testing::UnitTest::GetInstance()->current_test_info()->name();
      for (char& c : catalog_name_) {
        if (c == '/') c = '_';
      }
    } else {
      uri_ = "sqlite://" + dir_.File("catalog.db");
      catalog_name_ = "floe";
    }
    auto catalog = SqlMetastore::Open(uri_, catalog_name_);
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
  }

  testing::TempDir dir_;
  std::string uri_;
  std::string catalog_name_;
  std::unique_ptr<SqlMetastore> catalog_;
};

TEST_P(SqlCatalogTest, NamespacesCreateListPropertiesDrop) {
  ASSERT_OK(catalog_->CreateNamespace({"cda"}, {}));
  ASSERT_OK(catalog_->CreateNamespace({"cda", "raw"}, {{"owner", "ops"}}));
  EXPECT_EQ(catalog_->CreateNamespace({"cda"}, {}).kind(), ErrorKind::kAlreadyExists);
  ASSERT_OK_AND_ASSIGN(auto top, catalog_->ListNamespaces({}));
  EXPECT_EQ(top, (std::vector<Namespace>{{"cda"}}));
  ASSERT_OK_AND_ASSIGN(auto children, catalog_->ListNamespaces({"cda"}));
  EXPECT_EQ(children, (std::vector<Namespace>{{"cda", "raw"}}));
  ASSERT_OK_AND_ASSIGN(Properties props, catalog_->LoadNamespaceProperties({"cda", "raw"}));
  EXPECT_EQ(props, (Properties{{"owner", "ops"}}));
  ASSERT_OK(catalog_->UpdateNamespaceProperties({"cda", "raw"}, {{"team", "data"}}, {"owner"}));
  ASSERT_OK_AND_ASSIGN(props, catalog_->LoadNamespaceProperties({"cda", "raw"}));
  EXPECT_EQ(props, (Properties{{"team", "data"}}));
  EXPECT_EQ(catalog_->DropNamespace({"cda"}).kind(), ErrorKind::kInvalidArgument);  // has a child
  ASSERT_OK(catalog_->DropNamespace({"cda", "raw"}));
  ASSERT_OK(catalog_->DropNamespace({"cda"}));
  EXPECT_EQ(catalog_->LoadNamespaceProperties({"cda"}).status().kind(), ErrorKind::kNotFound);
}

TEST_P(SqlCatalogTest, UnderscoreInNamespaceIsNotAWildcard) {
  ASSERT_OK(catalog_->CreateNamespace({"axb", "c"}, {}));
  ASSERT_OK_AND_ASSIGN(bool exists, catalog_->NamespaceExists({"a_b"}));
  EXPECT_FALSE(exists);
}

TEST_P(SqlCatalogTest, TablesRegisterSwapRenameDrop) {
  ASSERT_OK(catalog_->CreateNamespace({"cda"}, {}));
  TableIdentifier t{{"cda"}, "policy"};
  EXPECT_EQ(catalog_->RegisterTable(TableIdentifier{{"nope"}, "x"}, "m0").kind(), ErrorKind::kNotFound);
  ASSERT_OK(catalog_->RegisterTable(t, "/w/cda/policy/metadata/00000.metadata.json"));
  EXPECT_EQ(catalog_->RegisterTable(t, "other").kind(), ErrorKind::kAlreadyExists);
  ASSERT_OK_AND_ASSIGN(std::string loc, catalog_->LoadMetadataLocation(t));
  EXPECT_EQ(loc, "/w/cda/policy/metadata/00000.metadata.json");

  ASSERT_OK(catalog_->SwapMetadataLocation(t, loc, "/w/cda/policy/metadata/00001.metadata.json"));
  Status stale = catalog_->SwapMetadataLocation(t, loc, "/w/cda/policy/metadata/00001-b.metadata.json");
  EXPECT_EQ(stale.kind(), ErrorKind::kCommitFailed);
  EXPECT_NE(stale.message().find("00001.metadata.json"), std::string::npos) << stale.message();
  ASSERT_OK_AND_ASSIGN(loc, catalog_->LoadMetadataLocation(t));
  EXPECT_EQ(loc, "/w/cda/policy/metadata/00001.metadata.json");

  ASSERT_OK_AND_ASSIGN(auto tables, catalog_->ListTables({"cda"}));
  EXPECT_EQ(tables, (std::vector<TableIdentifier>{t}));
  TableIdentifier renamed{{"cda"}, "policy_v2"};
  ASSERT_OK(catalog_->RenameTable(t, renamed));
  EXPECT_EQ(catalog_->LoadMetadataLocation(t).status().kind(), ErrorKind::kNotFound);
  ASSERT_OK(catalog_->DropTable(renamed));
  EXPECT_EQ(catalog_->DropTable(renamed).kind(), ErrorKind::kNotFound);
}

TEST_P(SqlCatalogTest, TwoProcessesCompareAndSwapWithoutLosingACommit) {
  ASSERT_OK(catalog_->CreateNamespace({"ns"}, {}));
  TableIdentifier t{{"ns"}, "counter"};
  ASSERT_OK(catalog_->RegisterTable(t, "v0"));
  constexpr int kPerProcess = 100;
  std::vector<pid_t> children;
  for (int p = 0; p < 2; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      auto catalog = SqlMetastore::Open(uri_, catalog_name_);
      if (!catalog.ok()) ::_exit(2);
      int done = 0;
      while (done < kPerProcess) {
        auto loc = (*catalog)->LoadMetadataLocation(t);
        if (!loc.ok()) ::_exit(3);
        int n = std::stoi(loc->substr(1));
        Status st = (*catalog)->SwapMetadataLocation(t, *loc, "v" + std::to_string(n + 1));
        if (st.ok()) {
          ++done;
        } else if (st.kind() != ErrorKind::kCommitFailed) {
          ::_exit(4);
        }
      }
      ::_exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
  ASSERT_OK_AND_ASSIGN(std::string loc, catalog_->LoadMetadataLocation(t));
  EXPECT_EQ(loc, "v" + std::to_string(2 * kPerProcess));
}

// HasColumn decides which schema an existing catalog has (SqlMetastore::Open).
TEST_P(SqlCatalogTest, HasColumnSeesOnlyLiveColumnsOfTheNamedTable) {
  ASSERT_OK_AND_ASSIGN(auto connection, sql::OpenSqlConnection(uri_));
  // Mixed case and a quote: the name is matched exactly, never folded or spliced.
  const std::string table = "Probe'" + catalog_name_;
  const std::string quoted = sql::QuoteSqlIdentifier(table);
  ASSERT_OK(connection->Execute("CREATE TABLE " + quoted + " (kept INTEGER, gone INTEGER)").status());
  ASSERT_OK(connection->Execute("ALTER TABLE " + quoted + " DROP COLUMN gone").status());
  auto has = [&](const std::string& name, const std::string& column) {
    auto found = connection->HasColumn(name, column);
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    return found.ok() && *found;
  };
  EXPECT_TRUE(has(table, "kept"));
  EXPECT_FALSE(has(table, "gone"));
  EXPECT_FALSE(has(table, "KEPT"));
  EXPECT_FALSE(has(table, "missing"));
  EXPECT_FALSE(has(table, "ctid"));  // a system column (PostgreSQL; no such name in SQLite)
  EXPECT_FALSE(has("no_such_table_" + catalog_name_, "kept"));
  // A quoted PostgreSQL name is case-sensitive; SQLite's names never are.
  if (GetParam() == "postgresql") {
    EXPECT_FALSE(has("probe'" + catalog_name_, "kept"));
  }
  ASSERT_OK(connection->Execute("DROP TABLE " + quoted).status());
}

TEST(SqlConnectionTest, RejectsUnknownSchemesAndRedactsPasswords) {
  auto r = sql::OpenSqlConnection("mysql://u:secret@h/db");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message().find("secret"), std::string::npos) << r.status().message();
  EXPECT_EQ(RedactUri("postgresql://floe:hunter2@localhost:5432/cat"),
            "postgresql://floe:***@localhost:5432/cat");
  auto pg = sql::OpenSqlConnection("postgresql://floe:hunter2@127.0.0.1:1/cat?connect_timeout=2");
  ASSERT_FALSE(pg.ok());
  EXPECT_EQ(pg.status().message().find("hunter2"), std::string::npos) << pg.status().message();
}

TEST(TableIdentifierTest, Parses) {
  ASSERT_OK_AND_ASSIGN(TableIdentifier id, ParseTableIdentifier("cda.raw.policy"));
  EXPECT_EQ(id.ns, (Namespace{"cda", "raw"}));
  EXPECT_EQ(id.name, "policy");
  EXPECT_FALSE(ParseTableIdentifier("policy").ok());
  EXPECT_FALSE(ParseTableIdentifier("a..b").ok());
}

INSTANTIATE_TEST_SUITE_P(Backends, SqlCatalogTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace floe::catalog
