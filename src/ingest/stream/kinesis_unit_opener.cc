#include "ingest/stream/kinesis_unit_opener.h"

#include <algorithm>
#include <utility>

#include "aws/kinesis/sequence_number.h"
#include "aws/kinesis/shard_range.h"
#include "ingest/stream/kinesis_record_origin.h"

namespace floe::ingest {

void KinesisRangeCache::Put(const std::string& uri, std::vector<StreamRecord> records) {
  const int64_t bytes = RecordBytes(records);
  if (bytes > max_bytes_) return;  // read again when opened
  std::lock_guard<std::mutex> lock(mutex_);
  if (sizes_.count(uri) != 0) return;
  while (!ranges_.empty() && bytes_ + bytes > max_bytes_) {
    bytes_ -= sizes_[ranges_.front().first];
    sizes_.erase(ranges_.front().first);
    ranges_.pop_front();
  }
  ranges_.emplace_back(uri, std::move(records));
  sizes_[uri] = bytes;
  bytes_ += bytes;
}

std::optional<std::vector<StreamRecord>> KinesisRangeCache::Take(const std::string& uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = ranges_.begin(); it != ranges_.end(); ++it) {
    if (it->first != uri) continue;
    std::vector<StreamRecord> records = std::move(it->second);
    bytes_ -= sizes_[uri];
    sizes_.erase(uri);
    ranges_.erase(it);
    return records;
  }
  return std::nullopt;
}

bool KinesisRangeCache::Contains(const std::string& uri) {
  std::lock_guard<std::mutex> lock(mutex_);
  return sizes_.count(uri) != 0;
}

aws::kinesis::StreamId KinesisStreamOf(const SourceConfig& config) {
  return aws::kinesis::StreamId{config.kinesis.stream, config.kinesis.stream_arn};
}

Result<std::unique_ptr<aws::kinesis::KinesisClient>> OpenKinesisClient(const SourceConfig& config,
                                                                       const s3::S3Options& s3) {
  aws::kinesis::KinesisClientOptions options;
  options.client.credentials = s3::CredentialOptionsOf(s3);
  if (!config.kinesis.region.empty()) options.client.credentials.region = config.kinesis.region;
  options.client.endpoint = config.kinesis.endpoint;
  options.client.retry = s3::RetryPolicyOf(s3);
  auto client = aws::kinesis::KinesisClient::Open(options);
  if (!client.ok()) return client.status().WithContext("Kinesis stream " + config.kinesis.stream);
  return client;
}

StreamRecord ToStreamRecord(aws::kinesis::ShardRecord record) {
  StreamRecord out;
  out.position = std::move(record.sequence_number);
  out.subsequence = record.subsequence_number;
  out.timestamp_ms = record.approximate_arrival_ms > 0 ? record.approximate_arrival_ms : -1;
  out.key = std::move(record.partition_key);
  // Kinesis carries no null: empty data is a delete's tombstone.
  if (!record.data.empty() || !record.error.empty()) out.value = std::move(record.data);
  out.error = std::move(record.error);
  return out;
}

Result<std::shared_ptr<KinesisUnitOpener>> KinesisUnitOpener::Open(const SourceConfig& config,
                                                                   const s3::S3Options& s3,
                                                                   int64_t memory_budget_bytes,
                                                                   std::shared_ptr<KinesisRangeCache> cache) {
  FLOE_ASSIGN_OR_RETURN(auto client, OpenKinesisClient(config, s3));
  FLOE_ASSIGN_OR_RETURN(StreamDecoding decoding, MakeStreamDecoding(config, memory_budget_bytes));
  return std::shared_ptr<KinesisUnitOpener>(new KinesisUnitOpener(std::move(decoding), std::move(client),
                                                                  KinesisStreamOf(config), std::move(cache)));
}

Result<std::unique_ptr<RecordOrigin>> KinesisUnitOpener::OriginOf(const SourceUnit& unit) const {
  if (unit.kind != UnitKind::kStreamRange || unit.range.stream != stream_.name) {
    return Status::InvalidArgument(unit.uri + ": not a range of Kinesis stream " + stream_.name);
  }
  return std::unique_ptr<RecordOrigin>(
      new KinesisRecordOrigin(unit.range.stream, unit.range.partition, unit.uri));
}

Result<std::vector<StreamRecord>> KinesisUnitOpener::Records(const SourceUnit& unit) {
  if (cache_) {
    if (auto cached = cache_->Take(unit.uri)) return std::move(*cached);
  }
  aws::kinesis::ShardRangeOptions options;
  options.stop = stop_.load();
  FLOE_ASSIGN_OR_RETURN(std::vector<aws::kinesis::ShardRecord> read,
                        aws::kinesis::ReadShardRange(*client_, stream_, unit.range.partition,
                                                     unit.range.first, unit.range.last, options));
  std::vector<StreamRecord> records;
  records.reserve(read.size());
  for (aws::kinesis::ShardRecord& record : read) records.push_back(ToStreamRecord(std::move(record)));
  return records;
}

Status KinesisUnitOpener::Prepare(const std::vector<SourceUnit>& batch) {
  if (!cache_) return Status::OK();
  // Per shard, the units to read, in order.
  std::map<std::string, std::vector<const SourceUnit*>> by_shard;
  int64_t planned = 0;
  for (const SourceUnit& unit : batch) {
    if (unit.kind != UnitKind::kStreamRange || unit.range.stream != stream_.name ||
        cache_->Contains(unit.uri)) {
      continue;
    }
    if (planned > 0 && planned + unit.size > cache_->max_bytes() / 2) break;
    planned += unit.size;
    by_shard[unit.range.partition].push_back(&unit);
  }
  aws::kinesis::ShardRangeOptions options;
  options.stop = stop_.load();
  for (auto& [shard, shard_units] : by_shard) {
    // A named reference: clang 14 (the sanitizer build) cannot capture a structured binding.
    std::vector<const SourceUnit*>& units = shard_units;
    std::sort(units.begin(), units.end(), [](const SourceUnit* a, const SourceUnit* b) {
      return aws::kinesis::CompareSequenceNumbers(a->range.first, b->range.first) < 0;
    });
    FLOE_ASSIGN_OR_RETURN(std::vector<aws::kinesis::ShardRecord> read,
                          aws::kinesis::ReadShardRange(*client_, stream_, shard, units.front()->range.first,
                                                       units.back()->range.last, options));
    // Each record to the unit whose range holds it (records between the
    // units, of ranges not in this batch, are dropped).
    size_t at = 0;
    std::vector<StreamRecord> records;
    auto flush = [&] {
      if (at < units.size()) cache_->Put(units[at]->uri, std::exchange(records, {}));
    };
    for (aws::kinesis::ShardRecord& record : read) {
      while (at < units.size() &&
             aws::kinesis::CompareSequenceNumbers(record.sequence_number, units[at]->range.last) > 0) {
        flush();
        ++at;
      }
      if (at == units.size()) break;
      if (aws::kinesis::CompareSequenceNumbers(record.sequence_number, units[at]->range.first) < 0) continue;
      records.push_back(ToStreamRecord(std::move(record)));
    }
    flush();
  }
  return Status::OK();
}

}  // namespace floe::ingest
