#include "catalog/filesystem/filesystem_catalog.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>
#include <system_error>

#include "catalog/table/metastore_table_operations.h"
#include "iceberg/spec/table_metadata_builder.h"

namespace floe::catalog {

using iceberg::LoadedTable;
using iceberg::TableMetadata;
namespace fs = std::filesystem;

namespace {

// Bound on probing past the version hint, so a hostile directory cannot make Load loop for long.
constexpr int64_t kMaxVersionProbe = 1000;

Status CheckName(const std::string& part, const char* what) {
  if (part.empty() || part == "." || part == ".." || part.find('/') != std::string::npos) {
    return Status::InvalidArgument(std::string(what) + " '" + part + "' is not a valid directory name");
  }
  return Status::OK();
}

class FilesystemTableOperations final : public iceberg::TableOperations {
 public:
  FilesystemTableOperations(std::shared_ptr<FileIO> io, std::string table_dir, std::string name)
      : io_(std::move(io)), table_dir_(std::move(table_dir)), name_(std::move(name)) {}

  static std::string VersionPath(const std::string& table_dir, int64_t version) {
    return table_dir + "/metadata/v" + std::to_string(version) + ".metadata.json";
  }
  static std::string HintPath(const std::string& table_dir) {
    return table_dir + "/metadata/version-hint.text";
  }

  // The newest version: the hint, then any newer files a crashed commit left before updating the hint.
  Result<int64_t> CurrentVersion() {
    int64_t version = 0;
    auto hint = io_->ReadAll(HintPath(table_dir_));
    if (hint.ok()) {
      std::string text(hint->begin(), hint->end());
      while (!text.empty() && (text.back() == '\n' || text.back() == ' ' || text.back() == '\r'))
        text.pop_back();
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), version);
      if (ec != std::errc() || ptr != text.data() + text.size() || version < 0) version = 0;
    }
    if (version == 0) {
      // No usable hint: the highest v<N>.metadata.json present.
      std::error_code ec;
      for (const auto& entry : fs::directory_iterator(LocalPathOf(table_dir_) + "/metadata", ec)) {
        auto v = MetadataFileVersion(entry.path().filename().string());
        const std::string file = entry.path().filename().string();
        if (v && file.size() > 0 && file[0] == 'v') version = std::max(version, *v);
      }
    }
    if (version == 0)
      return Status::NotFound("table " + name_ + " has no metadata in " + table_dir_ + "/metadata");
    for (int64_t probe = 0; probe < kMaxVersionProbe; ++probe) {
      FLOE_ASSIGN_OR_RETURN(bool newer, io_->Exists(VersionPath(table_dir_, version + 1)));
      if (!newer) break;
      ++version;
    }
    return version;
  }

  Result<LoadedTable> Load() override {
    FLOE_ASSIGN_OR_RETURN(int64_t version, CurrentVersion());
    const std::string location = VersionPath(table_dir_, version);
    if (cached_ && cached_->metadata_location == location) return *cached_;
    FLOE_ASSIGN_OR_RETURN(TableMetadata metadata, ReadTableMetadata(*io_, location));
    cached_ = LoadedTable{std::move(metadata), location};
    return *cached_;
  }

  Result<LoadedTable> Commit(const std::vector<iceberg::TableRequirement>& requirements,
                             const std::vector<iceberg::TableUpdate>& updates) override {
    FLOE_ASSIGN_OR_RETURN(LoadedTable base, Load());
    FLOE_RETURN_IF_ERROR(iceberg::CheckRequirements(&base.metadata, requirements).WithContext(name_));
    FLOE_ASSIGN_OR_RETURN(TableMetadata next,
                          iceberg::ApplyUpdates(base.metadata, base.metadata_location, updates));
    const int64_t version = MetadataFileVersion(base.metadata_location).value_or(0) + 1;
    const std::string location = VersionPath(table_dir_, version);
    Status written = WriteTableMetadata(*io_, location, next);
    if (written.kind() == ErrorKind::kAlreadyExists) {
      return Status::CommitFailed("committing " + name_ + ": version " + std::to_string(version) +
                                  " was committed concurrently");
    }
    FLOE_RETURN_IF_ERROR(written);
    // The new version is committed; a stale hint is only slower to read, so its failure is not an error.
    (void)io_->WriteAll(HintPath(table_dir_), std::to_string(version));
    cached_ = LoadedTable{std::move(next), location};
    return *cached_;
  }

  FileIO& io() override { return *io_; }
  std::string name() const override { return name_; }

 private:
  std::shared_ptr<FileIO> io_;
  std::string table_dir_;
  std::string name_;
  std::optional<LoadedTable> cached_;
};

class FilesystemCatalog final : public Catalog {
 public:
  FilesystemCatalog(std::shared_ptr<FileIO> io, std::string warehouse)
      : io_(std::move(io)), warehouse_(std::move(warehouse)) {}

  const std::string& warehouse() const override { return warehouse_; }
  FileIO& io() override { return *io_; }

  Result<std::string> NamespaceDir(const Namespace& ns) const {
    std::string dir = warehouse_;
    for (const auto& level : ns) {
      FLOE_RETURN_IF_ERROR(CheckName(level, "namespace level"));
      dir += "/" + level;
    }
    return dir;
  }
  static bool IsTableDir(const fs::path& dir) {
    std::error_code ec;
    return fs::is_directory(dir / "metadata", ec);
  }

  Status CreateNamespace(const Namespace& ns, const Properties& properties) override {
    FLOE_RETURN_IF_ERROR(ValidateNamespace(ns));
    if (!properties.empty()) {
      return Status::NotSupported("the filesystem catalog cannot store namespace properties");
    }
    FLOE_ASSIGN_OR_RETURN(std::string dir, NamespaceDir(ns));
    std::error_code ec;
    if (fs::exists(dir, ec)) {
      return Status::AlreadyExists("namespace '" + NamespaceToString(ns) + "' already exists");
    }
    fs::create_directories(dir, ec);
    if (ec) return Status::IOError("creating namespace directory " + dir + ": " + ec.message());
    return Status::OK();
  }

  Result<std::vector<Namespace>> ListNamespaces(const Namespace& parent) override {
    FLOE_ASSIGN_OR_RETURN(std::string dir, NamespaceDir(parent));
    std::vector<Namespace> out;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) return Status::NotFound("namespace '" + NamespaceToString(parent) + "' does not exist");
    for (const auto& entry : it) {
      if (!entry.is_directory(ec) || IsTableDir(entry.path())) continue;
      Namespace child = parent;
      child.push_back(entry.path().filename().string());
      out.push_back(std::move(child));
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<std::vector<TableIdentifier>> ListTables(const Namespace& ns) override {
    FLOE_ASSIGN_OR_RETURN(std::string dir, NamespaceDir(ns));
    std::vector<TableIdentifier> out;
    std::error_code ec;
    fs::directory_iterator it(dir, ec);
    if (ec) return Status::NotFound("namespace '" + NamespaceToString(ns) + "' does not exist");
    for (const auto& entry : it) {
      if (entry.is_directory(ec) && IsTableDir(entry.path())) {
        out.push_back(TableIdentifier{ns, entry.path().filename().string()});
      }
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  Result<std::string> TableDir(const TableIdentifier& table) const {
    FLOE_RETURN_IF_ERROR(CheckName(table.name, "table name"));
    FLOE_ASSIGN_OR_RETURN(std::string dir, NamespaceDir(table.ns));
    return dir + "/" + table.name;
  }

  Result<std::shared_ptr<iceberg::TableOperations>> LoadTable(const TableIdentifier& table) override {
    FLOE_ASSIGN_OR_RETURN(std::string dir, TableDir(table));
    if (!IsTableDir(dir)) return Status::NotFound("table " + table.ToString() + " does not exist");
    auto ops = std::make_shared<FilesystemTableOperations>(io_, dir, table.ToString());
    FLOE_RETURN_IF_ERROR(ops->Load().status());
    return std::shared_ptr<iceberg::TableOperations>(std::move(ops));
  }

  Result<std::shared_ptr<iceberg::TableOperations>> CreateTable(const TableIdentifier& table,
                                                                const TableCreation& creation) override {
    for (const auto& level : table.ns) FLOE_RETURN_IF_ERROR(ValidateName(level, "namespace level"));
    FLOE_RETURN_IF_ERROR(ValidateName(table.name, "table name"));
    FLOE_ASSIGN_OR_RETURN(std::string ns_dir, NamespaceDir(table.ns));
    std::error_code ec;
    if (!table.ns.empty() && !fs::is_directory(ns_dir, ec)) {
      return Status::NotFound("namespace '" + NamespaceToString(table.ns) + "' does not exist");
    }
    FLOE_ASSIGN_OR_RETURN(std::string dir, TableDir(table));
    if (!creation.location.empty() && creation.location != dir) {
      return Status::InvalidArgument("the filesystem catalog keeps table " + table.ToString() + " at " + dir);
    }
    if (IsTableDir(dir)) return Status::AlreadyExists("table " + table.ToString() + " already exists");
    FLOE_ASSIGN_OR_RETURN(TableMetadata metadata,
                          iceberg::NewTableMetadata(dir, creation.schema, creation.spec, creation.sort_order,
                                                    creation.properties, creation.format_version));
    fs::create_directories(dir + "/metadata", ec);
    if (ec) return Status::IOError("creating " + dir + "/metadata: " + ec.message());
    const std::string location = FilesystemTableOperations::VersionPath(dir, 1);
    Status written = WriteTableMetadata(*io_, location, metadata);
    if (written.kind() == ErrorKind::kAlreadyExists) {
      return Status::AlreadyExists("table " + table.ToString() + " already exists");
    }
    FLOE_RETURN_IF_ERROR(written);
    (void)io_->WriteAll(FilesystemTableOperations::HintPath(dir), "1");
    return std::shared_ptr<iceberg::TableOperations>(
        std::make_shared<FilesystemTableOperations>(io_, dir, table.ToString()));
  }

 private:
  std::shared_ptr<FileIO> io_;
  std::string warehouse_;
};

}  // namespace

Result<std::unique_ptr<Catalog>> OpenFilesystemCatalog(const std::string& warehouse,
                                                       std::shared_ptr<FileIO> io) {
  if (warehouse.find("://") != std::string::npos && warehouse.rfind("file://", 0) != 0) {
    return Status::NotSupported("the filesystem catalog needs a local warehouse (atomic create), not " +
                                warehouse);
  }
  std::string root = LocalPathOf(warehouse);
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (root.empty()) return Status::InvalidArgument("the filesystem catalog needs a warehouse directory");
  std::error_code ec;
  fs::create_directories(root, ec);
  if (ec) return Status::IOError("creating warehouse directory " + root + ": " + ec.message());
  if (io == nullptr) io = MakeLocalFileIO();
  return std::unique_ptr<Catalog>(std::make_unique<FilesystemCatalog>(std::move(io), root));
}

}  // namespace floe::catalog
