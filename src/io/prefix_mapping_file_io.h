// PrefixMappingFileIO: a FileIO that rewrites path prefixes before handing
// paths to another FileIO, so a table whose metadata names one location
// (s3://bucket/warehouse/t) can be read from a copy somewhere else
// (/local/copy/t).
//
// Contract: a mapping FROM=TO applies when a path equals FROM or starts with
// FROM followed by '/' (FROM may itself end in '/'); the longest matching
// FROM wins; unmatched paths pass through unchanged. Paths reported back
// (InputFile::path, OutputFile::path, FileInfo::path) are the mapped ones,
// except List, which reports paths under the caller's original prefix.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "io/file_io.h"

namespace floe {

struct PrefixMapping {
  std::string from;
  std::string to;
};

// Parses "FROM=TO" (split at the first '='); both sides must be non-empty.
Result<PrefixMapping> ParsePrefixMapping(const std::string& text);

class PrefixMappingFileIO : public FileIO {
 public:
  PrefixMappingFileIO(std::shared_ptr<FileIO> base, std::vector<PrefixMapping> mappings)
      : base_(std::move(base)), mappings_(std::move(mappings)) {}

  // The path the base FileIO sees for `path`.
  std::string MapPath(const std::string& path) const;

  Result<std::unique_ptr<InputFile>> OpenRead(const std::string& path) override;
  Result<std::unique_ptr<OutputFile>> Create(const std::string& path, CreateOptions options = {}) override;
  Result<FileInfo> Stat(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Result<std::vector<FileInfo>> List(const std::string& prefix) override;
  Status Delete(const std::string& path) override;

 private:
  std::shared_ptr<FileIO> base_;
  std::vector<PrefixMapping> mappings_;
};

}  // namespace floe
