#include "ingest/discovery/cda_discovery.h"

#include <algorithm>
#include <optional>
#include <set>

#include "ingest/discovery/cda_manifest.h"
#include "ingest/discovery/glob.h"
#include "ingest/discovery/landing_path.h"
#include "io/s3/file_io_factory.h"

namespace floe::ingest {
namespace {

constexpr int64_t kMaxManifestBytes = int64_t{64} << 20;

bool ParseFolderTimestamp(std::string_view text, int64_t& out) {
  if (text.empty() || text.size() > 18) return false;
  int64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    value = value * 10 + (c - '0');
  }
  out = value;
  return true;
}

bool EndsWith(std::string_view text, std::string_view suffix) {
  return text.size() >= suffix.size() && text.substr(text.size() - suffix.size()) == suffix;
}

std::vector<std::string_view> SplitPath(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    if (slash == std::string_view::npos) slash = path.size();
    parts.push_back(path.substr(start, slash - start));
    start = slash + 1;
  }
  return parts;
}

Result<CdaManifest> ReadManifest(FileIO& io, const std::string& root, const std::string& source_uri) {
  const std::string manifest_uri = JoinUnder(root, "manifest.json");
  auto opened = io.OpenRead(manifest_uri);
  if (!opened.ok()) {
    if (opened.status().kind() == ErrorKind::kNotFound) {
      return Status::NotFound("CDA export " + source_uri + ": no manifest.json at " + manifest_uri +
                              " (is [source] uri the export root, the folder that holds manifest.json?)");
    }
    return opened.status().WithContext("CDA export " + source_uri + ": reading manifest.json");
  }
  std::unique_ptr<InputFile> file = std::move(opened).value();
  FLOE_ASSIGN_OR_RETURN(int64_t size, file->Size());
  if (size > kMaxManifestBytes) {
    return Status::InvalidArgument(manifest_uri + ": " + std::to_string(size) +
                                   " bytes is larger than a CDA manifest can be (64 MiB)");
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, file->Read(0, size));
  return ParseCdaManifest(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()),
                          manifest_uri);
}

// The reset message for `table`, or "" when the manifest continues the watermark.
std::string ResetReason(const CdaTableEntry& entry, const TableWatermark& previous) {
  std::string what;
  if (entry.last_successful_write_ms < previous.last_successful_write_ms) {
    what = "lastSuccessfulWriteTimestamp went from " + std::to_string(previous.last_successful_write_ms) +
           " to " + std::to_string(entry.last_successful_write_ms);
  } else {
    for (const std::string& fingerprint : previous.fingerprints) {
      bool present = std::any_of(entry.schema_history.begin(), entry.schema_history.end(),
                                 [&](const CdaSchemaVersion& v) { return v.fingerprint == fingerprint; });
      if (!present) {
        what = "schema fingerprint " + fingerprint + " is no longer in schemaHistory";
        break;
      }
    }
  }
  if (what.empty()) return "";
  return "CDA table " + entry.table + " was reset: " + what +
         " (to reload it: run `floe files CONFIG --reload-table " + entry.table +
         "` once, or set [source] reload_on_reset = true)";
}

}  // namespace

std::optional<CdaPartPath> ParseCdaPartPath(std::string_view relative) {
  std::vector<std::string_view> parts = SplitPath(relative);
  if (parts.size() != 4 || !EndsWith(parts[3], ".parquet")) return std::nullopt;
  for (std::string_view part : parts) {
    if (part.empty() || part.front() == '.' || part.front() == '_') return std::nullopt;
  }
  CdaPartPath path;
  if (!ParseFolderTimestamp(parts[2], path.folder_ms)) return std::nullopt;
  path.table = std::string(parts[0]);
  path.fingerprint = std::string(parts[1]);
  return path;
}

CdaDiscovery::CdaDiscovery(SourceConfig config, std::shared_ptr<FileIO> io)
    : config_(std::move(config)), io_(std::move(io)) {}

// Folder names are epoch milliseconds; with 13 digits (2001-09-09 to 2286-11-20)
// their text order is their numeric order, which start-after listing needs.
constexpr int64_t kFirst13DigitMs = 1'000'000'000'000;
constexpr int64_t kFirst14DigitMs = 10'000'000'000'000;

Result<std::vector<FileInfo>> CdaDiscovery::ListTableFiles(const std::string& table_root,
                                                           const CdaTableEntry& entry,
                                                           std::optional<int64_t> listed_after) {
  // A previous discovery saw every committed folder up to its watermark, and
  // committed folders do not change: list only the folders after it (on S3 a
  // start-after listing, so a poll does not re-list the whole export).
  if (!listed_after || *listed_after < kFirst13DigitMs || *listed_after >= kFirst14DigitMs) {
    return io_->List(table_root);
  }
  std::vector<FileInfo> files;
  for (const CdaSchemaVersion& version : entry.schema_history) {
    const std::string fingerprint_root = JoinUnder(table_root, version.fingerprint);
    // "<ms>0" sorts after every path of folder <ms> ("<ms>/...") and before the next 13-digit folder.
    FLOE_ASSIGN_OR_RETURN(
        std::vector<FileInfo> listed,
        ListAfter(*io_, fingerprint_root, fingerprint_root + "/" + std::to_string(*listed_after) + "0"));
    files.insert(files.end(), std::make_move_iterator(listed.begin()), std::make_move_iterator(listed.end()));
  }
  return files;
}

Result<DiscoveryResult> CdaDiscovery::Discover(const std::map<std::string, TableWatermark>& watermarks,
                                               int64_t /*now_ms: CDA readiness comes from the manifest*/) {
  const std::string root = ListingRoot(config_.uri);
  FLOE_ASSIGN_OR_RETURN(CdaManifest manifest, ReadManifest(*io_, root, config_.uri));

  DiscoveryResult discovery;
  for (const auto& [name, entry] : manifest.tables) {
    if (!GlobFilterAccepts(config_.include, config_.exclude, name, GlobMode::kName)) continue;
    discovery.tables.push_back(name);

    auto previous = watermarks.find(name);
    bool reset_table = false;
    if (previous != watermarks.end()) {
      std::string reset = ResetReason(entry, previous->second);
      if (!reset.empty()) {
        if (!config_.reload_on_reset) {
          discovery.table_errors[name] = reset;
          continue;
        }
        discovery.reset_tables.push_back(name);
        reset_table = true;
      }
    }

    TableWatermark watermark;
    watermark.table = name;
    watermark.last_successful_write_ms = entry.last_successful_write_ms;
    std::map<std::string, int64_t> start_by_fingerprint;
    for (const CdaSchemaVersion& version : entry.schema_history) {
      watermark.fingerprints.push_back(version.fingerprint);
      start_by_fingerprint[version.fingerprint] = version.start_ms;
    }
    discovery.new_watermarks.push_back(std::move(watermark));

    const std::string table_root = JoinUnder(root, name);
    std::optional<int64_t> listed_after;
    if (previous != watermarks.end() && !reset_table) {
      listed_after = previous->second.last_successful_write_ms;
      // Every committed folder is <= the watermark and was returned already
      // (with a watermark listings can start after, as ListTableFiles does).
      if (entry.last_successful_write_ms == *listed_after && *listed_after >= kFirst13DigitMs &&
          *listed_after < kFirst14DigitMs) {
        continue;
      }
    }
    auto listed = ListTableFiles(table_root, entry, listed_after);
    if (!listed.ok())
      return listed.status().WithContext("CDA export " + config_.uri + ": listing table " + name);

    std::set<std::string> warned_folders;
    auto warn_once = [&](const std::string& folder, const std::string& message) {
      if (warned_folders.insert(folder).second) discovery.warnings.push_back(message);
    };
    for (const FileInfo& info : *listed) {
      std::optional<std::string_view> relative = RelativeTo(table_root, info.path);
      if (!relative) continue;
      std::vector<std::string_view> parts = SplitPath(*relative);
      bool hidden = std::any_of(parts.begin(), parts.end(), [](std::string_view part) {
        return part.empty() || part.front() == '.' || part.front() == '_';
      });
      if (hidden || !EndsWith(parts.back(), ".parquet")) continue;
      if (parts.size() != 3) {
        size_t slash = relative->rfind('/');
        std::string folder(slash == std::string_view::npos ? std::string_view() : relative->substr(0, slash));
        warn_once(folder, "CDA table " + name + ": ignoring " + info.path +
                              ": expected <table>/<fingerprint>/<timestamp>/<file>.parquet");
        continue;
      }
      const std::string fingerprint(parts[0]);
      auto start = start_by_fingerprint.find(fingerprint);
      if (start == start_by_fingerprint.end()) {
        warn_once(fingerprint, "CDA table " + name + ": folder " + fingerprint +
                                   " is not in the manifest's schemaHistory; its files are ignored");
        continue;
      }
      int64_t folder_ms = 0;
      if (!ParseFolderTimestamp(parts[1], folder_ms)) {
        warn_once(fingerprint + "/" + std::string(parts[1]),
                  "CDA table " + name + ": folder " + fingerprint + "/" + std::string(parts[1]) +
                      " is not an epoch-milliseconds timestamp; its files are ignored");
        continue;
      }
      if (folder_ms > entry.last_successful_write_ms) continue;  // still being written

      SourceUnit file;
      file.uri = info.path;
      file.table = name;
      file.size = info.size;
      file.mtime_ms = info.mtime_ms;
      file.fingerprint = fingerprint;
      file.folder_timestamp_ms = folder_ms;
      file.order_key =
          ZeroPadded(start->second, 20) + "/" + ZeroPadded(folder_ms, 20) + "/" + std::string(parts[2]);
      discovery.files.push_back(std::move(file));
    }
  }

  // A table the ledger knows that the manifest dropped: data may be gone or a
  // reset may be under way; either way the user has to decide.
  for (const auto& [name, previous] : watermarks) {
    if (manifest.tables.count(name) != 0) continue;
    if (!GlobFilterAccepts(config_.include, config_.exclude, name, GlobMode::kName)) continue;
    discovery.table_errors[name] = "CDA table " + name +
                                   " is no longer in manifest.json (it had lastSuccessfulWriteTimestamp " +
                                   std::to_string(previous.last_successful_write_ms) +
                                   "); add it to [source] exclude if it was dropped on purpose";
  }

  std::sort(discovery.files.begin(), discovery.files.end(), [](const SourceUnit& a, const SourceUnit& b) {
    if (a.table != b.table) return a.table < b.table;
    return a.order_key < b.order_key;
  });
  return discovery;
}

}  // namespace floe::ingest
