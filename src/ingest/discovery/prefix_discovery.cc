#include "ingest/discovery/prefix_discovery.h"

#include <algorithm>

#include "common/strings.h"
#include "ingest/discovery/glob.h"
#include "ingest/discovery/landing_path.h"

namespace floe::ingest {

std::string UrlDecode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && HexDigitValue(text[i + 1]) >= 0 &&
        HexDigitValue(text[i + 2]) >= 0) {
      out += static_cast<char>(HexDigitValue(text[i + 1]) * 16 + HexDigitValue(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

PrefixDiscovery::PrefixDiscovery(SourceConfig config, std::string table,
                                 std::optional<TablePathTemplate> table_path, std::shared_ptr<FileIO> io,
                                 DataFilePredicate is_data_file)
    : config_(std::move(config)),
      table_(std::move(table)),
      table_path_(std::move(table_path)),
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
  DiscoveryResult discovery;
  if (!IsObjectStoreUri(config_.uri)) {
    auto exists = io_->Exists(root);
    if (!exists.ok()) return exists.status().WithContext("source " + config_.uri);
    if (!*exists) {
      const std::string missing = "source " + config_.uri + " does not exist";
      if (!config_.allow_missing_uri) {
        return Status::NotFound(missing +
                                " (create it, fix [source] uri, or set [source] allow_missing_uri = "
                                "true while the landing zone is not there yet)");
      }
      discovery.warnings.push_back(missing + " (yet): nothing to ingest");
      discovery.source_missing = true;
      return discovery;
    }
  }
  auto listed = io_->List(root);
  if (!listed.ok()) return listed.status().WithContext("source " + config_.uri + ": listing");
  if (listed->empty() && IsObjectStoreUri(config_.uri)) {
    discovery.warnings.push_back("source " + config_.uri + ": no objects under this prefix (yet)");
  }

  if (!table_path_) discovery.tables.push_back(table_);
  std::map<std::string, std::string> schema_of;  // table -> the schema its first file was under
  std::map<std::string, std::string> collisions;
  for (const FileInfo& info : *listed) {
    std::optional<std::string_view> relative = RelativeTo(root, info.path);
    if (!relative) continue;
    std::string_view rel = *relative;
    if (!is_data_file_(rel)) continue;

    // Spark's _SUCCESS and _temporary/, .crc checksums: never data.
    bool hidden = false;
    for (size_t start = 0; start <= rel.size();) {
      const size_t slash = std::min(rel.find('/', start), rel.size());
      const std::string_view part = rel.substr(start, slash - start);
      if (part.empty() || part.front() == '_' || part.front() == '.') hidden = true;
      start = slash + 1;
    }
    if (hidden) continue;
    if (info.link_leaves_prefix && !config_.follow_links_outside_uri) {
      discovery.warnings.push_back(info.path + ": a symbolic link to " + info.link_target +
                                   ", outside the source uri " + config_.uri +
                                   "; left out (set [source] follow_links_outside_uri = true to take it)");
      continue;
    }

    std::string table = table_;
    size_t hive_from = 0;  // Hive folders count from here
    if (table_path_) {
      auto match = table_path_->MatchPath(rel);
      if (!match) continue;
      table = std::move(match->table);
      hive_from = match->table_folder_length + 1;
      auto [it, inserted] = schema_of.emplace(table, match->schema);
      if (!inserted && it->second != match->schema && !collisions.count(table)) {
        const auto& [first, second] = std::minmax(it->second, match->schema);
        collisions[table] = "files of source table " + table + " lie under " + first + "/ and " + second +
                            "/; table_from_path \"" + table_path_->text() +
                            "\" names tables by {table} alone, so they would merge into one table: " +
                            "narrow [source] uri, include or exclude to one of them";
      }
    }

    std::vector<std::pair<std::string, std::string>> partitions;
    for (size_t start = hive_from; start < rel.size();) {
      const size_t slash = rel.find('/', start);
      if (slash == std::string_view::npos) break;  // the file name
      const std::string_view part = rel.substr(start, slash - start);
      const size_t equals = part.find('=');
      if (config_.hive_partitioning && equals != std::string_view::npos && equals > 0) {
        partitions.emplace_back(UrlDecode(part.substr(0, equals)), UrlDecode(part.substr(equals + 1)));
      }
      start = slash + 1;
    }
    if (!GlobFilterAccepts(config_.include, config_.exclude, rel, GlobMode::kPath)) continue;
    if (settles && now_ms - info.mtime_ms < config_.settle_ms) {
      const int64_t eligible_at = info.mtime_ms + config_.settle_ms;
      if (discovery.settling.files == 0 || eligible_at < discovery.settling.first_eligible_ms) {
        discovery.settling.first_eligible_ms = eligible_at;
      }
      discovery.settling.last_eligible_ms = std::max(discovery.settling.last_eligible_ms, eligible_at);
      ++discovery.settling.files;
      continue;
    }

    SourceUnit file;
    file.uri = info.path;
    file.table = std::move(table);
    file.size = info.size;
    file.mtime_ms = info.mtime_ms;
    file.order_key = std::string(rel);
    if (!config_.full_load_files.empty()) {
      const size_t name_at = rel.rfind('/');
      const std::string_view name = name_at == std::string_view::npos ? rel : rel.substr(name_at + 1);
      const bool full_load = GlobFilterAccepts(config_.full_load_files, {}, name, GlobMode::kName);
      file.order_key = (full_load ? "0/" : "1/") + file.order_key;
    }
    file.partition_values = std::move(partitions);
    discovery.files.push_back(std::move(file));
  }
  for (const auto& [table, schema] : schema_of) {
    if (collisions.count(table)) {
      discovery.table_errors[table] = collisions[table];
    } else {
      discovery.tables.push_back(table);
    }
  }
  if (!collisions.empty()) {
    std::erase_if(discovery.files, [&](const SourceUnit& file) { return collisions.count(file.table) > 0; });
  }
  std::sort(discovery.files.begin(), discovery.files.end(), [](const SourceUnit& a, const SourceUnit& b) {
    return a.table != b.table ? a.table < b.table : a.order_key < b.order_key;
  });
  return discovery;
}

}  // namespace floe::ingest
