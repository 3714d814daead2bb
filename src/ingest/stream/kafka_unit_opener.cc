#include "ingest/stream/kafka_unit_opener.h"

#include <charconv>
#include <chrono>
#include <functional>
#include <set>

#include "aws/credentials.h"
#include "aws/msk_iam_token.h"
#include "ingest/stream/kafka_record_origin.h"
#include "ingest/stream/kafka_topic_routes.h"

namespace floe::ingest {

namespace {

// How long a range may make no progress (no record, no offset covered)
// before the open gives up with a retryable error.
constexpr int64_t kNoProgressTimeoutMs = 60'000;
// After this long without progress the client is opened again and the
// ranges re-assigned from where they are: a partition assigned while its
// broker was away can stay stalled in librdkafka 2.0.2 after the broker
// returns (a fresh client reads at once).
constexpr int64_t kReopenAfterMs = 8'000;

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::optional<int64_t> ParseKafkaOffset(const std::string& text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

bool IsKafkaUri(const std::string& uri) {
  return uri.rfind("kafka://", 0) == 0;
}

namespace {

// Amazon MSK's IAM token, made afresh on every refresh: the credentials are
// resolved again each time, so rotated keys (a renewed session token in the
// environment or the profile files) are picked up. The region: [source]
// region, else the one in the brokers' MSK host names, else the AWS chain's.
std::function<Result<kafka::OAuthBearerToken>()> MskIamTokenProvider(const KafkaSourceConfig& kafka) {
  return [aws = kafka.aws, region = kafka.region,
          bootstrap = kafka.bootstrap_servers]() -> Result<kafka::OAuthBearerToken> {
    auto identity = aws::ResolveAwsIdentity(aws);
    if (!identity.ok()) return identity.status().WithContext("MSK IAM token");
    std::string signing_region = region;
    if (signing_region.empty())
      signing_region = aws::MskRegionOfBootstrap(bootstrap).value_or(identity->region);
    auto token =
        aws::MakeMskIamToken(identity->credentials, signing_region, std::chrono::system_clock::now());
    if (!token.ok()) return token.status().WithContext("MSK IAM token");
    return kafka::OAuthBearerToken{std::move(token->value), token->expires_at_ms,
                                   identity->credentials.access_key_id};
  };
}

}  // namespace

kafka::KafkaConsumerOptions KafkaOptionsOf(const SourceConfig& config, const std::string& client_id) {
  kafka::KafkaConsumerOptions options;
  options.bootstrap_servers = config.kafka.bootstrap_servers;
  options.group_id = config.kafka.group_id.empty() ? "floe" : config.kafka.group_id;
  options.client_id = client_id;
  if (config.kafka.aws_msk_iam) {
    // MSK's IAM listener (port 9098); [source.kafka] may still override
    // security.protocol (its own properties come after these).
    options.properties = {{"security.protocol", "SASL_SSL"}, {"sasl.mechanism", "OAUTHBEARER"}};
    options.oauth_bearer_token = MskIamTokenProvider(config.kafka);
  }
  for (const auto& [name, value] : config.kafka.properties) options.properties.emplace_back(name, value);
  return options;
}

KafkaUnitOpener::KafkaUnitOpener(std::unique_ptr<kafka::KafkaConsumer> consumer,
                                 kafka::KafkaConsumerOptions client, StreamDecoding decoding,
                                 int64_t prefetch_bytes, KafkaSourceConfig source)
    : StreamUnitOpener(std::move(decoding)),
      consumer_(std::move(consumer)),
      client_(std::move(client)),
      prefetch_bytes_(prefetch_bytes),
      source_(std::move(source)) {}

Result<std::shared_ptr<KafkaUnitOpener>> KafkaUnitOpener::Open(const SourceConfig& config,
                                                               const std::string& client_id,
                                                               int64_t memory_budget_bytes) {
  kafka::KafkaConsumerOptions client = KafkaOptionsOf(config, client_id);
  // Ranges are read below the high watermark, so a broker has their records
  // at once: its default wait for more (fetch.wait.max.ms = 500) would be
  // paid on every range (48,000 records over 64 partitions: 65 s -> 1.4 s).
  // [source.kafka] still overrides it (its properties come after).
  client.properties.insert(client.properties.begin(), {"fetch.wait.max.ms", "10"});
  FLOE_ASSIGN_OR_RETURN(auto consumer, kafka::KafkaConsumer::Open(client));
  FLOE_ASSIGN_OR_RETURN(StreamDecoding decoding, MakeStreamDecoding(config, memory_budget_bytes));
  // Half the decoded-range cache holds the records Prepare fetches.
  const int64_t prefetch_bytes = decoding.cache_bytes / 2;
  return std::shared_ptr<KafkaUnitOpener>(
      new KafkaUnitOpener(std::move(consumer), client, std::move(decoding), prefetch_bytes, config.kafka));
}

Result<std::vector<StreamRecord>> KafkaUnitOpener::Fetch(const SourceUnit& unit) {
  std::lock_guard<std::mutex> lock(mutex_);
  FLOE_ASSIGN_OR_RETURN(auto records, FetchLocked({&unit}));
  return std::move(records.front());
}

namespace {

struct ParsedRange {
  kafka::TopicPartition partition;
  int64_t first = 0;
  int64_t last = 0;
};

Result<ParsedRange> ParseRange(const SourceUnit& unit) {
  if (unit.kind != UnitKind::kStreamRange) {
    return Status::InvalidArgument(unit.uri + ": not a stream range; a Kafka source cannot open it");
  }
  const auto first = ParseKafkaOffset(unit.range.first);
  const auto last = ParseKafkaOffset(unit.range.last);
  int32_t partition_id = 0;
  const std::string& p = unit.range.partition;
  const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), partition_id);
  if (!first || !last || *last < *first || ec != std::errc() || end != p.data() + p.size() ||
      partition_id < 0) {
    return Status::InvalidArgument(unit.uri + ": not a Kafka offset range");
  }
  // A routed table's stream names its topic and table (kafka_topic_routes.h).
  return ParsedRange{{KafkaTopicOfStream(unit.range.stream), partition_id}, *first, *last};
}

std::string RetentionMessage(const std::string& what, const Status& error) {
  return what +
         ": the brokers no longer hold these offsets (retention removed them before floe read them): " +
         error.message();
}

}  // namespace

Result<std::vector<std::vector<StreamRecord>>> KafkaUnitOpener::FetchLocked(
    const std::vector<const SourceUnit*>& units) {
  // Per partition, the span of its units' ranges; each record goes to the unit that holds its offset.
  struct Span {
    int64_t first = 0;
    int64_t last = 0;
    int64_t position = 0;
    std::vector<std::pair<ParsedRange, size_t>> units;  // range, index into `units`
    std::string name;                                   // for messages
  };
  std::map<kafka::TopicPartition, Span> spans;
  for (size_t i = 0; i < units.size(); ++i) {
    FLOE_ASSIGN_OR_RETURN(ParsedRange range, ParseRange(*units[i]));
    auto [it, inserted] = spans.try_emplace(range.partition);
    Span& span = it->second;
    if (inserted) {
      span.first = range.first;
      span.last = range.last;
      span.name = units[i]->uri;
    } else {
      span.first = std::min(span.first, range.first);
      span.last = std::max(span.last, range.last);
      span.name =
          units[i]->uri + " (with " + std::to_string(span.units.size()) + " more ranges of its partition)";
    }
    span.units.push_back({range, i});
  }
  // Partitions stay assigned between fetches, each paused at its last
  // stop: a partition already assigned is sought (KafkaConsumer::Seek
  // resumes it first; librdkafka would keep a paused partition paused
  // across an unassign and a new assign), a new one assigned.
  std::vector<kafka::PartitionStart> starts;
  std::set<kafka::TopicPartition> assigned;
  for (const kafka::TopicPartition& partition : consumer_->Assignment()) assigned.insert(partition);
  for (auto& [partition, span] : spans) {
    kafka::PartitionStart start;
    start.partition = partition;
    start.offset = span.first;
    start.stop_offset = span.last + 1;
    span.position = span.first;
    if (assigned.count(partition)) {
      FLOE_RETURN_IF_ERROR(consumer_->Seek(start).WithContext(span.name));
    } else {
      starts.push_back(start);
    }
  }
  if (!starts.empty()) FLOE_RETURN_IF_ERROR(consumer_->Assign(starts).WithContext(units.front()->uri));
  std::vector<std::vector<StreamRecord>> out(units.size());
  size_t open_spans = spans.size();
  int64_t last_progress_ms = SteadyMs();
  int64_t last_reopen_ms = last_progress_ms;
  Status last_error;
  Status outcome;
  while (open_spans > 0) {
    kafka::FetchLimits limits;
    limits.max_records = 20'000;
    limits.max_bytes = int64_t{64} << 20;
    limits.max_wait_ms = 200;
    auto fetched = consumer_->Fetch(limits);
    if (!fetched.ok()) {
      outcome = fetched.status().WithContext(units.front()->uri);
      break;
    }
    bool progressed = false;
    for (kafka::PartitionRecords& range : fetched->partitions) {
      auto it = spans.find(range.partition);
      if (it == spans.end()) continue;
      Span& span = it->second;
      for (kafka::KafkaRecord& record : range.records) {
        const int64_t offset = record.offset();
        for (const auto& [unit_range, index] : span.units) {
          if (offset < unit_range.first || offset > unit_range.last) continue;
          StreamRecord copy;
          copy.position = std::to_string(offset);
          copy.timestamp_ms = record.timestamp_ms();
          if (auto key = record.key()) copy.key = std::string(*key);
          if (auto value = record.value()) copy.value = std::string(*value);
          out[index].push_back(std::move(copy));
          break;
        }
      }
      if (range.to_offset > span.position) {
        if (span.position <= span.last && range.to_offset > span.last) --open_spans;
        span.position = range.to_offset;
        progressed = true;
      }
    }
    for (const Status& error : fetched->errors) {
      if (error.kind() == ErrorKind::kOutOfRange) {
        outcome = Status::IOError(RetentionMessage(units.front()->uri, error));
        break;
      }
      last_error = error;
    }
    if (!outcome.ok()) break;
    for (const auto& [partition, span] : spans) {
      if (span.position > span.last) continue;
      auto state = consumer_->State(partition);
      if (!state.ok() || state->error.ok()) continue;
      if (state->error.kind() == ErrorKind::kOutOfRange) {
        outcome = Status::IOError(RetentionMessage(span.name, state->error));
        break;
      }
      last_error = state->error;
    }
    if (!outcome.ok()) break;
    const std::atomic<bool>* stop = stop_.load();
    if (stop != nullptr && stop->load()) {
      outcome = Status::IOError("stopping: the fetch of " + units.front()->uri + " was abandoned",
                                /*retryable=*/true);
      break;
    }
    if (progressed) {
      last_progress_ms = SteadyMs();
      last_reopen_ms = last_progress_ms;
    } else if (SteadyMs() - last_reopen_ms > kReopenAfterMs &&
               SteadyMs() - last_progress_ms <= kNoProgressTimeoutMs) {
      // Open the client again and re-assign what is left.
      last_reopen_ms = SteadyMs();
      auto reopened = kafka::KafkaConsumer::Open(client_);
      if (reopened.ok()) {
        consumer_ = std::move(*reopened);
        std::vector<kafka::PartitionStart> again;
        for (const auto& [partition, span] : spans) {
          if (span.position > span.last) continue;
          kafka::PartitionStart start;
          start.partition = partition;
          start.offset = span.position;
          start.stop_offset = span.last + 1;
          again.push_back(start);
        }
        if (Status assigned = consumer_->Assign(again); !assigned.ok()) last_error = assigned;
      } else {
        last_error = reopened.status();
      }
    } else if (SteadyMs() - last_progress_ms > kNoProgressTimeoutMs) {
      std::string waiting;
      for (const auto& [partition, span] : spans) {
        if (span.position <= span.last && waiting.empty()) {
          waiting = span.name + " at offset " + std::to_string(span.position);
        }
      }
      outcome = Status::IOError(
          "no records from the brokers for " + std::to_string(kNoProgressTimeoutMs / 1000) + " s for " +
              waiting + (last_error.ok() ? "" : " (the last error: " + last_error.message() + ")"),
          /*retryable=*/true);
      break;
    }
  }
  if (!outcome.ok()) return outcome;
  return out;
}

Status KafkaUnitOpener::Prepare(const std::vector<SourceUnit>& batch) {
  std::lock_guard<std::mutex> lock(mutex_);
  prefetched_.clear();
  // Records are estimated at 1 KiB until fetched.
  std::vector<const SourceUnit*> wanted;
  int64_t estimated = 0;
  for (const SourceUnit& unit : batch) {
    auto range = ParseRange(unit);
    if (!range.ok()) continue;
    const int64_t bytes = (range->last - range->first + 1) * 1024;
    if (!wanted.empty() && estimated + bytes > prefetch_bytes_) break;
    wanted.push_back(&unit);
    estimated += bytes;
  }
  if (wanted.empty()) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(auto records, FetchLocked(wanted));
  for (size_t i = 0; i < wanted.size(); ++i) prefetched_[wanted[i]->uri] = std::move(records[i]);
  return Status::OK();
}

Status KafkaUnitOpener::Committed(const std::vector<SourceUnit>& batch) {
  std::map<kafka::TopicPartition, int64_t> next;
  for (const SourceUnit& unit : batch) {
    auto range = ParseRange(unit);
    if (!range.ok()) continue;
    int64_t& offset = next[range->partition];
    offset = std::max(offset, range->last + 1);
  }
  if (next.empty()) return Status::OK();
  std::vector<kafka::PartitionOffset> offsets;
  for (const auto& [partition, offset] : next) offsets.push_back({partition, offset});
  std::lock_guard<std::mutex> lock(mutex_);
  return consumer_->CommitOffsets(offsets);
}

Result<std::vector<StreamRecord>> KafkaUnitOpener::Records(const SourceUnit& unit) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (auto it = prefetched_.find(unit.uri); it != prefetched_.end()) {
    std::vector<StreamRecord> records = std::move(it->second);
    prefetched_.erase(it);
    return records;
  }
  FLOE_ASSIGN_OR_RETURN(auto fetched, FetchLocked({&unit}));
  return std::move(fetched.front());
}

std::optional<RecordRoute> KafkaUnitOpener::RouteOf(const SourceUnit& unit) const {
  return KafkaRouteOf(source_, unit.range.stream, unit.table);
}

Result<std::unique_ptr<RecordOrigin>> KafkaUnitOpener::OriginOf(const SourceUnit& unit) const {
  FLOE_ASSIGN_OR_RETURN(ParsedRange range, ParseRange(unit));
  return std::unique_ptr<RecordOrigin>(
      new KafkaRecordOrigin(range.partition.topic, range.partition.partition));
}

}  // namespace floe::ingest
