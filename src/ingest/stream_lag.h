// How far the tables of a stream source are behind the stream, per
// partition: `floe files --lag`, `floe status`, the stream gauges of
// /metrics.
//
// Contract: `committed` is the next position the table holds everything
// before (one past the last range committed or set aside), `recorded` the
// next one the ledger has claimed (ranges waiting for a batch lie between),
// `low`/`high` what the source holds (Kafka: the watermarks), `lag` is high
// minus committed (never negative). A partition the ledger has never read
// counts as committed at `low`. These numeric figures are Kafka's (status
// and metrics); a Kinesis source's sequence numbers and time behind the tip
// are in its StreamLagReport only (`floe files --lag`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/discovery/discovery.h"
#include "ingest/state/ledger.h"
#include "ingest/stream/stream_lag_report.h"

namespace floe::ingest {

struct StreamPartitionLag {
  std::string stream;
  std::string partition;
  std::string table;  // the source table it feeds
  int64_t committed = 0;
  int64_t recorded = 0;
  int64_t low = 0;
  int64_t high = 0;
  int64_t lag = 0;
};

// Joins the ledger's positions with the source's marks, in the marks' order.
// A position that is not a Kafka offset is Corruption naming it.
Result<std::vector<StreamPartitionLag>> StreamLag(
    const std::map<std::pair<std::string, std::string>, Ledger::StreamPosition>& positions,
    const std::vector<DiscoveryResult::StreamMarks>& marks);

// Asks the brokers for every partition's watermarks (a short-lived client)
// and the ledger for its positions. InvalidArgument for a source without
// streams.
Result<std::vector<StreamPartitionLag>> QueryStreamLag(const PipelineConfig& config, Ledger& ledger);

// `floe files CONFIG --lag`: one row per Kafka partition (QueryStreamLag's
// figures) or Kinesis shard (KinesisLag), asked of the brokers / of Kinesis.
// `ledger` is null before the pipeline's first run (nothing consumed).
// InvalidArgument for file sources.
Result<StreamLagReport> QueryStreamLagReport(const PipelineConfig& config, Ledger* ledger);

}  // namespace floe::ingest
