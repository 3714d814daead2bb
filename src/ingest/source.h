// Source: one pipeline's input, assembled from the source model's axes —
// a Discovery (which units exist), a UnitOpener (a unit's bytes through its
// format as chunks of rows) — and, per target table, a ChangeConvention
// (changes/change_convention.h: MakeChangeConvention). Everything after
// them (ledger, batch planner, merge, writers, commit, maintenance) is
// shared by every source.
//
// Contract: OpenSource checks that the axes [source] names fit together
// (the config parser already refused impossible combinations; this is the
// second line for configs built in code) and builds them with the FileIO
// of the source uri ([s3] settings for s3:// uris); a Kafka source
// (discovery "kafka") gets a KafkaDiscovery and a KafkaUnitOpener, each with
// its own client; a Kinesis source a KinesisDiscovery and a
// KinesisUnitOpener, each with its own client, sharing the records the
// discovery read (KinesisRangeCache). File sources pass the FileIO through
// `wrap_io` when one is given (tests). With [source] notifications the
// listing discovery is wrapped in a NotificationDiscovery fed by
// SqsNotifications (signed with the [s3] credential chain) or
// InotifyNotifications; a floe table's change feed (discovery
// "table_changes") gets a TableChangesDiscovery and a TableChangesUnitOpener
// sharing one client of the pipeline's catalog; while notified files of a CDA export wait for their
// folder, the manifest is read again every [trigger] interval.
#pragma once

#include <memory>

#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/discovery/discovery.h"
#include "ingest/format/unit_opener.h"

namespace floe::ingest {

struct Source {
  std::unique_ptr<Discovery> discovery;
  std::shared_ptr<UnitOpener> opener;
};

// `memory_budget_bytes` is [performance] memory_budget (MakeFileFormat).
// `trigger`: [trigger] max_records_per_batch (streams) and interval (notifications).
// config.ForTable(source_table) with what the source knows of the table: a
// change-feed source without [merge] keys takes the source table's key
// (Discovery::KeyColumnsOf), and without one that is an error naming it.
Result<TableSettings> SourceTableSettings(const PipelineConfig& config, const Discovery& discovery,
                                          const std::string& source_table);

Result<Source> OpenSource(const SourceConfig& config, const s3::S3Options& s3,
                          int64_t memory_budget_bytes = PerformanceConfig{}.memory_budget_bytes,
                          const TriggerConfig& trigger = {}, const FileIOWrapper& wrap_io = nullptr);

}  // namespace floe::ingest
