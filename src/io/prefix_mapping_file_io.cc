#include "io/prefix_mapping_file_io.h"

namespace floe {
namespace {

// Whether `path` lies under `prefix` (equal, or prefix + '/' + rest).
bool HasPathPrefix(const std::string& path, const std::string& prefix) {
  if (prefix.empty() || path.compare(0, prefix.size(), prefix) != 0) return false;
  return path.size() == prefix.size() || prefix.back() == '/' || path[prefix.size()] == '/';
}

}  // namespace

Result<PrefixMapping> ParsePrefixMapping(const std::string& text) {
  const size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == text.size()) {
    return Status::InvalidArgument("location mapping '" + text + "' is not FROM=TO");
  }
  return PrefixMapping{text.substr(0, eq), text.substr(eq + 1)};
}

std::string PrefixMappingFileIO::MapPath(const std::string& path) const {
  const PrefixMapping* best = nullptr;
  for (const PrefixMapping& mapping : mappings_) {
    if (HasPathPrefix(path, mapping.from) && (best == nullptr || mapping.from.size() > best->from.size())) {
      best = &mapping;
    }
  }
  if (best == nullptr) return path;
  std::string rest = path.substr(best->from.size());
  std::string to = best->to;
  // Keep exactly one separator between the new prefix and the rest.
  if (!rest.empty() && rest.front() != '/' && !to.empty() && to.back() != '/') to.push_back('/');
  if (!rest.empty() && rest.front() == '/' && !to.empty() && to.back() == '/') rest.erase(0, 1);
  return to + rest;
}

Result<std::unique_ptr<InputFile>> PrefixMappingFileIO::OpenRead(const std::string& path) {
  return base_->OpenRead(MapPath(path));
}

Result<std::unique_ptr<OutputFile>> PrefixMappingFileIO::Create(const std::string& path,
                                                                CreateOptions options) {
  return base_->Create(MapPath(path), options);
}

Result<FileInfo> PrefixMappingFileIO::Stat(const std::string& path) {
  return base_->Stat(MapPath(path));
}

Result<bool> PrefixMappingFileIO::Exists(const std::string& path) {
  return base_->Exists(MapPath(path));
}

Result<std::vector<FileInfo>> PrefixMappingFileIO::List(const std::string& prefix) {
  const std::string mapped = MapPath(prefix);
  FLOE_ASSIGN_OR_RETURN(std::vector<FileInfo> files, base_->List(mapped));
  if (mapped == prefix) return files;
  for (FileInfo& info : files) {
    if (info.path.compare(0, mapped.size(), mapped) == 0)
      info.path = prefix + info.path.substr(mapped.size());
  }
  return files;
}

Status PrefixMappingFileIO::Delete(const std::string& path) {
  return base_->Delete(MapPath(path));
}

}  // namespace floe
