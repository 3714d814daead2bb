#include "ingest/discovery/prefix_discovery.h"

#include <algorithm>

#include "ingest/discovery/glob.h"
#include "ingest/discovery/landing_path.h"

namespace floe::ingest {
namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

std::string UrlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexValue(text[i + 1]) >= 0 && HexValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexValue(text[i + 1]) * 16 + HexValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

PrefixDiscovery::PrefixDiscovery(SourceConfig config, std::string table, std::shared_ptr<FileIO> io,
                                 DataFilePredicate is_data_file)
    : config_(std::move(config)),
      table_(std::move(table)),
      io_(std::move(io)),
      is_data_file_(std::move(is_data_file)) {}

std::string PrefixDiscovery::DefaultTableName(const std::string& uri) {
  std::string root = ListingRoot(uri);
  size_t scheme = root.find("://");
  std::string_view path(root);
  if (scheme != std::string::npos) path.remove_prefix(scheme + 3);
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  std::string_view last = slash == std::string_view::npos ? path : path.substr(slash + 1);
  if (last == "." || last == "..") return "";
  return std::string(last);
}

Result<DiscoveryResult> PrefixDiscovery::Discover(const std::map<std::string, TableWatermark>& /*watermarks*/,
                                                  int64_t now_ms) {
  const std::string root = ListingRoot(config_.uri);
  const bool settles = !IsObjectStoreUri(config_.uri);
  auto listed = io_->List(root);
  if (!listed.ok()) return listed.status().WithContext("source " + config_.uri + ": listing");

  DiscoveryResult discovery;
  discovery.tables.push_back(table_);
  for (const FileInfo& info : *listed) {
    std::optional<std::string_view> relative = RelativeTo(root, info.path);
    if (!relative) continue;
    std::string_view rel = *relative;
    if (!is_data_file_(rel)) continue;

    std::vector<std::pair<std::string, std::string>> partitions;
    bool hidden = false;
    size_t start = 0;
    while (true) {
      size_t slash = rel.find('/', start);
      std::string_view part =
          rel.substr(start, slash == std::string_view::npos ? rel.size() - start : slash - start);
      if (part.empty() || part.front() == '_' || part.front() == '.') {
        hidden = true;
        break;
      }
      if (slash == std::string_view::npos) break;  // the file name
      size_t equals = part.find('=');
      if (config_.hive_partitioning && equals != std::string_view::npos && equals > 0) {
        partitions.emplace_back(UrlDecode(part.substr(0, equals)), UrlDecode(part.substr(equals + 1)));
      }
      start = slash + 1;
    }
    if (hidden) continue;
    if (!GlobFilterAccepts(config_.include, config_.exclude, rel, GlobMode::kPath)) continue;
    if (settles && now_ms - info.mtime_ms < config_.settle_ms) continue;

    SourceUnit file;
    file.uri = info.path;
    file.table = table_;
    file.size = info.size;
    file.mtime_ms = info.mtime_ms;
    file.order_key = std::string(rel);
    file.partition_values = std::move(partitions);
    discovery.files.push_back(std::move(file));
  }
  std::sort(discovery.files.begin(), discovery.files.end(),
            [](const SourceUnit& a, const SourceUnit& b) { return a.order_key < b.order_key; });
  return discovery;
}

}  // namespace floe::ingest
