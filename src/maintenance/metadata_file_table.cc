#include "maintenance/metadata_file_table.h"

#include <cstdio>

#include "catalog/table/metastore_table_operations.h"
#include "iceberg/spec/random_ids.h"
#include "iceberg/transaction/table_update.h"

namespace floe::maintenance {

namespace {

std::string DirectoryOf(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  return slash == std::string::npos ? "" : path.substr(0, slash + 1);
}

}  // namespace

Result<std::string> NextMetadataPath(const std::string& metadata_path) {
  const std::string dir = DirectoryOf(metadata_path);
  const std::string name = metadata_path.substr(dir.size());
  std::optional<int64_t> version = catalog::MetadataFileVersion(name);
  if (!version) {
    return Status::InvalidArgument(
        "metadata file " + metadata_path +
        ": name has no version (expected v<N>.metadata.json or <N>-<uuid>.metadata.json)");
  }
  if (!name.empty() && name[0] == 'v') return dir + "v" + std::to_string(*version + 1) + ".metadata.json";
  char digits[32];
  std::snprintf(digits, sizeof(digits), "%05lld", static_cast<long long>(*version + 1));
  return dir + digits + "-" + iceberg::NewUuidV4() + ".metadata.json";
}

Result<iceberg::LoadedTable> MetadataFileTableOperations::Load() {
  if (cached_) return *cached_;
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata metadata, catalog::ReadTableMetadata(*io_, metadata_path_));
  cached_ = iceberg::LoadedTable{std::move(metadata), metadata_path_};
  return *cached_;
}

Result<iceberg::LoadedTable> MetadataFileTableOperations::Commit(
    const std::vector<iceberg::TableRequirement>& requirements,
    const std::vector<iceberg::TableUpdate>& updates) {
  FLOE_ASSIGN_OR_RETURN(iceberg::LoadedTable base, Load());
  FLOE_RETURN_IF_ERROR(iceberg::CheckRequirements(&base.metadata, requirements).WithContext(metadata_path_));
  FLOE_ASSIGN_OR_RETURN(iceberg::TableMetadata next,
                        iceberg::ApplyUpdates(base.metadata, base.metadata_location, updates));
  FLOE_ASSIGN_OR_RETURN(std::string location, NextMetadataPath(base.metadata_location));
  Status written = catalog::WriteTableMetadata(*io_, location, next);
  if (written.kind() == ErrorKind::kAlreadyExists) {
    cached_.reset();
    return Status::CommitFailed("committing " + metadata_path_ + ": " + location + " already exists");
  }
  FLOE_RETURN_IF_ERROR(written);
  const std::string hint = DirectoryOf(location) + "version-hint.text";
  const std::string name = location.substr(DirectoryOf(location).size());
  auto has_hint = io_->Exists(hint);
  if (has_hint.ok() && *has_hint) {
    // The new version is committed; a stale hint only misleads readers that trust it, so report nothing.
    if (auto version = catalog::MetadataFileVersion(name))
      (void)io_->WriteAll(hint, std::to_string(*version));
  }
  metadata_path_ = location;
  cached_ = iceberg::LoadedTable{std::move(next), location};
  return *cached_;
}

}  // namespace floe::maintenance
