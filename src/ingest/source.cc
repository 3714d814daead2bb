#include "ingest/source.h"

#include "ingest/discovery/inotify_notifications.h"
#include "ingest/discovery/landing_path.h"
#include "ingest/discovery/notification_discovery.h"
#include "ingest/discovery/sqs_notifications.h"
#include "ingest/stream/kafka_discovery.h"
#include "ingest/stream/kafka_unit_opener.h"
#include "ingest/stream/kinesis_discovery.h"
#include "ingest/stream/kinesis_unit_opener.h"
#include "ingest/stream/table_changes_discovery.h"
#include "ingest/stream/table_changes_unit_opener.h"
#include "io/s3/file_io_factory.h"

namespace floe::ingest {

namespace {

Result<std::unique_ptr<NotificationSource>> OpenNotificationSource(const SourceConfig& config,
                                                                   const s3::S3Options& s3) {
  switch (config.notifications.kind) {
    case NotificationKind::kSqs: {
      FLOE_ASSIGN_OR_RETURN(auto sqs, SqsNotifications::Open(config.notifications, s3));
      return std::unique_ptr<NotificationSource>(std::move(sqs));
    }
    case NotificationKind::kInotify: {
      FLOE_ASSIGN_OR_RETURN(auto inotify, InotifyNotifications::Open(ListingRoot(config.uri)));
      return std::unique_ptr<NotificationSource>(std::move(inotify));
    }
    case NotificationKind::kNone: break;
  }
  return Status::InvalidArgument("[source] notifications: none configured");
}

}  // namespace

Result<TableSettings> SourceTableSettings(const PipelineConfig& config, const Discovery& discovery,
                                          const std::string& source_table) {
  TableSettings settings = config.ForTable(source_table);
  MergeConfig& merge = settings.merge;
  if (merge.mode == WriteMode::kMerge && merge.keys.empty() && merge.keys_from_source_table) {
    merge.keys = discovery.KeyColumnsOf(source_table);
    if (merge.keys.empty()) {
      return Status::InvalidArgument("source table " + source_table +
                                     " has no key (no identifier fields, no [merge] keys recorded by floe): "
                                     "set [merge] keys, the columns its changes are merged by");
    }
  }
  return settings;
}

Result<Source> OpenSource(const SourceConfig& config, const s3::S3Options& s3, int64_t memory_budget_bytes,
                          const TriggerConfig& trigger, const FileIOWrapper& wrap_io) {
  const int64_t max_records_per_unit = trigger.max_records_per_batch;
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
  if (config.discovery == DiscoveryKind::kKinesis) {
    Source source;
    // The records the discovery read wait here for the opener: a quarter of
    // the memory budget (the decoded ranges take another quarter).
    auto cache = std::make_shared<KinesisRangeCache>(std::max<int64_t>(memory_budget_bytes / 4, 0));
    KinesisDiscoveryLimits limits;
    limits.max_records_per_unit = max_records_per_unit;
    // As much as one stream batch holds (Pipeline: an eighth of the budget).
    limits.max_bytes_per_discover = std::max<int64_t>(memory_budget_bytes / 8, 1);
    auto discovery = KinesisDiscovery::Open(config, s3, limits, cache);
    if (!discovery.ok()) return discovery.status().WithContext("source " + config.uri);
    source.discovery = std::move(*discovery);
    auto opener = KinesisUnitOpener::Open(config, s3, memory_budget_bytes, std::move(cache));
    if (!opener.ok()) return opener.status().WithContext("source " + config.uri);
    source.opener = std::move(*opener);
    return source;
  }
  if (config.discovery == DiscoveryKind::kTableChanges) {
    // The discovery and the opener share one catalog client.
    auto tables = FeedTables::Open(config.table_changes.catalog);
    if (!tables.ok()) return tables.status().WithContext("the catalog of [source] tables");
    Source source;
    source.discovery = std::make_unique<TableChangesDiscovery>(
        config.table_changes.tables, config.table_changes.commits_per_unit, *tables);
    source.opener = std::make_shared<TableChangesUnitOpener>(*tables, config.table_changes.keys);
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
  if (config.notifications.kind != NotificationKind::kNone) {
    auto notifications = OpenNotificationSource(config, s3);
    if (!notifications.ok()) return notifications.status().WithContext("source " + config.uri);
    NotificationDiscoveryOptions options;
    options.backfill_interval_ms = config.notifications.backfill_interval_ms;
    options.backfill_on_start = config.notifications.backfill_on_start;
    options.recheck_interval_ms = trigger.interval_ms;
    options.max_held = config.notifications.max_messages;
    auto wrapped = NotificationDiscovery::Make(config, std::move(source.discovery), *io,
                                               std::move(*notifications), options);
    if (!wrapped.ok()) return wrapped.status().WithContext("source " + config.uri);
    source.discovery = std::move(*wrapped);
  }
  source.opener =
      std::make_shared<FileUnitOpener>(std::move(*io), std::move(format), config.partition_column_types);
  return source;
}

}  // namespace floe::ingest
