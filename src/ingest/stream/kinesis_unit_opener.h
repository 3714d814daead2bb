// KinesisUnitOpener: opens a stream-range unit of a Kinesis source — the
// records of one shard from sequence number `first` to `last`, both read
// before by the discovery — as rows, so the change convention, merge and
// writers read it like any file.
//
// Contract (see UnitOpener and StreamUnitOpener, which decodes the records
// and handles dead letters, the registry and the second pass):
// - The records come from the range the unit names: those the discovery
//   read and kept (KinesisRangeCache), else read again from Kinesis with
//   GetShardIterator AT_SEQUENCE_NUMBER first up to last (shard_range.h):
//   exactly the same records, or an error — a shard that no longer holds
//   them (retention) quarantines the unit, loudly, instead of reading it
//   short; a shard that answers nothing for 60 s fails the batch (retryable).
// - A user record's position is its Kinesis record's sequence number (KPL
//   aggregates are de-aggregated; their user records share it), its key the
//   partition key, its timestamp the approximate arrival time. A record with
//   empty data makes no row (Kinesis cannot carry a null: it is the
//   tombstone of a delete), and a malformed KPL aggregate is a dead letter.
// Thread-safe.
#pragma once

#include <atomic>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "aws/kinesis/kinesis_client.h"
#include "aws/kinesis/shard_record.h"
#include "ingest/config/config.h"
#include "ingest/stream/stream_unit_opener.h"
#include "io/s3/s3_config.h"

namespace floe::ingest {

// The records of ranges the discovery read, by unit uri, until the opener
// takes them; at most `max_bytes` of keys and values (the oldest ranges are
// dropped first: they are read again from Kinesis). Thread-safe.
class KinesisRangeCache {
 public:
  explicit KinesisRangeCache(int64_t max_bytes) : max_bytes_(max_bytes) {}
  void Put(const std::string& uri, std::vector<StreamRecord> records);
  std::optional<std::vector<StreamRecord>> Take(const std::string& uri);
  bool Contains(const std::string& uri);
  int64_t max_bytes() const { return max_bytes_; }

 private:
  const int64_t max_bytes_;
  std::mutex mutex_;
  std::list<std::pair<std::string, std::vector<StreamRecord>>> ranges_;  // oldest first
  std::map<std::string, int64_t> sizes_;
  int64_t bytes_ = 0;
};

class KinesisUnitOpener final : public StreamUnitOpener {
 public:
  static Result<std::shared_ptr<KinesisUnitOpener>> Open(const SourceConfig& config, const s3::S3Options& s3,
                                                         int64_t memory_budget_bytes,
                                                         std::shared_ptr<KinesisRangeCache> cache);
  void SetStopFlag(const std::atomic<bool>* stop) override { stop_ = stop; }
  // Reads the batch's ranges the discovery did not hand over, one read per
  // shard from its first range's start to its last range's end (the ranges
  // of a shard follow each other), up to half the range cache by the units'
  // sizes; what it reads waits in the cache for Open. An error is not fatal
  // (each Open reads its range itself).
  Status Prepare(const std::vector<SourceUnit>& batch) override;

 protected:
  Result<std::vector<StreamRecord>> Records(const SourceUnit& unit) override;
  Result<std::unique_ptr<RecordOrigin>> OriginOf(const SourceUnit& unit) const override;

 private:
  KinesisUnitOpener(StreamDecoding decoding, std::unique_ptr<aws::kinesis::KinesisClient> client,
                    aws::kinesis::StreamId stream, std::shared_ptr<KinesisRangeCache> cache)
      : StreamUnitOpener(std::move(decoding)),
        client_(std::move(client)),
        stream_(std::move(stream)),
        cache_(std::move(cache)) {}

  const std::unique_ptr<aws::kinesis::KinesisClient> client_;  // thread-safe
  const aws::kinesis::StreamId stream_;
  const std::shared_ptr<KinesisRangeCache> cache_;
  std::atomic<const std::atomic<bool>*> stop_{nullptr};
};

// The Kinesis client of a Kinesis source: credentials from the AWS chain
// ([s3] keys included), region [source] region (or the stream ARN's), the
// endpoint [source] endpoint > AWS_ENDPOINT_URL_KINESIS > AWS_ENDPOINT_URL >
// profile > the regional AWS endpoint; retries by [s3]'s retry settings.
Result<std::unique_ptr<aws::kinesis::KinesisClient>> OpenKinesisClient(const SourceConfig& config,
                                                                       const s3::S3Options& s3);
// The stream a Kinesis source reads.
aws::kinesis::StreamId KinesisStreamOf(const SourceConfig& config);

// A shard record as a stream record (StreamRecord::position is its sequence number).
StreamRecord ToStreamRecord(aws::kinesis::ShardRecord record);

}  // namespace floe::ingest
