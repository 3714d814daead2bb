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
// `wrap_io` when one is given (tests).
#pragma once

#include <memory>

#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/discovery/discovery.h"
#include "ingest/format/unit_opener.h"
#include "ingest/stream/stream_lag.h"

namespace floe::ingest {

struct Source {
  std::unique_ptr<Discovery> discovery;
  std::shared_ptr<UnitOpener> opener;
};

// `memory_budget_bytes` is [performance] memory_budget (MakeFileFormat).
// `max_records_per_unit` is [trigger] max_records_per_batch (streams).
Result<Source> OpenSource(const SourceConfig& config, const s3::S3Options& s3,
                          int64_t memory_budget_bytes = PerformanceConfig{}.memory_budget_bytes,
                          int64_t max_records_per_unit = TriggerConfig{}.max_records_per_batch,
                          const FileIOWrapper& wrap_io = nullptr);

// `floe files CONFIG --lag`: per partition or shard of a stream source how
// far the table has consumed it (`committed`, `recorded`: the ledger's
// settled and recorded ends, Ledger::StreamEnds) and how much is left (asked
// of the brokers / of Kinesis). InvalidArgument for file sources.
Result<StreamLag> StreamSourceLag(const PipelineConfig& config, const StreamEnds& committed,
                                  const StreamEnds& recorded);

}  // namespace floe::ingest
