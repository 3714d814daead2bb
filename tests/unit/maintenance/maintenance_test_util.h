// A partitioned table in a temp SQLite catalog with real Parquet data files,
// for the maintenance tests: appends of small files, position and equality
// deletes, and reading every snapshot back with TableScan.
#pragma once

#include <algorithm>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "catalog/table/catalog.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/scan/table_scan.h"
#include "iceberg/spec/random_ids.h"
#include "iceberg/spec/table_metadata_builder.h"
#include "iceberg/transaction/table.h"
#include "iceberg/writer/data_file_writer.h"
#include "iceberg/writer/position_delete_writer.h"
#include "test_util.h"

namespace floe::maintenance::testing {

using iceberg::DataFile;
using iceberg::Literal;

// id long (required), cat string (partition source, identity), v long.
inline iceberg::Schema RowSchema() {
  iceberg::Schema s;
  s.fields.push_back(
      iceberg::MakeNestedField(1, "id", iceberg::PrimitiveType(iceberg::TypeKind::kLong), true));
  s.fields.push_back(iceberg::MakeNestedField(2, "cat", iceberg::PrimitiveType(iceberg::TypeKind::kString)));
  s.fields.push_back(iceberg::MakeNestedField(3, "v", iceberg::PrimitiveType(iceberg::TypeKind::kLong)));
  return s;
}

inline iceberg::PartitionSpec ByCategory() {
  iceberg::PartitionSpec spec;
  spec.fields.push_back(iceberg::PartitionField{2, 1000, "cat", iceberg::Transform::Identity()});
  return spec;
}

// Rows (id, cat, v = values[i] or id * 10).
inline RecordBatch Rows(const std::vector<int64_t>& ids, const std::string& cat,
                        const std::vector<int64_t>& values = {}) {
  RecordBatch batch;
  batch.schema = *iceberg::ToFloeSchema(RowSchema());
  Column id(Int64()), category(String()), v(Int64());
  for (size_t i = 0; i < ids.size(); ++i) {
    id.AppendValue<int64_t>(ids[i]);
    category.AppendBytes(cat);
    v.AppendValue<int64_t>(values.empty() ? ids[i] * 10 : values[i]);
  }
  batch.columns = {id, category, v};
  batch.num_rows = static_cast<int64_t>(ids.size());
  return batch;
}

class MaintenanceTableTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto catalog = catalog::OpenSqlCatalog("sqlite://" + dir_.File("catalog.db"), dir_.File("warehouse"));
    ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
    catalog_ = std::move(catalog).value();
    ASSERT_OK(catalog_->CreateNamespace({"db"}, {}));
    catalog::TableCreation creation;
    creation.schema = RowSchema();
    creation.spec = ByCategory();
    creation.properties = {{iceberg::kCommitMinWaitMsProperty, "1"},
                           {iceberg::kCommitMaxWaitMsProperty, "5"}};
    auto ops = catalog_->CreateTable(id_, creation);
    ASSERT_TRUE(ops.ok()) << ops.status().ToString();
  }

  iceberg::Table Open() {
    auto ops = catalog_->LoadTable(id_);
    EXPECT_TRUE(ops.ok()) << ops.status().ToString();
    auto table = iceberg::Table::Load(*ops);
    EXPECT_TRUE(table.ok()) << table.status().ToString();
    return std::move(table).value();
  }

  std::string Location() { return dir_.File("warehouse") + "/db/events"; }

  // `name`: the file's name without ".parquet" (default: a random UUID).
  DataFile WriteData(iceberg::Table& table, const std::vector<int64_t>& ids, const std::string& cat,
                     const std::vector<int64_t>& values = {}, const std::string& name = "") {
    const std::string path =
        Location() + "/data/cat=" + cat + "/" + (name.empty() ? iceberg::NewUuidV4() : name) + ".parquet";
    iceberg::DataFileWriterOptions options;
    options.spec_id = 0;
    auto writer =
        iceberg::DataFileWriter::Open(table.io(), path, RowSchema(), {Literal::String(cat)}, options);
    EXPECT_OK(writer.status());
    EXPECT_OK((*writer)->Write(Rows(ids, cat, values)));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    return *file;
  }

  // Appends one file of `ids` in partition `cat` as its own snapshot.
  DataFile Append(iceberg::Table& table, const std::vector<int64_t>& ids, const std::string& cat,
                  const std::string& name = "") {
    DataFile file = WriteData(table, ids, cat, {}, name);
    EXPECT_OK(table.NewFastAppend().AppendFile(file).Commit().status());
    return file;
  }

  // A position delete file for (data file, position) pairs of partition `cat`.
  DataFile WritePositionDeletes(iceberg::Table& table, const std::string& cat,
                                const std::vector<std::pair<std::string, int64_t>>& rows,
                                const std::string& name = "") {
    const std::string path = Location() + "/data/cat=" + cat + "/" +
                             (name.empty() ? iceberg::NewUuidV4() : name) + "-deletes.parquet";
    auto writer = iceberg::PositionDeleteWriter::Open(table.io(), path, {Literal::String(cat)}, {});
    EXPECT_OK(writer.status());
    for (const auto& [file, pos] : rows) EXPECT_OK((*writer)->Delete(file, pos));
    auto file = (*writer)->Close();
    EXPECT_OK(file.status());
    return *file;
  }

  void CommitDeletes(iceberg::Table& table, const DataFile& deletes) {
    EXPECT_OK(table.NewRowDelta().AddDeletes(deletes).Commit().status());
  }

  // Sorted ids of a snapshot (the current one by default), read with TableScan.
  std::vector<int64_t> ScanIds(iceberg::Table& table, std::optional<int64_t> snapshot_id = std::nullopt) {
    std::vector<int64_t> ids;
    std::shared_ptr<FileIO> io(std::shared_ptr<FileIO>(), &table.io());
    iceberg::ScanOptions options;
    options.snapshot_id = snapshot_id;
    auto scan = iceberg::TableScan::Make(table.metadata(), io, options);
    EXPECT_OK(scan.status());
    if (!scan.ok()) return ids;
    auto tasks = (*scan)->PlanFiles();
    EXPECT_OK(tasks.status());
    if (!tasks.ok()) return ids;
    for (const auto& task : *tasks) {
      auto reader = (*scan)->Open(task);
      EXPECT_OK(reader.status());
      if (!reader.ok()) return {};
      while (true) {
        auto batch = (*reader)->Next();
        EXPECT_OK(batch.status());
        if (!batch.ok() || !batch->has_value()) break;
        for (int64_t r = 0; r < (*batch)->num_rows; ++r)
          ids.push_back((*batch)->columns[0].Value<int64_t>(r));
      }
    }
    std::sort(ids.begin(), ids.end());
    return ids;
  }

  std::vector<int64_t> ScanIds(iceberg::Table&& table) { return ScanIds(table); }

  // Live data and delete files of the current snapshot.
  std::vector<DataFile> LiveFiles(iceberg::Table& table, iceberg::DataFileContent content) {
    std::vector<DataFile> out;
    const iceberg::Snapshot* current = table.metadata().CurrentSnapshot();
    if (current == nullptr) return out;
    auto entries = iceberg::LiveEntries(table.io(), table.metadata(), *current);
    EXPECT_OK(entries.status());
    if (!entries.ok()) return out;
    for (const auto& e : *entries) {
      if (e.data_file.content == content) out.push_back(e.data_file);
    }
    return out;
  }

  // Every regular file under the table location.
  std::set<std::string> FilesOnDisk() {
    std::set<std::string> out;
    std::error_code ec;
    for (const auto& e : std::filesystem::recursive_directory_iterator(Location(), ec)) {
      if (e.is_regular_file()) out.insert(e.path().string());
    }
    return out;
  }

  // The files every snapshot of the table needs: manifest lists, manifests, live files.
  std::set<std::string> FilesNeededBySnapshots(iceberg::Table& table) {
    std::set<std::string> out;
    for (const auto& s : table.metadata().snapshots) {
      out.insert(s.manifest_list);
      auto manifests = iceberg::ReadManifestList(table.io(), s.manifest_list);
      EXPECT_OK(manifests.status());
      if (!manifests.ok()) continue;
      for (const auto& m : *manifests) out.insert(m.manifest_path);
      auto entries = iceberg::LiveEntries(table.io(), table.metadata(), s);
      EXPECT_OK(entries.status());
      if (!entries.ok()) continue;
      for (const auto& e : *entries) out.insert(e.data_file.file_path);
    }
    return out;
  }

  floe::testing::TempDir dir_;
  std::unique_ptr<catalog::Catalog> catalog_;
  catalog::TableIdentifier id_{{"db"}, "events"};
};

inline std::vector<int64_t> Range(int64_t begin, int64_t end) {
  std::vector<int64_t> out;
  for (int64_t i = begin; i < end; ++i) out.push_back(i);
  return out;
}

}  // namespace floe::maintenance::testing
