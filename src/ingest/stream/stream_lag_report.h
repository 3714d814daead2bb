// What `floe files CONFIG --lag` shows of a stream source, per partition or
// shard: how far the table has consumed it and how much is left
// (ingest/stream_lag.h builds it: Kafka's from StreamPartitionLag, Kinesis's
// from KinesisLag); the CLI prints it.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "common/json.h"

namespace floe::ingest {

// Per (stream, partition): a ledger position (Ledger::StreamEnds).
using StreamEnds = std::map<std::pair<std::string, std::string>, std::string>;

struct StreamLagReport {
  // One object per partition or shard, its members in display order (the
  // columns of the text table, the members of a JSON line).
  std::vector<json::OrderedJson> rows;
  std::string summary;  // "3 partitions, lag 0 records"
};

}  // namespace floe::ingest
