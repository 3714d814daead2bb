#include "ingest/stream/kafka_discovery.h"

#include <algorithm>
#include <charconv>

#include "ingest/stream/kafka_topic_routes.h"
#include "ingest/stream/kafka_unit_opener.h"

namespace floe::ingest {

std::string KafkaTableOf(const KafkaSourceConfig& config, const std::string& topic) {
  if (auto it = config.topic_tables.find(topic); it != config.topic_tables.end()) return it->second;
  const size_t dot = topic.find_last_of('.');
  std::string table = dot == std::string::npos ? topic : topic.substr(dot + 1);
  return table.empty() ? topic : table;
}

KafkaDiscovery::KafkaDiscovery(const SourceConfig& config, int64_t max_records_per_unit,
                               std::unique_ptr<kafka::KafkaConsumer> consumer)
    : config_(config.kafka),
      start_at_latest_(config.stream.start_at_latest),
      max_records_per_unit_(std::max<int64_t>(1, max_records_per_unit)),
      consumer_(std::move(consumer)) {}

Result<std::unique_ptr<KafkaDiscovery>> KafkaDiscovery::Open(const SourceConfig& config,
                                                             int64_t max_records_per_unit,
                                                             const std::string& client_id) {
  if (config.kafka.bootstrap_servers.empty()) {
    return Status::InvalidArgument("[source] uri: no bootstrap servers (kafka://host:port)");
  }
  FLOE_ASSIGN_OR_RETURN(auto consumer, kafka::KafkaConsumer::Open(KafkaOptionsOf(config, client_id)));
  std::unique_ptr<KafkaDiscovery> discovery(
      new KafkaDiscovery(config, max_records_per_unit, std::move(consumer)));
  if (!config.kafka.topic_pattern.empty()) {
    auto pattern = kafka::TopicPattern::Compile(config.kafka.topic_pattern);
    if (!pattern.ok()) return pattern.status().WithContext("[source] topic_pattern");
    discovery->pattern_ = std::move(*pattern);
  }
  return discovery;
}

namespace {

// Every partition of the source's topics (`pattern`, else the listed ones),
// sorted by topic, with its watermarks: one metadata request per topic and
// two watermark requests per leader. A listed topic that does not exist is
// left out, with a warning when `warnings` is given.
Result<std::vector<PartitionWatermarks>> ListPartitions(kafka::KafkaConsumer& consumer,
                                                        const KafkaSourceConfig& config,
                                                        const kafka::TopicPattern* pattern,
                                                        std::vector<std::string>* warnings) {
  std::vector<std::string> topics = config.topics;
  if (pattern != nullptr) {
    FLOE_ASSIGN_OR_RETURN(topics, consumer.MatchTopics(*pattern));
  }
  std::sort(topics.begin(), topics.end());
  std::vector<kafka::TopicPartition> partitions;
  for (const std::string& topic : topics) {
    auto info = consumer.DescribeTopic(topic);
    if (!info.ok() && info.status().kind() == ErrorKind::kNotFound) {
      if (warnings != nullptr) {
        warnings->push_back("topic " + topic + " does not exist (yet); its records are read once it does");
      }
      continue;
    }
    if (!info.ok()) return info.status().WithContext("topic " + topic);
    for (const kafka::PartitionInfo& partition : info->partitions)
      partitions.push_back({topic, partition.partition});
  }
  std::vector<PartitionWatermarks> out;
  if (partitions.empty()) return out;
  FLOE_ASSIGN_OR_RETURN(auto marks, consumer.QueryWatermarks(partitions));
  for (size_t i = 0; i < partitions.size(); ++i) {
    out.push_back({partitions[i].topic, partitions[i].partition, marks[i].low, marks[i].high});
  }
  return out;
}

}  // namespace

Result<DiscoveryResult> KafkaDiscovery::Discover(const std::map<std::string, TableWatermark>& watermarks,
                                                 int64_t now_ms) {
  (void)watermarks;
  DiscoveryResult result;
  FLOE_ASSIGN_OR_RETURN(
      std::vector<PartitionWatermarks> partitions,
      ListPartitions(*consumer_, config_, pattern_ ? &*pattern_ : nullptr, &result.warnings));
  std::set<std::string> tables;
  for (const PartitionWatermarks& partition : partitions) {
    for (const KafkaTableStream& routed : KafkaTableStreams(config_, partition.topic))
      tables.insert(routed.table);
  }
  result.tables.assign(tables.begin(), tables.end());
  // A routed topic's partitions are read once per table, as streams of their own (kafka_topic_routes.h).
  for (const PartitionWatermarks& mark : partitions) {
    for (const KafkaTableStream& routed : KafkaTableStreams(config_, mark.topic)) {
      DiscoverRanges(mark, routed, now_ms, &result);
    }
  }
  return result;
}

void KafkaDiscovery::DiscoverRanges(const PartitionWatermarks& mark, const KafkaTableStream& routed,
                                    int64_t now_ms, DiscoveryResult* out) {
  DiscoveryResult& result = *out;
  const kafka::TopicPartition tp{mark.topic, mark.partition};
  const std::string& table = routed.table;
  const auto key = std::make_pair(routed.stream, std::to_string(tp.partition));
  result.stream_marks.push_back({routed.stream, key.second, table, mark.low, mark.high});
  int64_t next = 0;
  if (auto end = ends_.find(key); end != ends_.end()) {
    auto last = ParseKafkaOffset(end->second);
    if (!last) {
      result.table_errors[table] =
          "the ledger's last offset of " + tp.ToString() + " is \"" + end->second + "\", not an offset";
      return;
    }
    next = *last + 1;
    if (next > mark.high) {
      result.table_errors[table] =
          tp.ToString() + " ends at offset " + std::to_string(mark.high) + ", but floe already read up to " +
          std::to_string(*last) +
          ": the topic was deleted and re-created, or the brokers lost records. floe does not guess which "
          "records are new; to read the topic from its start again, drop the table and remove the state "
          "dir";
      return;
    }
  } else if (start_at_latest_) {
    auto [it, inserted] = latest_starts_.emplace(key, mark.high);
    next = it->second;
  } else {
    next = mark.low;
  }
  if (next < mark.low) {
    if (reported_gaps_.insert(key).second) {
      result.warnings.push_back(tp.ToString() + ": offsets " + std::to_string(next) + " to " +
                                std::to_string(mark.low - 1) +
                                " were removed by the brokers' retention before floe read them (" +
                                std::to_string(mark.low - next) +
                                " records lost upstream); reading goes on at " + std::to_string(mark.low));
    }
    next = mark.low;
  }
  for (int64_t first = next; first < mark.high; first += max_records_per_unit_) {
    const int64_t last = std::min(mark.high - 1, first + max_records_per_unit_ - 1);
    SourceUnit unit;
    unit.kind = UnitKind::kStreamRange;
    unit.table = table;
    unit.range.stream = routed.stream;
    unit.range.partition = std::to_string(tp.partition);
    unit.range.first = std::to_string(first);
    unit.range.last = std::to_string(last);
    unit.uri = StreamRangeUri("kafka", unit.range);
    unit.mtime_ms = now_ms;
    // Its bytes are unknown until fetched: batches are planned by this estimate.
    unit.size = (last - first + 1) * kEstimatedRecordBytes;
    unit.order_key = routed.stream + "/" + ZeroPadded(tp.partition, 10) + "/" + ZeroPadded(first, 20);
    result.files.push_back(std::move(unit));
  }
}

Result<std::vector<PartitionWatermarks>> KafkaWatermarks(const SourceConfig& config) {
  FLOE_ASSIGN_OR_RETURN(auto consumer, kafka::KafkaConsumer::Open(KafkaOptionsOf(config, "floe-files")));
  std::optional<kafka::TopicPattern> pattern;
  if (!config.kafka.topic_pattern.empty()) {
    FLOE_ASSIGN_OR_RETURN(pattern, kafka::TopicPattern::Compile(config.kafka.topic_pattern));
  }
  return ListPartitions(*consumer, config.kafka, pattern ? &*pattern : nullptr, nullptr);
}

}  // namespace floe::ingest
