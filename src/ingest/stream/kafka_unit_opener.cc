#include "ingest/stream/kafka_unit_opener.h"

#include <charconv>
#include <chrono>

namespace floe::ingest {

namespace {

// How long a range may make no progress (no record, no offset covered)
// before the open gives up with a retryable error.
constexpr int64_t kNoProgressTimeoutMs = 60'000;

int64_t SteadyMs() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::optional<int64_t> ParseOffset(const std::string& text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
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

bool IsKafkaUri(const std::string& uri) {
  return uri.rfind("kafka://", 0) == 0;
}

kafka::KafkaConsumerOptions KafkaOptionsOf(const SourceConfig& config, const std::string& client_id) {
  kafka::KafkaConsumerOptions options;
  options.bootstrap_servers = config.kafka.bootstrap_servers;
  options.group_id = "floe";
  options.client_id = client_id;
  for (const auto& [name, value] : config.kafka.properties) options.properties.emplace_back(name, value);
  return options;
}

KafkaUnitOpener::KafkaUnitOpener(std::unique_ptr<kafka::KafkaConsumer> consumer, KafkaJsonOptions options,
                                 StreamBadRecordPolicy policy, int64_t cache_bytes)
    : consumer_(std::move(consumer)),
      options_(std::move(options)),
      policy_(policy),
      cache_bytes_(cache_bytes) {}

Result<std::shared_ptr<KafkaUnitOpener>> KafkaUnitOpener::Open(const SourceConfig& config,
                                                               const std::string& client_id,
                                                               int64_t memory_budget_bytes) {
  FLOE_ASSIGN_OR_RETURN(auto consumer, kafka::KafkaConsumer::Open(KafkaOptionsOf(config, client_id)));
  KafkaJsonOptions options;
  FLOE_ASSIGN_OR_RETURN(options.text, MakeTextFormatOptions(config));
  // Debezium's default ordering reads kafka.offset; append tables keep it on request.
  options.metadata_column = config.changes != ChangeKind::kAppend || config.kafka.metadata_column;
  if (config.changes == ChangeKind::kColumns) options.metadata_column = config.kafka.metadata_column;
  return std::shared_ptr<KafkaUnitOpener>(new KafkaUnitOpener(std::move(consumer), std::move(options),
                                                              config.kafka.on_bad_record,
                                                              std::max<int64_t>(memory_budget_bytes / 4, 0)));
}

Result<std::vector<StreamRecord>> KafkaUnitOpener::Fetch(const SourceUnit& unit) {
  std::lock_guard<std::mutex> lock(mutex_);
  return FetchLocked(unit);
}

Result<std::vector<StreamRecord>> KafkaUnitOpener::FetchLocked(const SourceUnit& unit) {
  if (unit.kind != UnitKind::kStreamRange) {
    return Status::InvalidArgument(unit.uri + ": not a stream range; a Kafka source cannot open it");
  }
  const auto first = ParseOffset(unit.range.first);
  const auto last = ParseOffset(unit.range.last);
  int32_t partition_id = 0;
  {
    const std::string& p = unit.range.partition;
    const auto [end, ec] = std::from_chars(p.data(), p.data() + p.size(), partition_id);
    if (!first || !last || *last < *first || ec != std::errc() || end != p.data() + p.size() ||
        partition_id < 0) {
      return Status::InvalidArgument(unit.uri + ": not a Kafka offset range");
    }
  }
  const kafka::TopicPartition partition{unit.range.stream, partition_id};
  for (const kafka::TopicPartition& assigned : consumer_->Assignment()) {
    FLOE_RETURN_IF_ERROR(consumer_->Unassign({assigned}));
  }
  kafka::PartitionStart start;
  start.partition = partition;
  start.offset = *first;
  start.stop_offset = *last + 1;
  FLOE_RETURN_IF_ERROR(consumer_->Assign({start}).WithContext(unit.uri));
  std::vector<StreamRecord> records;
  int64_t position = *first;
  int64_t last_progress_ms = SteadyMs();
  Status last_error;
  Status outcome;
  while (position <= *last) {
    kafka::FetchLimits limits;
    limits.max_records = 10'000;
    limits.max_bytes = int64_t{64} << 20;
    limits.max_wait_ms = 500;
    auto fetched = consumer_->Fetch(limits);
    if (!fetched.ok()) {
      outcome = fetched.status().WithContext(unit.uri);
      break;
    }
    bool progressed = false;
    for (kafka::PartitionRecords& range : fetched->partitions) {
      if (range.partition != partition) continue;
      for (kafka::KafkaRecord& record : range.records) {
        if (record.offset() < *first || record.offset() > *last) continue;
        StreamRecord copy;
        copy.offset = record.offset();
        copy.timestamp_ms = record.timestamp_ms();
        if (auto key = record.key()) copy.key = std::string(*key);
        if (auto value = record.value()) copy.value = std::string(*value);
        records.push_back(std::move(copy));
      }
      if (range.to_offset > position) {
        position = range.to_offset;
        progressed = true;
      }
    }
    for (const Status& error : fetched->errors) {
      if (error.kind() == ErrorKind::kOutOfRange) {
        outcome = Status::IOError(unit.uri +
                                  ": the brokers no longer hold these offsets (retention removed them "
                                  "before floe read them): " +
                                  error.message());
        break;
      }
      last_error = error;
    }
    if (!outcome.ok()) break;
    if (auto state = consumer_->State(partition); state.ok() && !state->error.ok()) {
      if (state->error.kind() == ErrorKind::kOutOfRange) {
        outcome = Status::IOError(unit.uri +
                                  ": the brokers no longer hold these offsets (retention removed them "
                                  "before floe read them): " +
                                  state->error.message());
        break;
      }
      last_error = state->error;
    }
    if (progressed) {
      last_progress_ms = SteadyMs();
    } else if (SteadyMs() - last_progress_ms > kNoProgressTimeoutMs) {
      outcome = Status::IOError(
          unit.uri + ": no records from the brokers for " + std::to_string(kNoProgressTimeoutMs / 1000) +
              " s at offset " + std::to_string(position) +
              (last_error.ok() ? "" : " (the last error: " + last_error.message() + ")"),
          /*retryable=*/true);
      break;
    }
  }
  Status unassigned = consumer_->Unassign({partition});
  if (!outcome.ok()) return outcome;
  if (!unassigned.ok()) return unassigned.WithContext(unit.uri);
  return records;
}

Result<std::shared_ptr<const DecodedRecords>> KafkaUnitOpener::Decoded(const SourceUnit& unit,
                                                                       const Schema& table_columns) {
  std::lock_guard<std::mutex> lock(mutex_);
  const std::string cache_key = unit.uri + "\n" + SchemaToString(table_columns);
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->first == cache_key) return it->second;
  }
  FLOE_ASSIGN_OR_RETURN(std::vector<StreamRecord> records, FetchLocked(unit));
  int32_t partition = 0;
  std::from_chars(unit.range.partition.data(), unit.range.partition.data() + unit.range.partition.size(),
                  partition);
  auto decoded =
      DecodeKafkaJsonRecords(unit.range.stream, partition, records, table_columns, options_, schemas_);
  if (!decoded.ok()) return decoded.status().WithContext(unit.uri);
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
