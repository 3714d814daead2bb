#include "ingest/discovery/prefix_discovery.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

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

TEST_F(PrefixSourceTest, MissingRootListsNothing) {
  SourceConfig config;
  config.uri = (dir_.path() / "absent").string();
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover(config));
  EXPECT_TRUE(discovery.files.empty());
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
