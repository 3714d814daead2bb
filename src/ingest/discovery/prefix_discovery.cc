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

PrefixDiscovery::FileVerdict PrefixDiscovery::Classify(const FileInfo& info, int64_t now_ms,
                                                       bool settle) const {
  FileVerdict verdict;
  const std::string root = ListingRoot(config_.uri);
  std::optional<std::string_view> relative = RelativeTo(root, info.path);
  if (!relative) return verdict;
  std::string_view rel = *relative;
  if (!is_data_file_(rel)) return verdict;

  // Spark's _SUCCESS and _temporary/, .crc checksums: never data.
  for (size_t start = 0; start <= rel.size();) {
    const size_t slash = std::min(rel.find('/', start), rel.size());
    const std::string_view part = rel.substr(start, slash - start);
    if (part.empty() || part.front() == '_' || part.front() == '.') return verdict;
    start = slash + 1;
  }
  if (info.link_leaves_prefix && !config_.follow_links_outside_uri) {
    verdict.kind = FileVerdict::Kind::kLinkOutside;
    verdict.warning = info.path + ": a symbolic link to " + info.link_target + ", outside the source uri " +
                      config_.uri + "; left out (set [source] follow_links_outside_uri = true to take it)";
    return verdict;
  }

  std::string table = table_;
  size_t hive_from = 0;  // Hive folders count from here
  if (table_path_) {
    auto match = table_path_->MatchPath(rel);
    if (!match) return verdict;
    table = std::move(match->table);
    hive_from = match->table_folder_length + 1;
    verdict.schema = std::move(match->schema);
  }
  verdict.unit.table = std::move(table);

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
  if (!GlobFilterAccepts(config_.include, config_.exclude, rel, GlobMode::kPath)) {
    verdict.kind = FileVerdict::Kind::kFilteredOut;
    return verdict;
  }
  if (settle && !IsObjectStoreUri(config_.uri) && now_ms - info.mtime_ms < config_.settle_ms) {
    verdict.kind = FileVerdict::Kind::kSettling;
    verdict.eligible_at_ms = info.mtime_ms + config_.settle_ms;
    return verdict;
  }

  SourceUnit& file = verdict.unit;
  file.uri = info.path;
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
  verdict.kind = FileVerdict::Kind::kUnit;
  return verdict;
}

std::optional<std::string> PrefixDiscovery::CheckOneSchema(std::map<std::string, std::string>& schema_of,
                                                           const std::string& table,
                                                           const std::string& schema) const {
  auto [it, inserted] = schema_of.emplace(table, schema);
  if (inserted || it->second == schema) return std::nullopt;
  const auto& [first, second] = std::minmax(it->second, schema);
  return "files of source table " + table + " lie under " + first + "/ and " + second +
         "/; table_from_path \"" + table_path_->text() +
         "\" names tables by {table} alone, so they would merge into one table: narrow [source] uri, include "
         "or "
         "exclude to one of them";
}

Result<DiscoveryResult> PrefixDiscovery::Discover(const std::map<std::string, TableWatermark>& /*watermarks*/,
                                                  int64_t now_ms) {
  const std::string root = ListingRoot(config_.uri);
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
    FileVerdict verdict = Classify(info, now_ms, /*settle=*/true);
    if (verdict.schema && !collisions.count(verdict.unit.table)) {
      if (auto collision = CheckOneSchema(schema_of, verdict.unit.table, *verdict.schema)) {
        collisions[verdict.unit.table] = std::move(*collision);
      }
    }
    switch (verdict.kind) {
      case FileVerdict::Kind::kUnit: discovery.files.push_back(std::move(verdict.unit)); break;
      case FileVerdict::Kind::kLinkOutside: discovery.warnings.push_back(std::move(verdict.warning)); break;
      case FileVerdict::Kind::kSettling: discovery.settling.Add(verdict.eligible_at_ms); break;
      case FileVerdict::Kind::kNotOurs:
      case FileVerdict::Kind::kFilteredOut: break;
    }
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
