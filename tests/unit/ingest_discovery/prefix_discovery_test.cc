#include "ingest/discovery/prefix_discovery.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ingest/discovery/table_path.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

bool IsParquet(std::string_view path) {
  return path.ends_with(".parquet");
}

namespace fs = std::filesystem;

// Far enough in the future that every file written by the test has settled.
constexpr int64_t kLater = int64_t{1} << 50;

class PrefixSourceTest : public ::testing::Test {
 protected:
  void Write(const std::string& relative, const std::string& content = "PAR1") {
    fs::path path = root() / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << content;
  }
  fs::path root() const { return dir_.path() / "orders"; }

  Result<DiscoveryResult> Discover(SourceConfig config = {}, int64_t now_ms = kLater) {
    config.discovery = DiscoveryKind::kPrefix;
    if (config.uri.empty()) config.uri = root().string();
    auto source = MakeDiscovery(config, MakeLocalFileIO(), IsParquet);
    if (!source.ok()) return source.status();
    return (*source)->Discover({}, now_ms);
  }

  static std::vector<std::string> Keys(const DiscoveryResult& discovery) {
    std::vector<std::string> keys;
    for (const SourceUnit& file : discovery.files) keys.push_back(file.order_key);
    return keys;
  }

  testing::TempDir dir_;
};

TEST_F(PrefixSourceTest, ListsParquetFilesAndSkipsHiddenOnes) {
  Write("b.parquet", "123");
  Write("a.parquet");
  Write("sub/c.parquet");
  Write("_SUCCESS");
  Write("_temporary/0/d.parquet");
  Write(".a.parquet.crc");
  Write("sub/.c.parquet.crc");
  Write("sub/_e.parquet");
  Write("notes.txt");
  Write("data.parquet.tmp");
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover());
  EXPECT_EQ(Keys(discovery), (std::vector<std::string>{"a.parquet", "b.parquet", "sub/c.parquet"}));
  EXPECT_EQ(discovery.tables, std::vector<std::string>{"orders"});
  const SourceUnit& b = discovery.files[1];
  EXPECT_EQ(b.uri, (root() / "b.parquet").string());
  EXPECT_EQ(b.table, "orders");
  EXPECT_EQ(b.size, 3);
  EXPECT_TRUE(b.partition_values.empty());
  EXPECT_TRUE(discovery.new_watermarks.empty());
}

TEST_F(PrefixSourceTest, HivePartitionsAreUrlDecoded) {
  Write("region=eu%2Fwest/day=2024-01-01/p.parquet");
  Write("region=us/plain/day=%ZZ/q.parquet");
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover());
  ASSERT_EQ(discovery.files.size(), 2u);
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  EXPECT_EQ(discovery.files[0].partition_values, (Pairs{{"region", "eu/west"}, {"day", "2024-01-01"}}));
  EXPECT_EQ(discovery.files[1].partition_values, (Pairs{{"region", "us"}, {"day", "%ZZ"}}));

  SourceConfig config;
  config.hive_partitioning = false;
  ASSERT_OK_AND_ASSIGN(DiscoveryResult flat, Discover(config));
  EXPECT_TRUE(flat.files[0].partition_values.empty());
}

TEST_F(PrefixSourceTest, IncludeExcludeOnRelativePaths) {
  Write("region=eu/a.parquet");
  Write("region=eu/day=1/b.parquet");
  Write("region=us/c.parquet");
  Write("top.parquet");
  SourceConfig config;
  config.include = {"region=eu/**"};
  ASSERT_OK_AND_ASSIGN(DiscoveryResult eu, Discover(config));
  EXPECT_EQ(Keys(eu), (std::vector<std::string>{"region=eu/a.parquet", "region=eu/day=1/b.parquet"}));

  config.include = {"*.parquet"};  // '*' stays within one folder
  ASSERT_OK_AND_ASSIGN(DiscoveryResult top, Discover(config));
  EXPECT_EQ(Keys(top), std::vector<std::string>{"top.parquet"});

  config.include = {};
  config.exclude = {"**/day=*/**"};
  ASSERT_OK_AND_ASSIGN(DiscoveryResult no_days, Discover(config));
  EXPECT_EQ(Keys(no_days),
            (std::vector<std::string>{"region=eu/a.parquet", "region=us/c.parquet", "top.parquet"}));
}

TEST_F(PrefixSourceTest, LocalFilesWaitToSettle) {
  Write("a.parquet");
  ASSERT_OK_AND_ASSIGN(FileInfo info, MakeLocalFileIO()->Stat((root() / "a.parquet").string()));
  SourceConfig config;
  config.settle_ms = 5000;
  ASSERT_OK_AND_ASSIGN(DiscoveryResult early, Discover(config, info.mtime_ms + 4999));
  EXPECT_TRUE(early.files.empty());
  ASSERT_OK_AND_ASSIGN(DiscoveryResult settled, Discover(config, info.mtime_ms + 5000));
  EXPECT_EQ(settled.files.size(), 1u);
  EXPECT_EQ(settled.files[0].mtime_ms, info.mtime_ms);
  config.settle_ms = 0;
  ASSERT_OK_AND_ASSIGN(DiscoveryResult immediate, Discover(config, info.mtime_ms));
  EXPECT_EQ(immediate.files.size(), 1u);
}

TEST_F(PrefixSourceTest, TableNameFromConfigOrUri) {
  Write("a.parquet");
  SourceConfig config;
  config.table = "sales";
  ASSERT_OK_AND_ASSIGN(DiscoveryResult named, Discover(config));
  EXPECT_EQ(named.files[0].table, "sales");
  EXPECT_EQ(named.tables, std::vector<std::string>{"sales"});

  config.table = "";
  config.uri = "file://" + root().string() + "/";
  ASSERT_OK_AND_ASSIGN(DiscoveryResult from_uri, Discover(config));
  EXPECT_EQ(from_uri.files[0].table, "orders");
  EXPECT_EQ(from_uri.files[0].order_key, "a.parquet");

  EXPECT_EQ(PrefixDiscovery::DefaultTableName("s3://bucket/exports/orders/"), "orders");
  EXPECT_EQ(PrefixDiscovery::DefaultTableName("s3a://bucket"), "bucket");
  EXPECT_EQ(PrefixDiscovery::DefaultTableName("/"), "");
  config.uri = "/";
  config.discovery = DiscoveryKind::kPrefix;
  EXPECT_EQ(MakeDiscovery(config, MakeLocalFileIO(), IsParquet).status().kind(), ErrorKind::kInvalidArgument);
}

// Issue 15 item 7: a uri that does not exist was "ok" and idled forever.
TEST_F(PrefixSourceTest, MissingRootIsAnErrorUnlessAllowed) {
  SourceConfig config;
  config.uri = (dir_.path() / "absent").string();
  auto missing = Discover(config);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(missing.status().message().find("source " + config.uri + " does not exist"), std::string::npos)
      << missing.status().message();
  EXPECT_NE(missing.status().message().find("allow_missing_uri"), std::string::npos);

  config.allow_missing_uri = true;
  ASSERT_OK_AND_ASSIGN(DiscoveryResult allowed, Discover(config));
  EXPECT_TRUE(allowed.files.empty());
  EXPECT_TRUE(allowed.source_missing);
  ASSERT_EQ(allowed.warnings.size(), 1u);
  EXPECT_NE(allowed.warnings[0].find("does not exist (yet)"), std::string::npos);
}

// Issue 15 item 10: settling files are counted with the times they become eligible.
TEST_F(PrefixSourceTest, SettlingFilesAreCountedWithTheirEligibleTimes) {
  Write("a.parquet");
  Write("b.parquet");
  ASSERT_OK_AND_ASSIGN(FileInfo a, MakeLocalFileIO()->Stat((root() / "a.parquet").string()));
  ASSERT_OK_AND_ASSIGN(FileInfo b, MakeLocalFileIO()->Stat((root() / "b.parquet").string()));
  SourceConfig config;
  config.settle_ms = 10'000;
  const int64_t now = std::min(a.mtime_ms, b.mtime_ms) + 1;
  ASSERT_OK_AND_ASSIGN(DiscoveryResult early, Discover(config, now));
  EXPECT_TRUE(early.files.empty());
  EXPECT_EQ(early.settling.files, 2);
  EXPECT_EQ(early.settling.first_eligible_ms, std::min(a.mtime_ms, b.mtime_ms) + 10'000);
  EXPECT_EQ(early.settling.last_eligible_ms, std::max(a.mtime_ms, b.mtime_ms) + 10'000);
  ASSERT_OK_AND_ASSIGN(DiscoveryResult later, Discover(config, kLater));
  EXPECT_EQ(later.settling.files, 0);
}

// Issue 15 item 3: many tables under one prefix, named by the path.
TEST_F(PrefixSourceTest, TableFromPathNamesEachFilesTable) {
  Write("hr/employee/LOAD00000001.parquet");
  Write("hr/employee/2024/03/08/20240308-101500123.parquet");
  Write("hr/employee/LOAD0000000A.parquet");
  Write("hr/department/region=eu/LOAD00000001.parquet");
  Write("sales/orders/date=2024-03-08/part-0.parquet");
  Write("stray.parquet");            // no table folder: not matched
  Write("hr/employee.parquet");      // {table} must be a folder
  Write("hr/_tmp/x/LOAD1.parquet");  // hidden
  SourceConfig config;
  config.table_from_path = "{schema}/{table}/**";
  config.full_load_files = {"LOAD*"};
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover(config));
  EXPECT_EQ(discovery.tables, (std::vector<std::string>{"department", "employee", "orders"}));
  std::vector<std::pair<std::string, std::string>> seen;
  for (const SourceUnit& file : discovery.files) seen.emplace_back(file.table, file.order_key);
  // Full-load files first within their table, then the others by path (a
  // plain path order would put the dated CDC folder before LOAD files).
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, std::string>>{
                      {"department", "0/hr/department/region=eu/LOAD00000001.parquet"},
                      {"employee", "0/hr/employee/LOAD00000001.parquet"},
                      {"employee", "0/hr/employee/LOAD0000000A.parquet"},
                      {"employee", "1/hr/employee/2024/03/08/20240308-101500123.parquet"},
                      {"orders", "1/sales/orders/date=2024-03-08/part-0.parquet"}}));
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  // Hive folders count below the table's folder only.
  EXPECT_EQ(discovery.files[0].partition_values, (Pairs{{"region", "eu"}}));
  EXPECT_EQ(discovery.files[4].partition_values, (Pairs{{"date", "2024-03-08"}}));
}

TEST_F(PrefixSourceTest, OneTableNameUnderTwoSchemasIsThatTablesError) {
  Write("hr/people/a.parquet");
  Write("crm/people/b.parquet");
  Write("crm/accounts/c.parquet");
  SourceConfig config;
  config.table_from_path = "{schema}/{table}/**";
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover(config));
  EXPECT_EQ(discovery.tables, std::vector<std::string>{"accounts"});
  ASSERT_EQ(discovery.files.size(), 1u);
  EXPECT_EQ(discovery.files[0].table, "accounts");
  ASSERT_EQ(discovery.table_errors.count("people"), 1u);
  EXPECT_NE(discovery.table_errors.at("people").find("lie under crm/ and hr/"), std::string::npos)
      << discovery.table_errors.at("people");
}

TEST(TablePathTemplateTest, ParsesAndMatchesCaptures) {
  ASSERT_OK_AND_ASSIGN(TablePathTemplate dms, TablePathTemplate::Parse("{schema}/{table}/**"));
  auto match = dms.MatchPath("hr/employee/2024/03/08/x.parquet");
  ASSERT_TRUE(match.has_value());
  EXPECT_EQ(match->schema, "hr");
  EXPECT_EQ(match->table, "employee");
  EXPECT_EQ(match->table_folder_length, std::string("hr/employee").size());
  EXPECT_FALSE(dms.MatchPath("hr/x.parquet").has_value());

  ASSERT_OK_AND_ASSIGN(TablePathTemplate nested, TablePathTemplate::Parse("exports/*/{table}/*.parquet"));
  auto connect = nested.MatchPath("exports/prod/orders/part-1.parquet");
  ASSERT_TRUE(connect.has_value());
  EXPECT_EQ(connect->table, "orders");
  EXPECT_TRUE(connect->schema.empty());
  EXPECT_FALSE(nested.MatchPath("exports/prod/orders/deeper/part-1.parquet").has_value());
  EXPECT_FALSE(nested.MatchPath("other/prod/orders/part-1.parquet").has_value());

  for (const char* bad :
       {"{schema}/**", "**/{table}", "x{table}/**", "{table}/{table}/*", "a//{table}/*", ""}) {
    auto parsed = TablePathTemplate::Parse(bad);
    EXPECT_FALSE(parsed.ok()) << bad;
    if (!parsed.ok()) {
      EXPECT_NE(parsed.status().message().find("[source] table_from_path"), std::string::npos) << bad;
    }
  }
}

TEST(UrlDecodeTest, Escapes) {
  EXPECT_EQ(UrlDecode("a%20b%2fc%3D"), "a b/c=");
  EXPECT_EQ(UrlDecode("100%"), "100%");
  EXPECT_EQ(UrlDecode("%4"), "%4");
  EXPECT_EQ(UrlDecode("%g1"), "%g1");
  EXPECT_EQ(UrlDecode("x+y"), "x+y");
}

TEST(MakeDiscoveryTest, RejectsMissingUriAndIo) {
  SourceConfig config;
  EXPECT_EQ(MakeDiscovery(config, MakeLocalFileIO(), IsParquet).status().kind(), ErrorKind::kInvalidArgument);
  config.uri = "/tmp";
  EXPECT_EQ(MakeDiscovery(config, nullptr, IsParquet).status().kind(), ErrorKind::kInvalidArgument);
  config.discovery = DiscoveryKind::kPrefix;
  config.settle_ms = -1;
  EXPECT_EQ(MakeDiscovery(config, MakeLocalFileIO(), IsParquet).status().kind(), ErrorKind::kInvalidArgument);
}

}  // namespace
}  // namespace floe::ingest
