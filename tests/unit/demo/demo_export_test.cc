#include "demo/demo_export.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "demo/demo_stream.h"
#include "demo/demo_tables.h"
#include "formats/parquet/file_reader.h"
#include "test_util.h"

namespace floe::demo {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::json;

DemoExportOptions SmallOptions() {
  DemoExportOptions options;
  options.rows = 300;
  options.tables = 5;
  options.folders = 6;
  options.files_per_folder = 2;
  return options;
}

// Relative path -> bytes of every file under root.
std::map<std::string, std::string> ReadTree(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    auto io = MakeLocalFileIO();
    auto bytes = io->ReadAll(entry.path().string());
    EXPECT_TRUE(bytes.ok());
    files[fs::relative(entry.path(), root).string()] = std::string(bytes->begin(), bytes->end());
  }
  return files;
}

Json ReadJson(const fs::path& path) {
  auto bytes = MakeLocalFileIO()->ReadAll(path.string());
  EXPECT_TRUE(bytes.ok()) << path;
  return Json::parse(std::string(bytes->begin(), bytes->end()));
}

// The timestamp folders of one table: folder name -> (fingerprint, files in it).
std::map<int64_t, std::pair<std::string, std::vector<std::string>>> FoldersOf(const fs::path& table_dir) {
  std::map<int64_t, std::pair<std::string, std::vector<std::string>>> folders;
  for (const auto& fingerprint : fs::directory_iterator(table_dir)) {
    for (const auto& folder : fs::directory_iterator(fingerprint.path())) {
      auto& slot = folders[std::stoll(folder.path().filename().string())];
      slot.first = fingerprint.path().filename().string();
      for (const auto& file : fs::recursive_directory_iterator(folder.path())) {
        if (file.is_regular_file()) slot.second.push_back(fs::relative(file.path(), folder.path()).string());
      }
    }
  }
  return folders;
}

TEST(DemoExportTest, SameSeedGivesByteIdenticalFilesAndAnotherSeedDoesNot) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  ASSERT_OK_AND_ASSIGN(auto first, GenerateDemoExport(*io, dir.File("a"), SmallOptions()));
  ASSERT_OK_AND_ASSIGN(auto second, GenerateDemoExport(*io, dir.File("b"), SmallOptions()));
  EXPECT_EQ(first.rows, second.rows);
  EXPECT_EQ(first.bytes, second.bytes);
  const auto a = ReadTree(dir.File("a"));
  const auto b = ReadTree(dir.File("b"));
  ASSERT_GT(a.size(), 20u);
  EXPECT_EQ(a, b);

  DemoExportOptions other = SmallOptions();
  other.seed = 43;
  ASSERT_OK(GenerateDemoExport(*io, dir.File("c"), other));
  EXPECT_NE(ReadTree(dir.File("c")), a);
}

TEST(DemoExportTest, PastFiveTablesTheKindsRepeatUnderNumberedNamesWithTheirOwnData) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  DemoExportOptions options = SmallOptions();
  options.tables = 12;
  ASSERT_OK_AND_ASSIGN(auto summary, GenerateDemoExport(*io, dir.File("many"), options));
  ASSERT_EQ(summary.tables.size(), 12u);
  EXPECT_EQ(summary.tables[0], "cc_claim");
  EXPECT_EQ(summary.tables[5], "cc_claim_2");
  EXPECT_EQ(summary.tables[11], "cc_exposure_3");
  EXPECT_EQ(std::set<std::string>(summary.tables.begin(), summary.tables.end()).size(), 12u);
  const auto tree = ReadTree(dir.File("many"));
  std::map<std::string, std::string> claim_files;
  std::map<std::string, std::string> claim_2_files;
  for (const auto& [path, bytes] : tree) {
    if (path.rfind("cc_claim/", 0) == 0 && path.find(".parquet") != std::string::npos)
      claim_files[path] = bytes;
    if (path.rfind("cc_claim_2/", 0) == 0 && path.find(".parquet") != std::string::npos)
      claim_2_files[path] = bytes;
  }
  ASSERT_FALSE(claim_2_files.empty());
  ASSERT_FALSE(claim_files.empty());
  EXPECT_NE(claim_files.begin()->second, claim_2_files.begin()->second);
}

TEST(DemoExportTest, RefusesAnExistingExportAndBadOptions) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  ASSERT_OK(GenerateDemoExport(*io, dir.File("x"), SmallOptions()));
  auto again = GenerateDemoExport(*io, dir.File("x"), SmallOptions());
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().kind(), ErrorKind::kAlreadyExists);
  EXPECT_NE(again.status().message().find("manifest.json"), std::string::npos);

  DemoExportOptions bad = SmallOptions();
  bad.tables = 51;
  auto result = GenerateDemoExport(*io, dir.File("y"), bad);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.status().message().find("tables must be between 1 and 50, got 51"), std::string::npos);
  bad = SmallOptions();
  bad.update_fraction = 0.9;
  bad.delete_fraction = 0.2;
  EXPECT_FALSE(GenerateDemoExport(*io, dir.File("z"), bad).ok());
}

TEST(DemoExportTest, ManifestFoldersFingerprintsEmptyAndUncommittedFolder) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const DemoExportOptions options = SmallOptions();
  ASSERT_OK_AND_ASSIGN(auto summary, GenerateDemoExport(*io, dir.path().string(), options));
  EXPECT_EQ(summary.tables,
            (std::vector<std::string>{"cc_claim", "cc_exposure", "cc_contact", "cctl_lossType", "cc_check"}));
  const Json manifest = ReadJson(dir.path() / "manifest.json");
  ASSERT_EQ(manifest.size(), 5u);
  int64_t total_processed = 0;
  int64_t parquet_files = 0;
  for (const std::string& table : summary.tables) {
    SCOPED_TRACE(table);
    const Json& entry = manifest.at(table);
    EXPECT_EQ(entry.at("dataFilesPath"), "s3://demo-bucket/cda/" + table);
    const int64_t last_write = std::stoll(entry.at("lastSuccessfulWriteTimestamp").get<std::string>());
    total_processed += entry.at("totalProcessedRecordsCount").get<int64_t>();
    const Json& history = entry.at("schemaHistory");
    ASSERT_EQ(history.size(), 2u);
    std::map<int64_t, std::string> starts;  // start -> fingerprint
    for (const auto& [fingerprint, start] : history.items()) {
      EXPECT_EQ(fingerprint.size(), 32u);
      EXPECT_EQ(fingerprint.find_first_not_of("0123456789abcdef"), std::string::npos);
      starts[std::stoll(start.get<std::string>())] = fingerprint;
    }
    const auto folders = FoldersOf(dir.path() / table);
    // 6 committed folders and one uncommitted.
    ASSERT_EQ(folders.size(), 7u);
    int committed = 0;
    int metrics_only = 0;
    for (const auto& [timestamp, content] : folders) {
      const auto& [fingerprint, files] = content;
      // The folder's fingerprint is the one in effect at its timestamp.
      auto in_effect = starts.upper_bound(timestamp);
      ASSERT_NE(in_effect, starts.begin());
      EXPECT_EQ(std::prev(in_effect)->second, fingerprint) << timestamp;
      EXPECT_NE(std::find(files.begin(), files.end(), ".cda/batch-metrics.json"), files.end());
      int parquet = 0;
      for (const std::string& file : files) {
        if (file.ends_with(".snappy.parquet")) {
          ++parquet;
          EXPECT_TRUE(file.starts_with("part-0000")) << file;
          EXPECT_EQ(
              file.size(),
              std::string("part-00000-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx-c000.snappy.parquet").size());
        }
      }
      parquet_files += parquet;
      if (parquet == 0) ++metrics_only;
      if (timestamp <= last_write) ++committed;
      if (timestamp > last_write) {
        EXPECT_GT(parquet, 0) << "the uncommitted folder holds real changes";
      }
    }
    EXPECT_EQ(committed, 6);
    EXPECT_EQ(metrics_only, 1);
    // The empty folder (index 2 of 6) is committed and says nothing was written.
    const auto empty = std::next(folders.begin(), 2);
    EXPECT_EQ(empty->second.second, std::vector<std::string>{".cda/batch-metrics.json"});
    const Json metrics = ReadJson(dir.path() / table / empty->second.first / std::to_string(empty->first) /
                                  ".cda/batch-metrics.json");
    EXPECT_EQ(metrics.at("tableName"), table);
    EXPECT_EQ(metrics.at("numRecordsWritten"), 0);
    EXPECT_GT(metrics.at("numRecordsDropped").get<int64_t>(), 0);
    EXPECT_GT(summary.expected_rows.at(table), 0);
  }
  EXPECT_EQ(total_processed, summary.committed_rows);
  EXPECT_LT(summary.committed_rows, summary.rows);
  EXPECT_EQ(parquet_files, summary.files);
  EXPECT_TRUE(fs::exists(dir.path() / ".floe-demo-state.json"));
}

TEST(DemoExportTest, OptionsTurnOffSchemaChangeEmptyAndUncommittedFolders) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  DemoExportOptions options = SmallOptions();
  options.tables = 1;
  options.schema_change = false;
  options.empty_folder = false;
  options.uncommitted_folder = false;
  ASSERT_OK(GenerateDemoExport(*io, dir.path().string(), options));
  const Json manifest = ReadJson(dir.path() / "manifest.json");
  EXPECT_EQ(manifest.at("cc_claim").at("schemaHistory").size(), 1u);
  const auto folders = FoldersOf(dir.path() / "cc_claim");
  ASSERT_EQ(folders.size(), 6u);
  EXPECT_EQ(std::to_string(folders.rbegin()->first),
            manifest.at("cc_claim").at("lastSuccessfulWriteTimestamp").get<std::string>());
  for (const auto& [timestamp, content] : folders) EXPECT_GT(content.second.size(), 1u) << timestamp;
}

struct ReadChange {
  int64_t id;
  int32_t operation;
  std::string seqval_hex;
  int64_t seqval;
};

// Every row of every part file of `table`, with the schema of each file.
std::vector<ReadChange> ReadAllChanges(const fs::path& table_dir, std::set<std::string>* schemas) {
  std::vector<ReadChange> changes;
  auto io = MakeLocalFileIO();
  for (const auto& entry : fs::recursive_directory_iterator(table_dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".parquet") continue;
    auto input = io->OpenRead(entry.path().string());
    EXPECT_TRUE(input.ok());
    auto reader = parquet::ParquetFileReader::Open(std::shared_ptr<InputFile>(std::move(*input)));
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) continue;
    schemas->insert(SchemaToString((*reader)->schema()));
    const Schema& schema = (*reader)->schema();
    auto index_of = [&](const std::string& name) {
      for (size_t i = 0; i < schema.size(); ++i) {
        if (schema[i].name == name) return static_cast<int>(i);
      }
      return -1;
    };
    const int id = index_of("id"), op = index_of("gwcbi___operation"), hex = index_of("gwcbi___seqval_hex"),
              seq = index_of("gwcbi___seqval");
    EXPECT_TRUE(id >= 0 && op >= 0 && hex >= 0 && seq >= 0);
    for (int g = 0; g < (*reader)->num_row_groups(); ++g) {
      auto batch = (*reader)->ReadRowGroup(g);
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      for (int64_t r = 0; r < batch->num_rows; ++r) {
        changes.push_back({batch->columns[id].Value<int64_t>(r), batch->columns[op].Value<int32_t>(r),
                           std::string(batch->columns[hex].StringAt(r)),
                           batch->columns[seq].Value<int64_t>(r)});
      }
    }
  }
  return changes;
}

TEST(DemoExportTest, PartFilesReadBackWithTheExpectedSchemasAndChanges) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  DemoExportOptions options = SmallOptions();
  options.tables = 1;
  ASSERT_OK_AND_ASSIGN(auto summary, GenerateDemoExport(*io, dir.path().string(), options));
  std::set<std::string> schemas;
  const auto changes = ReadAllChanges(dir.path() / "cc_claim", &schemas);
  EXPECT_EQ(static_cast<int64_t>(changes.size()), summary.rows);
  ASSERT_EQ(schemas.size(), 2u);
  const Schema first = DemoSchema(DemoTables()[0], 0);
  const Schema second = DemoSchema(DemoTables()[0], 1);
  EXPECT_TRUE(schemas.count(SchemaToString(first))) << *schemas.begin();
  EXPECT_TRUE(schemas.count(SchemaToString(second)));
  EXPECT_EQ(second.size(), first.size() + 2);
  for (const Field& field : first) {
    EXPECT_TRUE(field.nullable) << field.name;
    if (field.name == "beanversion") {
      EXPECT_EQ(field.type, Int32());
    }
    if (field.name == "createtime") {
      EXPECT_EQ(field.type, Timestamp(TimeUnit::kMicro, true));
    }
  }
  for (const Field& field : second) {
    if (field.name == "beanversion") {
      EXPECT_EQ(field.type, Int64());
    }
  }
  EXPECT_GE(first.size(), 17u);  // 7 change columns + 10+ business columns

  std::map<int32_t, int> operations;
  std::map<int64_t, int> changes_per_id;
  bool hex_length_varies = false;
  for (const ReadChange& change : changes) {
    operations[change.operation] += 1;
    changes_per_id[change.id] += 1;
    EXPECT_EQ(SeqvalHex(static_cast<uint64_t>(change.seqval)), change.seqval_hex);
    hex_length_varies |= change.seqval_hex.size() != changes.front().seqval_hex.size();
  }
  EXPECT_TRUE(hex_length_varies) << "unpadded seqval_hex must change length so string order is wrong";
  for (int32_t op : {0, 1, 2, 3, 4}) EXPECT_GT(operations[op], 0) << "operation " << op;
  EXPECT_EQ(operations.size(), 5u);
}

TEST(DemoExportTest, StreamHasLateArrivalsResurrectionTrapsAndReinserts) {
  const DemoExportOptions options = SmallOptions();
  DemoChangeStream stream(options.seed, 0, DemoTables()[0], options);
  auto folders = stream.GenerateFolders(0, options.folders + 1, 2);
  EXPECT_TRUE(folders[2].empty());
  // Seqval -> arrival folder; per id its changes.
  struct Seen {
    uint64_t seqval;
    int32_t operation;
    size_t folder;
  };
  std::map<int64_t, std::vector<Seen>> by_id;
  uint64_t max_seen = 0;
  int out_of_order = 0;
  int same_folder_repeats = 0;
  for (size_t f = 0; f < folders.size(); ++f) {
    std::map<int64_t, int> in_folder;
    for (const auto& change : folders[f]) {
      by_id[change.image.id].push_back({change.columns.seqval, change.columns.operation, f});
      if (change.columns.seqval < max_seen) ++out_of_order;
      max_seen = std::max(max_seen, change.columns.seqval);
      if (change.columns.operation != 3 && ++in_folder[change.image.id] == 2) ++same_folder_repeats;
    }
  }
  int stale_after_delete = 0;  // an older change that arrives after the delete
  int reinserted = 0;          // insert newer than a delete of the same id
  for (const auto& [id, seen] : by_id) {
    for (const Seen& del : seen) {
      if (del.operation != 1) continue;
      for (const Seen& other : seen) {
        if (other.operation == 4 && other.seqval < del.seqval && other.folder > del.folder)
          ++stale_after_delete;
        if ((other.operation == 0 || other.operation == 2) && other.seqval > del.seqval) ++reinserted;
      }
    }
  }
  EXPECT_GT(out_of_order, 0);
  EXPECT_GT(same_folder_repeats, 0);
  EXPECT_GT(stale_after_delete, 0);
  EXPECT_GT(reinserted, 0);
}

TEST(DemoExportTest, AppendAddsCommittedFoldersAndAdvancesTheManifest) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  DemoExportOptions options = SmallOptions();
  options.tables = 2;
  const std::string root = dir.File("export");
  ASSERT_OK_AND_ASSIGN(auto generated, GenerateDemoExport(*io, root, options));
  const Json before = ReadJson(fs::path(root) / "manifest.json");
  const auto folders_before = FoldersOf(fs::path(root) / "cc_claim");
  const auto tree_before = ReadTree(root);

  ASSERT_OK_AND_ASSIGN(auto appended, AppendDemoFolders(*io, root, options, 1, 3));
  EXPECT_GT(appended.rows, 0);
  EXPECT_GT(appended.committed_rows, generated.committed_rows);
  const Json after = ReadJson(fs::path(root) / "manifest.json");
  const auto folders_after = FoldersOf(fs::path(root) / "cc_claim");
  // The old uncommitted folder is now committed, 3 new committed ones and a new uncommitted one.
  EXPECT_EQ(folders_after.size(), folders_before.size() + 4);
  const int64_t last_before =
      std::stoll(before.at("cc_claim").at("lastSuccessfulWriteTimestamp").get<std::string>());
  const int64_t last_after =
      std::stoll(after.at("cc_claim").at("lastSuccessfulWriteTimestamp").get<std::string>());
  EXPECT_GT(last_after, folders_before.rbegin()->first);
  EXPECT_GT(last_after, last_before);
  EXPECT_GT(folders_after.rbegin()->first, last_after);
  EXPECT_GT(after.at("cc_claim").at("totalProcessedRecordsCount").get<int64_t>(),
            before.at("cc_claim").at("totalProcessedRecordsCount").get<int64_t>());
  // Earlier files are untouched.
  const auto tree_after = ReadTree(root);
  for (const auto& [path, bytes] : tree_before) {
    if (path == "manifest.json" || path == ".floe-demo-state.json") continue;
    ASSERT_TRUE(tree_after.count(path)) << path;
    EXPECT_EQ(tree_after.at(path), bytes) << path;
  }

  // Deterministic: the same rounds on a fresh export give the same files.
  const std::string twin = dir.File("twin");
  ASSERT_OK(GenerateDemoExport(*io, twin, options));
  ASSERT_OK(AppendDemoFolders(*io, twin, options, 1, 3));
  EXPECT_EQ(ReadTree(twin), tree_after);

  // Rounds must increase; an export without a state file is refused.
  auto repeated = AppendDemoFolders(*io, root, options, 1, 2);
  ASSERT_FALSE(repeated.ok());
  EXPECT_NE(repeated.status().message().find("must be greater"), std::string::npos);
  ASSERT_OK(AppendDemoFolders(*io, root, options, 5, 1));
  auto missing = AppendDemoFolders(*io, dir.File("nowhere"), options, 1, 1);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().kind(), ErrorKind::kNotFound);
}

TEST(DemoExportTest, CorruptStateFileIsAnErrorNotACrash) {
  testing::TempDir dir;
  auto io = MakeLocalFileIO();
  const std::string root = dir.path().string();
  for (const std::string text : {"", "[]", "{\"format\": 3}", "{\"format\": \"floe-demo-export/1\"}",
                                 "{\"format\": \"floe-demo-export/1\", \"seed\": \"x\"}"}) {
    ASSERT_OK(io->WriteAll(dir.File(".floe-demo-state.json"), text));
    auto result = AppendDemoFolders(*io, root, {}, 1, 1);
    ASSERT_FALSE(result.ok()) << text;
    EXPECT_EQ(result.status().kind(), ErrorKind::kInvalidArgument) << text;
    EXPECT_NE(result.status().message().find(".floe-demo-state.json"), std::string::npos) << text;
  }
}

}  // namespace
}  // namespace floe::demo
