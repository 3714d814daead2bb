// ReadShardRange: the records of one Kinesis shard between two sequence
// numbers read before — how a batch reads a recorded range again (its second
// pass after a restart, recovery of a batch a crash left open).
//
// Contract: returns the user records (shard_record.h) of every Kinesis
// record whose sequence number s satisfies first <= s <= last, in order,
// reading from GetShardIterator AT_SEQUENCE_NUMBER `first`. Exactly those:
// - the first record read must be `first`, and `last` must be met: a shard
//   that no longer holds `first` (its retention period passed), that skips
//   `last` or that ends before it is an error naming the stream, shard and
//   sequence numbers (not retryable: the range cannot be read as recorded);
// - an expired iterator is renewed after the last record read; throttling
//   and 5xx answers are retried by the client with backoff;
// - a shard that returns nothing new for `no_progress_timeout_ms` (GetRecords
//   may answer empty pages before the records) is a retryable error; so is
//   `stop` becoming true.
// Calls are paced (at most one GetRecords per `min_call_interval_ms`),
// within Kinesis's 5 reads a second per shard.
// Thread-safe when the client is (each call keeps its own iterator).
#pragma once

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "aws/kinesis/kinesis_client.h"
#include "aws/kinesis/shard_record.h"
#include "common/status.h"

namespace floe::aws::kinesis {

struct ShardRangeOptions {
  bool deaggregate = true;
  int max_records_per_call = 10000;
  int64_t no_progress_timeout_ms = 60000;
  int64_t min_call_interval_ms = 200;
  const std::atomic<bool>* stop = nullptr;
};

Result<std::vector<ShardRecord>> ReadShardRange(KinesisClient& client, const StreamId& stream,
                                                const std::string& shard_id, const std::string& first,
                                                const std::string& last, const ShardRangeOptions& options);

}  // namespace floe::aws::kinesis
