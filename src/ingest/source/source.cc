#include "ingest/source/source.h"

#include "ingest/source/cda_source.h"
#include "ingest/source/prefix_source.h"

namespace floe::ingest {

Result<std::unique_ptr<Source>> MakeSource(const SourceConfig& config, std::shared_ptr<FileIO> io) {
  if (!io) return Status::InvalidArgument("[source]: no FileIO given for " + config.uri);
  if (config.uri.empty()) return Status::InvalidArgument("[source] uri: missing (the landing zone to read)");
  switch (config.format) {
    case SourceFormat::kCda: return std::unique_ptr<Source>(new CdaSource(config, std::move(io)));
    case SourceFormat::kParquet: {
      if (config.settle_ms < 0) {
        return Status::InvalidArgument("[source] settle: must not be negative, got " +
                                       std::to_string(config.settle_ms) + " ms");
      }
      std::string table = config.table.empty() ? PrefixSource::DefaultTableName(config.uri) : config.table;
      if (table.empty()) {
        return Status::InvalidArgument("[source] table: " + config.uri +
                                       " has no last folder name to use as the table name; set table");
      }
      return std::unique_ptr<Source>(new PrefixSource(config, std::move(table), std::move(io)));
    }
  }
  return Status::InvalidArgument("[source] format: unknown source format");
}

}  // namespace floe::ingest
