#include "ingest/source.h"

#include "ingest/stream/kafka_discovery.h"
#include "ingest/stream/kafka_unit_opener.h"
#include "io/s3/file_io_factory.h"

namespace floe::ingest {

Result<Source> OpenSource(const SourceConfig& config, const s3::S3Options& s3, int64_t memory_budget_bytes,
                          int64_t max_records_per_unit, const FileIOWrapper& wrap_io) {
  if (config.discovery == DiscoveryKind::kKafka) {
    Source source;
    auto discovery = KafkaDiscovery::Open(config, max_records_per_unit, "floe-discovery");
    if (!discovery.ok()) return discovery.status().WithContext("source " + config.uri);
    source.discovery = std::move(*discovery);
    auto opener = KafkaUnitOpener::Open(config, "floe", memory_budget_bytes);
    if (!opener.ok()) return opener.status().WithContext("source " + config.uri);
    source.opener = std::move(*opener);
    return source;
  }
  if (config.discovery == DiscoveryKind::kCda && config.format != SourceFormat::kParquet) {
    return Status::InvalidArgument(std::string("[source] format: a CDA export holds Parquet files, not ") +
                                   SourceFormatName(config.format));
  }
  auto io = FileIOForUri(config.uri, s3);
  if (!io.ok()) return io.status().WithContext("source " + config.uri);
  if (wrap_io) *io = wrap_io(std::move(*io));
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<FileFormat> owned_format,
                        MakeFileFormat(config, memory_budget_bytes));
  std::shared_ptr<const FileFormat> format(std::move(owned_format));
  Source source;
  auto discovery =
      MakeDiscovery(config, *io, [format](std::string_view path) { return format->IsDataFile(path); });
  if (!discovery.ok()) return discovery.status().WithContext("source " + config.uri);
  source.discovery = std::move(*discovery);
  source.opener =
      std::make_shared<FileUnitOpener>(std::move(*io), std::move(format), config.partition_column_types);
  return source;
}

}  // namespace floe::ingest
