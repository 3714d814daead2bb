#include "ingest/stream/kinesis_discovery.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "aws/kinesis/sequence_number.h"

namespace floe::ingest {

namespace {

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// A sequence number padded to the most digits Kinesis allows, so string
// order is numeric order (order keys).
std::string PaddedSequence(const std::string& sequence) {
  std::string padded(aws::kinesis::kMaxSequenceNumberDigits -
                         std::min(sequence.size(), aws::kinesis::kMaxSequenceNumberDigits),
                     '0');
  return padded + sequence;
}

// This stream's entries of `ends`.
StreamEnds EndsOf(const StreamEnds& ends, const std::string& stream) {
  StreamEnds out;
  for (const auto& [key, position] : ends) {
    if (key.first == stream) out.emplace(key, position);
  }
  return out;
}

}  // namespace

KinesisDiscovery::KinesisDiscovery(const SourceConfig& config, KinesisDiscoveryLimits limits,
                                   std::unique_ptr<aws::kinesis::KinesisClient> client,
                                   std::shared_ptr<KinesisRangeCache> cache)
    : config_(config.kinesis),
      start_at_latest_(config.stream.start_at_latest),
      limits_(limits),
      client_(std::move(client)),
      cache_(std::move(cache)) {}

Result<std::unique_ptr<KinesisDiscovery>> KinesisDiscovery::Open(const SourceConfig& config,
                                                                 const s3::S3Options& s3,
                                                                 KinesisDiscoveryLimits limits,
                                                                 std::shared_ptr<KinesisRangeCache> cache) {
  if (config.kinesis.stream.empty()) {
    return Status::InvalidArgument("[source] uri: no Kinesis stream (kinesis://<stream name> or its ARN)");
  }
  limits.max_records_per_unit = std::max<int64_t>(1, limits.max_records_per_unit);
  limits.max_bytes_per_discover = std::max<int64_t>(1, limits.max_bytes_per_discover);
  FLOE_ASSIGN_OR_RETURN(auto client, OpenKinesisClient(config, s3));
  return std::unique_ptr<KinesisDiscovery>(
      new KinesisDiscovery(config, limits, std::move(client), std::move(cache)));
}

void KinesisDiscovery::SetStreamEnds(const StreamEnds& ends) {
  ends_ = EndsOf(ends, config_.stream);
}

Status KinesisDiscovery::Reopen() {
  reader_.reset();
  aws::kinesis::KinesisReaderOptions options;
  options.stream = aws::kinesis::StreamId{config_.stream, config_.stream_arn};
  options.initial =
      start_at_latest_ ? aws::kinesis::IteratorType::kLatest : aws::kinesis::IteratorType::kTrimHorizon;
  // A quarter of a Discover's bound a poll: a Discover stops within a poll of its bound.
  options.max_bytes_per_poll = std::clamp<int64_t>(limits_.max_bytes_per_discover / 4, 1, int64_t{16} << 20);
  std::map<std::string, aws::kinesis::IteratorStart> starts;
  for (const auto& [key, position] : ends_) {
    if (!aws::kinesis::IsSequenceNumber(position)) {
      return Status::Corruption("the ledger's last position of " + options.stream.ToString() + ", shard " +
                                key.second + " is \"" + position + "\", not a sequence number");
    }
    starts[key.second] = {aws::kinesis::IteratorType::kAfterSequenceNumber, position};
  }
  FLOE_ASSIGN_OR_RETURN(reader_, aws::kinesis::KinesisStreamReader::Open(client_.get(), options, starts));
  handed_out_ = ends_;
  return Status::OK();
}

Result<DiscoveryResult> KinesisDiscovery::Discover(const std::map<std::string, TableWatermark>& watermarks,
                                                   int64_t now_ms) {
  (void)watermarks;
  DiscoveryResult result;
  result.tables = {config_.table};
  if (!reader_ || handed_out_ != ends_) FLOE_RETURN_IF_ERROR(Reopen());
  // Per shard, the records read, in order.
  std::map<std::string, std::vector<aws::kinesis::ShardRecord>> read;
  std::vector<std::string> shard_order;
  int64_t bytes = 0;
  const int64_t started = SteadyMs();
  int64_t last_poll = 0;
  while (true) {
    const int64_t wait = last_poll + limits_.min_poll_interval_ms - SteadyMs();
    if (last_poll > 0 && wait > 0) std::this_thread::sleep_for(std::chrono::milliseconds(wait));
    last_poll = SteadyMs();
    auto poll = reader_->Poll();
    if (!poll.ok()) {
      // What this Discover read is not handed out: the next one starts over at the ledger's ends.
      reader_.reset();
      return poll.status();
    }
    for (aws::kinesis::ShardBatch& batch : poll->batches) {
      if (batch.records.empty()) continue;
      auto [it, inserted] = read.try_emplace(batch.shard_id);
      if (inserted) shard_order.push_back(batch.shard_id);
      for (aws::kinesis::ShardRecord& record : batch.records) it->second.push_back(std::move(record));
    }
    bytes += poll->data_bytes;
    if (poll->caught_up) break;
    if (bytes >= limits_.max_bytes_per_discover || SteadyMs() - started >= limits_.max_ms_per_discover) {
      result.more_ready = true;
      break;
    }
  }
  // Ranges of at most max_records_per_unit Kinesis records per shard.
  for (const std::string& shard : shard_order) {
    std::vector<aws::kinesis::ShardRecord>& records = read[shard];
    size_t begin = 0;
    while (begin < records.size()) {
      size_t end = begin;
      int64_t kinesis_records = 0;
      int64_t size = 0;
      while (end < records.size()) {
        if (end == begin || records[end].sequence_number != records[end - 1].sequence_number) {
          if (kinesis_records == limits_.max_records_per_unit) break;
          ++kinesis_records;
        }
        size += static_cast<int64_t>(records[end].data.size() + records[end].partition_key.size());
        ++end;
      }
      SourceUnit unit;
      unit.kind = UnitKind::kStreamRange;
      unit.table = config_.table;
      unit.range.stream = config_.stream;
      unit.range.partition = shard;
      unit.range.first = records[begin].sequence_number;
      unit.range.last = records[end - 1].sequence_number;
      unit.uri = StreamRangeUri("kinesis", unit.range);
      unit.mtime_ms = now_ms;
      unit.size = std::max<int64_t>(size, 1);
      unit.order_key = config_.stream + "/" + shard + "/" + PaddedSequence(unit.range.first);
      std::vector<StreamRecord> unit_records;
      unit_records.reserve(end - begin);
      for (size_t i = begin; i < end; ++i) unit_records.push_back(ToStreamRecord(std::move(records[i])));
      if (cache_) cache_->Put(unit.uri, std::move(unit_records));
      handed_out_[{config_.stream, shard}] = unit.range.last;
      result.files.push_back(std::move(unit));
      begin = end;
    }
  }
  return result;
}

Result<StreamLagReport> KinesisLag(const SourceConfig& config, const s3::S3Options& s3,
                                   const StreamEnds& committed, const StreamEnds& recorded) {
  FLOE_ASSIGN_OR_RETURN(auto client, OpenKinesisClient(config, s3));
  const aws::kinesis::StreamId stream = KinesisStreamOf(config);
  FLOE_ASSIGN_OR_RETURN(std::vector<aws::kinesis::Shard> shards, client->ListShards(stream));
  StreamLagReport lag;
  int64_t behind_most = 0;
  int64_t open = 0;
  for (const aws::kinesis::Shard& shard : shards) {
    const auto key = std::make_pair(config.kinesis.stream, shard.shard_id);
    const auto done = committed.find(key);
    const auto held = recorded.find(key);
    // Where the next unread record is: right after the committed position,
    // else where a shard floe has never read starts.
    aws::kinesis::IteratorStart start;
    if (done != committed.end()) {
      start = {aws::kinesis::IteratorType::kAfterSequenceNumber, done->second};
    } else {
      start.type = config.stream.start_at_latest ? aws::kinesis::IteratorType::kLatest
                                                 : aws::kinesis::IteratorType::kTrimHorizon;
    }
    FLOE_ASSIGN_OR_RETURN(std::string iterator, client->GetShardIterator(stream, shard.shard_id, start));
    FLOE_ASSIGN_OR_RETURN(aws::kinesis::GetRecordsResult next,
                          client->GetRecords(stream, shard.shard_id, iterator, 1));
    // A closed shard is finished once nothing follows the committed position.
    const bool finished = shard.closed() && next.records.empty() &&
                          (!next.next_iterator ||
                           (done != committed.end() && aws::kinesis::CompareSequenceNumbers(
                                                           done->second, shard.ending_sequence_number) >= 0));
    const int64_t behind = finished               ? 0
                           : next.records.empty() ? next.millis_behind_latest
                                                  : std::max<int64_t>(next.millis_behind_latest, 1);
    behind_most = std::max(behind_most, behind);
    if (!shard.closed()) ++open;
    json::OrderedJson row;
    row["stream"] = config.kinesis.stream;
    row["shard"] = shard.shard_id;
    row["state"] = finished ? "finished" : shard.closed() ? "closed" : "open";
    row["parents"] = shard.adjacent_parent_shard_id.empty()
                         ? shard.parent_shard_id
                         : shard.parent_shard_id + "," + shard.adjacent_parent_shard_id;
    row["committed"] = done != committed.end() ? done->second : "";
    row["recorded"] = held != recorded.end() ? held->second : "";
    row["next"] = next.records.empty() ? "" : next.records.front().sequence_number;
    row["behind_ms"] = behind;
    lag.rows.push_back(std::move(row));
  }
  lag.summary = std::to_string(shards.size()) + (shards.size() == 1 ? " shard" : " shards") + " (" +
                std::to_string(open) + " open), the furthest " + std::to_string(behind_most) +
                " ms behind the tip";
  return lag;
}

}  // namespace floe::ingest
