// Helpers for table-level tests: a catalog in a temp dir and fake data files.
#pragma once

#include <filesystem>
#include <memory>
#include <string>

#include "catalog/table/catalog.h"
#include "iceberg/manifest/manifest_io.h"
#include "iceberg/transaction/table.h"
#include "test_util.h"

namespace floe::testing {

inline iceberg::Schema EventSchema() {
  using iceberg::MakeNestedField;
  using iceberg::PrimitiveType;
  using iceberg::TypeKind;
  iceberg::Schema s;
  s.fields.push_back(MakeNestedField(1, "id", PrimitiveType(TypeKind::kLong), true));
  s.fields.push_back(MakeNestedField(2, "category", PrimitiveType(TypeKind::kString)));
  s.fields.push_back(MakeNestedField(3, "ts", PrimitiveType(TypeKind::kTimestamp)));
  s.fields.push_back(MakeNestedField(4, "qty", PrimitiveType(TypeKind::kInt)));
  return s;
}

// A data file record; the file itself need not exist for metadata-level tests.
inline iceberg::DataFile FakeDataFile(const std::string& path, int64_t records, int32_t spec_id = 0,
                                      std::vector<iceberg::Literal> partition = {}) {
  iceberg::DataFile f;
  f.file_path = path;
  f.record_count = records;
  f.file_size_in_bytes = 100 + records;
  f.spec_id = spec_id;
  f.partition = std::move(partition);
  return f;
}

inline iceberg::DataFile FakePositionDeletes(const std::string& path, const std::string& data_file,
                                             int64_t records) {
  iceberg::DataFile f = FakeDataFile(path, records);
  f.content = iceberg::DataFileContent::kPositionDeletes;
  f.referenced_data_file = data_file;
  return f;
}

// Live file paths of a snapshot, sorted.
inline std::vector<std::string> LivePaths(iceberg::Table& table, const iceberg::Snapshot& snapshot) {
  auto entries = iceberg::LiveEntries(table.io(), table.metadata(), snapshot);
  EXPECT_TRUE(entries.ok()) << entries.status().ToString();
  std::vector<std::string> paths;
  if (entries.ok()) {
    for (const auto& e : *entries) paths.push_back(e.data_file.file_path);
  }
  std::sort(paths.begin(), paths.end());
  return paths;
}

inline size_t CountFiles(const std::filesystem::path& dir, const std::string& suffix) {
  size_t n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::recursive_directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      ++n;
  }
  return n;
}

}  // namespace floe::testing
