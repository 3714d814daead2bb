#include "ingest/discovery/discovery.h"

#include <algorithm>
#include <thread>

#include "ingest/discovery/cda_discovery.h"
#include "ingest/discovery/prefix_discovery.h"

namespace floe::ingest {

bool Discovery::WaitForNotifications(std::chrono::steady_clock::time_point until,
                                     const std::atomic<bool>& stop) {
  const auto now = std::chrono::steady_clock::now();
  if (stop.load() || now >= until) return false;
  std::this_thread::sleep_for(
      std::min<std::chrono::steady_clock::duration>(until - now, std::chrono::milliseconds(100)));
  return false;
}

Result<std::unique_ptr<Discovery>> MakeDiscovery(const SourceConfig& config, std::shared_ptr<FileIO> io,
                                                 DataFilePredicate is_data_file) {
  if (!io) return Status::InvalidArgument("[source]: no FileIO given for " + config.uri);
  if (config.uri.empty()) return Status::InvalidArgument("[source] uri: missing (the landing zone to read)");
  switch (config.discovery) {
    case DiscoveryKind::kCda: return std::unique_ptr<Discovery>(new CdaDiscovery(config, std::move(io)));
    case DiscoveryKind::kPrefix: {
      if (config.settle_ms < 0) {
        return Status::InvalidArgument("[source] settle: must not be negative, got " +
                                       std::to_string(config.settle_ms) + " ms");
      }
      std::optional<TablePathTemplate> table_path;
      if (!config.table_from_path.empty()) {
        FLOE_ASSIGN_OR_RETURN(table_path, TablePathTemplate::Parse(config.table_from_path));
      }
      std::string table = config.table.empty() ? PrefixDiscovery::DefaultTableName(config.uri) : config.table;
      if (table.empty() && !table_path) {
        return Status::InvalidArgument("[source] table: " + config.uri +
                                       " has no last folder name to use as the table name; set table");
      }
      if (!is_data_file)
        return Status::InvalidArgument("[source]: a prefix discovery needs the format's files");
      return std::unique_ptr<Discovery>(new PrefixDiscovery(config, std::move(table), std::move(table_path),
                                                            std::move(io), std::move(is_data_file)));
    }
    case DiscoveryKind::kKafka:
    case DiscoveryKind::kKinesis:
    case DiscoveryKind::kTableChanges:
      return Status::InvalidArgument(std::string("[source] discovery \"") +
                                     DiscoveryKindName(config.discovery) +
                                     "\" lists no files (OpenSource builds its stream discovery)");
  }
  return Status::InvalidArgument("[source] discovery: unknown discovery");
}

}  // namespace floe::ingest
