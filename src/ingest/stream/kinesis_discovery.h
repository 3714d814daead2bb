// KinesisDiscovery: the discovery axis of the source model for a Kinesis
// data stream — which ranges of sequence numbers of which shards there are
// to ingest. Unlike Kafka offsets, sequence numbers are sparse: a range's
// ends are known only by reading it, so the discovery reads the stream
// (KinesisStreamReader) and hands the records it read to the opener
// (KinesisRangeCache) with the ranges.
//
// Contract (see Discovery):
// - The stream's records go to one source table: [source] table, default
//   the stream name.
// - Per shard the next range starts right after the last sequence number the
//   ledger holds for it (SetStreamEnds, called by the pipeline before every
//   Discover); a shard floe has never read starts at its oldest record
//   ([source] starting_position = "TRIM_HORIZON", the default) or at its end
//   when first seen ("LATEST"). A reshard's children are read whole, each
//   only after its parents are drained (shard_lineage.h). When the ledger's
//   ends are not where the last Discover left the reader (ranges that were
//   not recorded: a failed poll, a blocked table, a restart), the reader is
//   opened again at the ledger's ends: nothing is skipped or read twice.
// - A Discover reads until every shard is caught up (nothing new, none
//   behind the tip), or until it holds a bound of record bytes
//   (max_bytes_per_discover; it reads in polls of a quarter of it, so it
//   holds at most 1.25 times the bound and one record) or has read for a few
//   seconds; then `more_ready` says so and the pipeline polls again at once. Ranges hold at most [trigger]
//   max_records_per_batch Kinesis records each and end at Kinesis record boundaries (the user records of a
//   KPL aggregate share their sequence number and stay together).
// - GetRecords is asked at most five times a second per shard; throttling is
//   retried with backoff by the client; other errors are the returned error
//   (the reader is opened again at the ledger's ends by the next Discover).
// Not thread-safe (the pipeline's loop calls it).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "aws/kinesis/stream_reader.h"
#include "ingest/discovery/discovery.h"
#include "ingest/stream/kinesis_unit_opener.h"
#include "ingest/stream/stream_lag_report.h"

namespace floe::ingest {

struct KinesisDiscoveryLimits {
  int64_t max_records_per_unit = 100'000;  // Kinesis records per range
  int64_t max_bytes_per_discover = int64_t{64} << 20;
  int64_t max_ms_per_discover = 5'000;
  int64_t min_poll_interval_ms = 200;  // Kinesis: 5 GetRecords a second per shard
};

class KinesisDiscovery final : public Discovery {
 public:
  static Result<std::unique_ptr<KinesisDiscovery>> Open(const SourceConfig& config, const s3::S3Options& s3,
                                                        KinesisDiscoveryLimits limits,
                                                        std::shared_ptr<KinesisRangeCache> cache);
  Result<DiscoveryResult> Discover(const std::map<std::string, TableWatermark>& watermarks,
                                   int64_t now_ms) override;
  void SetStreamEnds(const StreamEnds& ends) override;
  bool finds_streams() const override { return true; }

 private:
  KinesisDiscovery(const SourceConfig& config, KinesisDiscoveryLimits limits,
                   std::unique_ptr<aws::kinesis::KinesisClient> client,
                   std::shared_ptr<KinesisRangeCache> cache);
  Status Reopen();

  const KinesisSourceConfig config_;
  const bool start_at_latest_;
  const KinesisDiscoveryLimits limits_;
  std::unique_ptr<aws::kinesis::KinesisClient> client_;
  std::shared_ptr<KinesisRangeCache> cache_;
  std::unique_ptr<aws::kinesis::KinesisStreamReader> reader_;
  // This stream's shards: the ledger's last positions, and where the reader
  // stands after handing out ranges (equal when every range was recorded).
  StreamEnds ends_;
  StreamEnds handed_out_;
};

// `floe files CONFIG --lag` of a Kinesis source: per shard its state (open,
// closed, finished), the committed and recorded sequence numbers and how far
// the next unread record is behind the stream's tip (GetRecords'
// MillisBehindLatest after the committed position).
Result<StreamLagReport> KinesisLag(const SourceConfig& config, const s3::S3Options& s3,
                                   const StreamEnds& committed, const StreamEnds& recorded);

}  // namespace floe::ingest
