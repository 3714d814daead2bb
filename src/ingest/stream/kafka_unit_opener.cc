#include "ingest/stream/kafka_unit_opener.h"

#include <charconv>
#include <chrono>
#include <set>

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

// The decoded rows of a range as one chunk.
class DecodedRangeReader final : public formats::ChunkedReader {
 public:
  explicit DecodedRangeReader(std::shared_ptr<const DecodedRecords> decoded) : decoded_(std::move(decoded)) {}
  const Schema& schema() const override { return decoded_->rows.schema; }
  int num_chunks() const override { return decoded_->rows.num_rows > 0 ? 1 : 0; }
  int64_t chunk_rows(int) const override { return decoded_->rows.num_rows; }
  int64_t chunk_bytes(int) const override { return decoded_->payload_bytes; }
  Result<RecordBatch> ReadChunk(int chunk, const std::vector<int>& columns) override {
    if (chunk != 0 || decoded_->rows.num_rows == 0) return Status::InvalidArgument("no such chunk");
    if (columns.empty()) return decoded_->rows;  // every column (ChunkedReader's convention)
    RecordBatch out;
    out.num_rows = decoded_->rows.num_rows;
    for (int column : columns) {
      if (column < 0 || static_cast<size_t>(column) >= decoded_->rows.columns.size()) {
        return Status::InvalidArgument("column " + std::to_string(column) + " out of range");
      }
      out.schema.push_back(decoded_->rows.schema[static_cast<size_t>(column)]);
      out.columns.push_back(decoded_->rows.columns[static_cast<size_t>(column)]);
    }
    return out;
  }

 private:
  std::shared_ptr<const DecodedRecords> decoded_;
};

int64_t ApproximateBytes(const DecodedRecords& decoded) {
  // Decoded columns take about twice the JSON they came from.
  return decoded.payload_bytes * 2 + 1024;
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

kafka::KafkaConsumerOptions KafkaOptionsOf(const SourceConfig& config, const std::string& client_id) {
  kafka::KafkaConsumerOptions options;
  options.bootstrap_servers = config.kafka.bootstrap_servers;
  options.group_id = config.kafka.group_id.empty() ? "floe" : config.kafka.group_id;
  options.client_id = client_id;
  for (const auto& [name, value] : config.kafka.properties) options.properties.emplace_back(name, value);
  return options;
}

KafkaUnitOpener::KafkaUnitOpener(std::unique_ptr<kafka::KafkaConsumer> consumer,
                                 kafka::KafkaConsumerOptions client, KafkaJsonOptions options,
                                 StreamBadRecordPolicy policy, int64_t cache_bytes)
    : consumer_(std::move(consumer)),
      client_(std::move(client)),
      options_(std::move(options)),
      policy_(policy),
      cache_bytes_(cache_bytes) {}

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
  KafkaJsonOptions options;
  FLOE_ASSIGN_OR_RETURN(options.text, MakeTextFormatOptions(config));
  // Debezium's default ordering reads kafka.offset; append tables keep it on request.
  options.metadata_column = config.changes == ChangeKind::kDebezium || config.kafka.metadata_column;
  auto opener = std::shared_ptr<KafkaUnitOpener>(
      new KafkaUnitOpener(std::move(consumer), client, std::move(options), config.kafka.on_bad_record,
                          std::max<int64_t>(memory_budget_bytes / 4, 0)));
  if (config.format == SourceFormat::kAvro) {
    schema_registry::SchemaRegistryOptions registry;
    registry.url = config.kafka.schema_registry_url;
    registry.basic_auth_user_info = config.kafka.schema_registry_auth;
    registry.bearer_token = config.kafka.schema_registry_token;
    FLOE_ASSIGN_OR_RETURN(opener->registry_, schema_registry::SchemaRegistryClient::Open(registry));
  }
  return opener;
}

Result<std::shared_ptr<const schema_registry::RegisteredSchema>> KafkaUnitOpener::LookupSchema(int32_t id) {
  // How long a retryable registry failure fails other lookups at once: about
  // the client's own retry time, so the next batch attempt asks again.
  constexpr std::chrono::seconds kRegistryFailureHold{30};
  {
    std::lock_guard<std::mutex> lock(registry_mutex_);
    if (!registry_failure_.ok() && std::chrono::steady_clock::now() < registry_failure_until_) {
      return registry_failure_;
    }
  }
  auto schema = registry_->GetSchema(id);
  if (!schema.ok() && schema.status().retryable()) {
    std::lock_guard<std::mutex> lock(registry_mutex_);
    registry_failure_ = schema.status();
    registry_failure_until_ = std::chrono::steady_clock::now() + kRegistryFailureHold;
  }
  return schema;
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
  return ParsedRange{{unit.range.stream, partition_id}, *first, *last};
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
          copy.offset = offset;
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
  prefetched_bytes_ = 0;
  // Records are estimated at 1 KiB until fetched; half the cache holds them.
  std::vector<const SourceUnit*> wanted;
  int64_t estimated = 0;
  for (const SourceUnit& unit : batch) {
    auto range = ParseRange(unit);
    if (!range.ok()) continue;
    const int64_t bytes = (range->last - range->first + 1) * 1024;
    if (!wanted.empty() && estimated + bytes > cache_bytes_ / 2) break;
    wanted.push_back(&unit);
    estimated += bytes;
  }
  if (wanted.empty()) return Status::OK();
  FLOE_ASSIGN_OR_RETURN(auto records, FetchLocked(wanted));
  for (size_t i = 0; i < wanted.size(); ++i) {
    for (const StreamRecord& record : records[i]) {
      prefetched_bytes_ += static_cast<int64_t>((record.key ? record.key->size() : 0) +
                                                (record.value ? record.value->size() : 0));
    }
    prefetched_[wanted[i]->uri] = std::move(records[i]);
  }
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

Result<std::shared_ptr<const DecodedRecords>> KafkaUnitOpener::Decoded(const SourceUnit& unit,
                                                                       const Schema& table_columns) {
  const std::string cache_key = unit.uri + "\n" + SchemaToString(table_columns);
  std::vector<StreamRecord> records;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = cache_.begin(); it != cache_.end(); ++it) {
      if (it->first == cache_key) return it->second;
    }
    if (auto it = prefetched_.find(unit.uri); it != prefetched_.end()) {
      records = std::move(it->second);
      prefetched_.erase(it);
    } else {
      FLOE_ASSIGN_OR_RETURN(auto fetched, FetchLocked({&unit}));
      records = std::move(fetched.front());
    }
  }
  // Decoding runs outside the lock: several units decode at once on the batch's workers.
  int32_t partition = 0;
  std::from_chars(unit.range.partition.data(), unit.range.partition.data() + unit.range.partition.size(),
                  partition);
  auto decoded = registry_ ? DecodeKafkaAvroRecords(
                                 unit.range.stream, partition, records,
                                 [this](int32_t id) { return LookupSchema(id); }, options_.metadata_column)
                           : DecodeKafkaJsonRecords(unit.range.stream, partition, records, table_columns,
                                                    options_, schemas_);
  // The batch names the unit in what it does with the error (retry or quarantine).
  if (!decoded.ok()) return decoded.status();
  if (decoded->dead_letters.num_rows > 0 && policy_ == StreamBadRecordPolicy::kFail) {
    const Column& errors = decoded->dead_letters.columns.back();
    return Status::IOError(
        std::string(errors.StringAt(0)) +
            (decoded->dead_letters.num_rows > 1
                 ? " (and " + std::to_string(decoded->dead_letters.num_rows - 1) + " more)"
                 : "") +
            "; [source] on_bad_record = \"fail\" stops here (\"dead_letter\" keeps such records "
            "in <table>__dead_letter and goes on)",
        /*retryable=*/true);
  }
  auto shared = std::make_shared<const DecodedRecords>(std::move(decoded).value());
  const int64_t bytes = ApproximateBytes(*shared);
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->first == cache_key) return it->second;  // another worker decoded it meanwhile
  }
  if (bytes <= cache_bytes_) {
    cache_.emplace_back(cache_key, shared);
    cached_bytes_ += bytes;
    while (cached_bytes_ > cache_bytes_ && !cache_.empty()) {
      cached_bytes_ -= ApproximateBytes(*cache_.front().second);
      cache_.pop_front();
    }
  }
  return shared;
}

Result<std::unique_ptr<formats::ChunkedReader>> KafkaUnitOpener::Open(const SourceUnit& unit,
                                                                      const Schema& table_columns) {
  FLOE_ASSIGN_OR_RETURN(auto decoded, Decoded(unit, table_columns));
  return std::unique_ptr<formats::ChunkedReader>(new DecodedRangeReader(std::move(decoded)));
}

Result<UnitOpener::DeadLetters> KafkaUnitOpener::DeadLettersOf(const SourceUnit& unit,
                                                               const Schema& table_columns) {
  FLOE_ASSIGN_OR_RETURN(auto decoded, Decoded(unit, table_columns));
  DeadLetters letters;
  if (decoded->dead_letters.num_rows == 0) return letters;
  if (policy_ == StreamBadRecordPolicy::kSkip) {
    letters.skipped = decoded->dead_letters.num_rows;
  } else {
    letters.rows = decoded->dead_letters;
  }
  return letters;
}

}  // namespace floe::ingest
