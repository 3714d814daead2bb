#include "ingest/discovery/cda_discovery.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/fault_injecting_file_io.h"
#include "test_util.h"

namespace floe::ingest {
namespace {

bool IsParquet(std::string_view path) {
  return path.ends_with(".parquet");
}

namespace fs = std::filesystem;

class CdaSourceTest : public ::testing::Test {
 protected:
  void Write(const std::string& relative, const std::string& content = "PAR1") {
    fs::path path = dir_.path() / relative;
    fs::create_directories(path.parent_path());
    std::ofstream(path) << content;
  }
  void WriteManifest(const std::string& json) { Write("manifest.json", json); }

  Result<DiscoveryResult> Discover(const std::map<std::string, TableWatermark>& watermarks = {},
                                   SourceConfig config = {}) {
    config.discovery = DiscoveryKind::kCda;
    config.uri = dir_.path().string();
    auto source = MakeDiscovery(config, MakeLocalFileIO(), IsParquet);
    if (!source.ok()) return source.status();
    return (*source)->Discover(watermarks, 0);
  }

  std::vector<std::string> Relative(const DiscoveryResult& discovery) {
    std::vector<std::string> out;
    for (const SourceUnit& file : discovery.files) {
      out.push_back(fs::relative(file.uri, dir_.path()).string());
    }
    return out;
  }

  testing::TempDir dir_;
};

TEST_F(CdaSourceTest, CommittedFoldersOnly) {
  WriteManifest(R"({"taccount": {"lastSuccessfulWriteTimestamp": "2000",
                    "dataFilesPath": "s3://elsewhere/taccount/", "schemaHistory": {"fp1": "1000"}}})");
  Write("taccount/fp1/1500/part-0.parquet", "12345");
  Write("taccount/fp1/2000/part-1.parquet");
  Write("taccount/fp1/2000/.cda/batch-metrics.json");
  Write("taccount/fp1/2001/part-2.parquet");           // newer than the manifest: still being written
  Write("taccount/fp1/1800/.cda/batch-metrics.json");  // a batch of only duplicates
  Write("taccount/fp1/1500/part-0.parquet.crc");
  Write("taccount/fp1/1500/.part-0.parquet.crc");
  Write("taccount/fp1/1500/_SUCCESS");
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover());
  EXPECT_EQ(Relative(discovery), (std::vector<std::string>{"taccount/fp1/1500/part-0.parquet",
                                                           "taccount/fp1/2000/part-1.parquet"}));
  const SourceUnit& first = discovery.files[0];
  EXPECT_EQ(first.table, "taccount");
  EXPECT_EQ(first.fingerprint, "fp1");
  EXPECT_EQ(first.folder_timestamp_ms, 1500);
  EXPECT_EQ(first.size, 5);
  EXPECT_GT(first.mtime_ms, 0);
  EXPECT_EQ(first.order_key, "00000000000000001000/00000000000000001500/part-0.parquet");
  EXPECT_EQ(discovery.tables, std::vector<std::string>{"taccount"});
  EXPECT_TRUE(discovery.table_errors.empty());
  EXPECT_TRUE(discovery.warnings.empty());
  ASSERT_EQ(discovery.new_watermarks.size(), 1u);
  EXPECT_EQ(discovery.new_watermarks[0].table, "taccount");
  EXPECT_EQ(discovery.new_watermarks[0].last_successful_write_ms, 2000);
  EXPECT_EQ(discovery.new_watermarks[0].fingerprints, std::vector<std::string>{"fp1"});

  // The manifest moves on: the newer folder becomes visible.
  WriteManifest(
      R"({"taccount": {"lastSuccessfulWriteTimestamp": "2001", "schemaHistory": {"fp1": "1000"}}})");
  ASSERT_OK_AND_ASSIGN(DiscoveryResult later, Discover());
  EXPECT_EQ(later.files.size(), 3u);
}

TEST_F(CdaSourceTest, TableWithoutFoldersAndEmptyFolders) {
  WriteManifest(R"({"a": {"lastSuccessfulWriteTimestamp": 10, "schemaHistory": {"f": 1}},
                    "b": {"lastSuccessfulWriteTimestamp": 10, "schemaHistory": {"f": 1}}})");
  fs::create_directories(dir_.path() / "b/f/5");  // empty timestamp folder
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover());
  EXPECT_TRUE(discovery.files.empty());
  EXPECT_EQ(discovery.tables, (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(discovery.table_errors.empty());
  EXPECT_EQ(discovery.new_watermarks.size(), 2u);
}

TEST_F(CdaSourceTest, FingerprintsOrderedBySchemaHistoryStart) {
  // "zz" started first, so its folders come before "aa"'s although it sorts after.
  WriteManifest(R"({"t": {"lastSuccessfulWriteTimestamp": 9000,
                    "schemaHistory": {"aa": 5000, "zz": 1000}}})");
  Write("t/aa/5000/p.parquet");
  Write("t/aa/6000/p.parquet");
  Write("t/zz/1000/q.parquet");
  Write("t/zz/4000/a.parquet");
  Write("t/zz/4000/b.parquet");
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover());
  EXPECT_EQ(Relative(discovery),
            (std::vector<std::string>{"t/zz/1000/q.parquet", "t/zz/4000/a.parquet", "t/zz/4000/b.parquet",
                                      "t/aa/5000/p.parquet", "t/aa/6000/p.parquet"}));
  for (size_t i = 1; i < discovery.files.size(); ++i) {
    EXPECT_LT(discovery.files[i - 1].order_key, discovery.files[i].order_key);
  }
  EXPECT_EQ(discovery.new_watermarks[0].fingerprints, (std::vector<std::string>{"zz", "aa"}));
}

TEST_F(CdaSourceTest, UnknownFingerprintAndOddPathsWarn) {
  WriteManifest(R"({"t": {"lastSuccessfulWriteTimestamp": 9000, "schemaHistory": {"f1": 1}}})");
  Write("t/f1/100/ok.parquet");
  Write("t/f9/100/x.parquet");
  Write("t/f9/200/y.parquet");
  Write("t/f1/notatime/z.parquet");
  Write("t/f1/100/deeper/w.parquet");
  Write("t/stray.parquet");
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover());
  EXPECT_EQ(Relative(discovery), std::vector<std::string>{"t/f1/100/ok.parquet"});
  ASSERT_EQ(discovery.warnings.size(), 4u) << ::testing::PrintToString(discovery.warnings);
  std::string all = ::testing::PrintToString(discovery.warnings);
  EXPECT_NE(all.find("folder f9 is not in the manifest's schemaHistory"), std::string::npos) << all;
  EXPECT_NE(all.find("f1/notatime is not an epoch-milliseconds timestamp"), std::string::npos) << all;
  EXPECT_NE(all.find("deeper/w.parquet: expected <table>/<fingerprint>/<timestamp>/<file>.parquet"),
            std::string::npos)
      << all;
}

TEST_F(CdaSourceTest, IncludeExcludeOnTableNames) {
  WriteManifest(R"({"pc_policy": {"lastSuccessfulWriteTimestamp": 10, "schemaHistory": {"f": 1}},
                    "pc_policy_tmp": {"lastSuccessfulWriteTimestamp": 10, "schemaHistory": {"f": 1}},
                    "cc_claim": {"lastSuccessfulWriteTimestamp": 10, "schemaHistory": {"f": 1}}})");
  Write("pc_policy/f/5/a.parquet");
  Write("pc_policy_tmp/f/5/a.parquet");
  Write("cc_claim/f/5/a.parquet");
  SourceConfig config;
  config.include = {"pc_*"};
  config.exclude = {"*_tmp"};
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover({}, config));
  EXPECT_EQ(discovery.tables, std::vector<std::string>{"pc_policy"});
  EXPECT_EQ(Relative(discovery), std::vector<std::string>{"pc_policy/f/5/a.parquet"});
  EXPECT_EQ(discovery.new_watermarks.size(), 1u);
}

TEST_F(CdaSourceTest, MissingManifestIsAClearError) {
  auto result = Discover();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().kind(), ErrorKind::kNotFound);
  EXPECT_NE(result.status().message().find("no manifest.json at " + dir_.File("manifest.json")),
            std::string::npos)
      << result.status().message();
}

TEST_F(CdaSourceTest, MalformedManifestNamesFileTableAndMember) {
  WriteManifest(R"({"t": {"lastSuccessfulWriteTimestamp": "soon", "schemaHistory": {}}})");
  auto result = Discover();
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().message(),
            dir_.File("manifest.json") +
                ": table t: lastSuccessfulWriteTimestamp: expected epoch milliseconds, "
                "got \"soon\"");
}

TEST_F(CdaSourceTest, FileUriRootAndTrailingSlash) {
  WriteManifest(R"({"t": {"lastSuccessfulWriteTimestamp": 10, "schemaHistory": {"f": 1}}})");
  Write("t/f/5/a.parquet");
  SourceConfig config;
  config.uri = "file://" + dir_.path().string() + "/";
  auto source = MakeDiscovery(config, MakeLocalFileIO(), IsParquet);
  ASSERT_OK(source);
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, (*source)->Discover({}, 0));
  ASSERT_EQ(discovery.files.size(), 1u);
  EXPECT_EQ(discovery.files[0].uri, dir_.File("t/f/5/a.parquet"));
}

class CdaResetTest : public CdaSourceTest {
 protected:
  void SetUp() override {
    Write("t/f2/150/a.parquet");
    Write("u/f/5/b.parquet");
  }
  std::map<std::string, TableWatermark> Previous() {
    return {{"t", TableWatermark{"t", 200, {"f1", "f2"}}}, {"u", TableWatermark{"u", 10, {"f"}}}};
  }
  static constexpr const char* kUnchangedU =
      R"("u": {"lastSuccessfulWriteTimestamp": 10, "schemaHistory": {"f": 1}})";
};

TEST_F(CdaResetTest, NoResetWhenTheManifestMovesForward) {
  WriteManifest(std::string(R"({"t": {"lastSuccessfulWriteTimestamp": 300,
                               "schemaHistory": {"f1": 1, "f2": 100, "f3": 250}}, )") +
                kUnchangedU + "}");
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover(Previous()));
  EXPECT_TRUE(discovery.table_errors.empty());
  EXPECT_TRUE(discovery.reset_tables.empty());
  EXPECT_EQ(discovery.files.size(), 2u);
}

TEST_F(CdaResetTest, TimestampBackwardsStopsTheTable) {
  WriteManifest(std::string(R"({"t": {"lastSuccessfulWriteTimestamp": 190,
                               "schemaHistory": {"f1": 1, "f2": 100}}, )") +
                kUnchangedU + "}");
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover(Previous()));
  ASSERT_EQ(discovery.table_errors.count("t"), 1u);
  EXPECT_EQ(discovery.table_errors["t"],
            "CDA table t was reset: lastSuccessfulWriteTimestamp went from 200 to 190 (to reload it: "
            "run `floe files CONFIG --reload-table t` once, or set [source] reload_on_reset = true)");
  EXPECT_TRUE(discovery.reset_tables.empty());
  // The other table goes on; the reset table keeps its old watermark and has no files.
  EXPECT_EQ(Relative(discovery), std::vector<std::string>{"u/f/5/b.parquet"});
  ASSERT_EQ(discovery.new_watermarks.size(), 1u);
  EXPECT_EQ(discovery.new_watermarks[0].table, "u");
  EXPECT_EQ(discovery.tables, (std::vector<std::string>{"t", "u"}));
}

TEST_F(CdaResetTest, VanishedFingerprintStopsTheTable) {
  WriteManifest(std::string(R"({"t": {"lastSuccessfulWriteTimestamp": 500,
                               "schemaHistory": {"f2": 100}}, )") +
                kUnchangedU + "}");
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover(Previous()));
  ASSERT_EQ(discovery.table_errors.count("t"), 1u);
  EXPECT_NE(discovery.table_errors["t"].find(
                "CDA table t was reset: schema fingerprint f1 is no longer in "
                "schemaHistory (to reload it: run `floe files CONFIG --reload-table t` once"),
            std::string::npos)
      << discovery.table_errors["t"];
  EXPECT_EQ(Relative(discovery), std::vector<std::string>{"u/f/5/b.parquet"});
}

TEST_F(CdaResetTest, ReloadOnResetReportsTheTableAndReturnsItsFiles) {
  WriteManifest(std::string(R"({"t": {"lastSuccessfulWriteTimestamp": 160,
                               "schemaHistory": {"f2": 100}}, )") +
                kUnchangedU + "}");
  SourceConfig config;
  config.reload_on_reset = true;
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover(Previous(), config));
  EXPECT_TRUE(discovery.table_errors.empty());
  EXPECT_EQ(discovery.reset_tables, std::vector<std::string>{"t"});
  EXPECT_EQ(Relative(discovery), (std::vector<std::string>{"t/f2/150/a.parquet", "u/f/5/b.parquet"}));
  ASSERT_EQ(discovery.new_watermarks.size(), 2u);
  EXPECT_EQ(discovery.new_watermarks[0].table, "t");
  EXPECT_EQ(discovery.new_watermarks[0].last_successful_write_ms, 160);
  EXPECT_EQ(discovery.new_watermarks[0].fingerprints, std::vector<std::string>{"f2"});
}

TEST_F(CdaResetTest, TableGoneFromTheManifestIsATableError) {
  WriteManifest(std::string("{") + kUnchangedU + "}");
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover(Previous()));
  ASSERT_EQ(discovery.table_errors.count("t"), 1u);
  EXPECT_NE(discovery.table_errors["t"].find("CDA table t is no longer in manifest.json"), std::string::npos);
  EXPECT_EQ(Relative(discovery), std::vector<std::string>{"u/f/5/b.parquet"});

  // Excluded tables are none of the source's business.
  SourceConfig config;
  config.exclude = {"t"};
  ASSERT_OK_AND_ASSIGN(DiscoveryResult excluded, Discover(Previous(), config));
  EXPECT_TRUE(excluded.table_errors.empty());
}

// With a previous watermark only folders after it are listed: a file planted
// in an old committed folder (which a previous discovery would have returned)
// is not seen again, while folders after the watermark, in every
// fingerprint, are.
TEST_F(CdaSourceTest, ListsOnlyFoldersAfterThePreviousWatermark) {
  WriteManifest(R"({"t": {"lastSuccessfulWriteTimestamp": "1764547500000",
                    "schemaHistory": {"fp1": "1764547000000", "fp2": "1764547300000",
                                      "fp3-no-folder-yet": "1764547450000"}}})");
  Write("t/fp1/1764547100000/old.parquet");
  Write("t/fp1/1764547200000/at-watermark.parquet");
  Write("t/fp1/1764547200001/after.parquet");
  Write("t/fp2/1764547400000/after2.parquet");
  Write("t/fp2/1764547600000/uncommitted.parquet");
  std::map<std::string, TableWatermark> previous = {
      {"t", TableWatermark{"t", 1764547200000, {"fp1", "fp2"}}}};
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, Discover(previous));
  EXPECT_EQ(Relative(discovery), (std::vector<std::string>{"t/fp1/1764547200001/after.parquet",
                                                           "t/fp2/1764547400000/after2.parquet"}));
  // Without a watermark (first run) everything committed is listed.
  ASSERT_OK_AND_ASSIGN(DiscoveryResult first, Discover());
  EXPECT_EQ(first.files.size(), 4u);
}

// A table whose lastSuccessfulWriteTimestamp is still its watermark has no
// new committed folder: it is not listed at all (a poll of an export where
// few tables moved costs the manifest and the lists of those tables).
TEST_F(CdaSourceTest, ATableWhoseManifestEntryDidNotMoveIsNotListed) {
  WriteManifest(R"({"moved": {"lastSuccessfulWriteTimestamp": "1764547300000", "schemaHistory": {"f": "1"}},
                    "still": {"lastSuccessfulWriteTimestamp": "1764547200000", "schemaHistory": {"f": "1"}}})");
  Write("moved/f/1764547300000/new.parquet");
  Write("still/f/1764547200000/old.parquet");
  Write("still/f/1764547250000/uncommitted.parquet");
  const std::map<std::string, TableWatermark> previous = {
      {"moved", TableWatermark{"moved", 1764547200000, {"f"}}},
      {"still", TableWatermark{"still", 1764547200000, {"f"}}}};
  auto io = std::make_shared<FaultInjectingFileIO>(MakeLocalFileIO());
  SourceConfig config;
  config.uri = dir_.path().string();
  ASSERT_OK_AND_ASSIGN(auto source, MakeDiscovery(config, io, IsParquet));
  ASSERT_OK_AND_ASSIGN(DiscoveryResult discovery, source->Discover(previous, 0));
  EXPECT_EQ(Relative(discovery), std::vector<std::string>{"moved/f/1764547300000/new.parquet"});
  ASSERT_EQ(discovery.new_watermarks.size(), 2u);
  std::vector<std::string> listed;
  for (const std::string& call : io->CallLog()) {
    if (call.find(" List ") != std::string::npos) listed.push_back(call.substr(call.find(" List ") + 6));
  }
  EXPECT_EQ(listed, std::vector<std::string>{dir_.File("moved/f")});
}

}  // namespace
}  // namespace floe::ingest
