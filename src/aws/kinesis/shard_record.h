// ShardRecord: one user record read from a Kinesis shard — a plain Kinesis
// record, or one of the user records a KPL aggregate carries — and how a
// Kinesis record becomes them.
//
// Contract: AppendShardRecords appends the user records of `record` in
// order (de-aggregated when `deaggregate`, kpl_aggregation.h); a malformed
// aggregate comes back as one record holding the raw bytes with `error`
// saying what is wrong with it (the caller knows the stream, shard and
// sequence number), so a pipeline can dead-letter it instead of stalling on
// it. Pure: thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "aws/kinesis/kinesis_client.h"

namespace floe::aws::kinesis {

struct ShardRecord {
  std::string sequence_number;     // of the Kinesis record
  int64_t subsequence_number = 0;  // index within a KPL aggregate
  bool aggregated = false;
  std::string partition_key;
  std::string explicit_hash_key;
  std::string data;
  int64_t approximate_arrival_ms = 0;
  std::string error;  // non-empty: a malformed KPL aggregate, `data` is the raw record
};

void AppendShardRecords(KinesisRecord record, bool deaggregate, std::vector<ShardRecord>* out);

}  // namespace floe::aws::kinesis
