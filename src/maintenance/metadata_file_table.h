// A table addressed by one metadata.json file instead of a catalog, so tables
// written by other engines (copies of them, with a location map) can be
// maintained with `--metadata FILE`.
//
// Contract: Load reads the given file, or the newest version committed since
// through these operations. Commit checks the requirements, applies the
// updates and writes the next version beside the file it started from —
// "v<N+1>.metadata.json" after "v<N>.metadata.json", else
// "<N+1 as 5 digits>-<uuid>.metadata.json" — with if-not-exists (an existing
// file is a retryable CommitFailed) and then rewrites version-hint.text when
// the directory has one. Only one writer may use a table this way at a time:
// nothing stops another engine from committing through its own catalog.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "iceberg/transaction/table_operations.h"
#include "io/file_io.h"

namespace floe::maintenance {

class MetadataFileTableOperations final : public iceberg::TableOperations {
 public:
  MetadataFileTableOperations(std::shared_ptr<FileIO> io, std::string metadata_path)
      : io_(std::move(io)), metadata_path_(std::move(metadata_path)) {}

  Result<iceberg::LoadedTable> Load() override;
  Result<iceberg::LoadedTable> Commit(const std::vector<iceberg::TableRequirement>& requirements,
                                      const std::vector<iceberg::TableUpdate>& updates) override;
  FileIO& io() override { return *io_; }
  std::string name() const override { return metadata_path_; }

 private:
  std::shared_ptr<FileIO> io_;
  std::string metadata_path_;  // the newest committed version
  std::optional<iceberg::LoadedTable> cached_;
};

// The file name of the version after `metadata_path`'s (see the contract above).
Result<std::string> NextMetadataPath(const std::string& metadata_path);

}  // namespace floe::maintenance
