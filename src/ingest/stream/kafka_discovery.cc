#include "ingest/stream/kafka_discovery.h"

#include <algorithm>
#include <charconv>

#include "ingest/stream/kafka_unit_opener.h"

namespace floe::ingest {

namespace {

std::string Padded(int64_t value, size_t width) {
  std::string text = std::to_string(value);
  if (text.size() < width) text.insert(0, width - text.size(), '0');
  return text;
}

std::optional<int64_t> ParseOffset(const std::string& text) {
  int64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || value < 0) return std::nullopt;
  return value;
}

}  // namespace

std::string KafkaTableOf(const KafkaSourceConfig& config, const std::string& topic) {
  if (auto it = config.topic_tables.find(topic); it != config.topic_tables.end()) return it->second;
  const size_t dot = topic.find_last_of('.');
  std::string table = dot == std::string::npos ? topic : topic.substr(dot + 1);
  return table.empty() ? topic : table;
}

KafkaDiscovery::KafkaDiscovery(const SourceConfig& config, int64_t max_records_per_unit,
                               std::unique_ptr<kafka::KafkaConsumer> consumer)
    : config_(config.kafka),
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

Result<std::vector<std::string>> KafkaDiscovery::Topics(std::vector<std::string>* warnings) {
  (void)warnings;
  if (pattern_) return consumer_->MatchTopics(*pattern_);
  return config_.topics;
}

Result<DiscoveryResult> KafkaDiscovery::Discover(const std::map<std::string, TableWatermark>& watermarks,
                                                 int64_t now_ms) {
  (void)watermarks;
  DiscoveryResult result;
  FLOE_ASSIGN_OR_RETURN(std::vector<std::string> topics, Topics(&result.warnings));
  std::vector<kafka::TopicPartition> partitions;
  std::set<std::string> tables;
  for (const std::string& topic : topics) {
    auto info = consumer_->DescribeTopic(topic);
    if (!info.ok()) {
      if (info.status().kind() == ErrorKind::kNotFound) {
        result.warnings.push_back("topic " + topic +
                                  " does not exist (yet); its records are read once it does");
        continue;
      }
      return info.status().WithContext("topic " + topic);
    }
    tables.insert(KafkaTableOf(config_, topic));
    for (const kafka::PartitionInfo& partition : info->partitions) {
      partitions.push_back({topic, partition.partition});
    }
  }
  result.tables.assign(tables.begin(), tables.end());
  if (partitions.empty()) return result;
  FLOE_ASSIGN_OR_RETURN(std::vector<kafka::Watermarks> marks, consumer_->QueryWatermarks(partitions));
  for (size_t i = 0; i < partitions.size(); ++i) {
    const kafka::TopicPartition& tp = partitions[i];
    const kafka::Watermarks& mark = marks[i];
    const std::string table = KafkaTableOf(config_, tp.topic);
    const auto key = std::make_pair(tp.topic, std::to_string(tp.partition));
    int64_t next = 0;
    if (auto end = ends_.find(key); end != ends_.end()) {
      auto last = ParseOffset(end->second);
      if (!last) {
        result.table_errors[table] =
            "the ledger's last offset of " + tp.ToString() + " is \"" + end->second + "\", not an offset";
        continue;
      }
      next = *last + 1;
      if (next > mark.high) {
        result.table_errors[table] =
            tp.ToString() + " ends at offset " + std::to_string(mark.high) +
            ", but floe already read up to " + std::to_string(*last) +
            ": the topic was deleted and re-created, or the brokers lost records. floe does not guess which "
            "records are new; to read the topic from its start again, drop the table and remove the state "
            "dir";
        continue;
      }
    } else if (config_.start_at_latest) {
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
      unit.range.stream = tp.topic;
      unit.range.partition = std::to_string(tp.partition);
      unit.range.first = std::to_string(first);
      unit.range.last = std::to_string(last);
      unit.uri = StreamRangeUri("kafka", unit.range);
      unit.mtime_ms = now_ms;
      // Its bytes are unknown until fetched: batches are planned by this estimate.
      unit.size = (last - first + 1) * kEstimatedRecordBytes;
      unit.order_key = tp.topic + "/" + Padded(tp.partition, 10) + "/" + Padded(first, 20);
      result.files.push_back(std::move(unit));
    }
  }
  return result;
}

Result<std::vector<PartitionWatermarks>> KafkaWatermarks(const SourceConfig& config) {
  FLOE_ASSIGN_OR_RETURN(auto consumer, kafka::KafkaConsumer::Open(KafkaOptionsOf(config, "floe-files")));
  std::vector<std::string> topics = config.kafka.topics;
  if (!config.kafka.topic_pattern.empty()) {
    FLOE_ASSIGN_OR_RETURN(auto pattern, kafka::TopicPattern::Compile(config.kafka.topic_pattern));
    FLOE_ASSIGN_OR_RETURN(topics, consumer->MatchTopics(pattern));
  }
  std::sort(topics.begin(), topics.end());
  std::vector<kafka::TopicPartition> partitions;
  for (const std::string& topic : topics) {
    auto info = consumer->DescribeTopic(topic);
    if (!info.ok() && info.status().kind() == ErrorKind::kNotFound) continue;
    if (!info.ok()) return info.status();
    for (const kafka::PartitionInfo& partition : info->partitions)
      partitions.push_back({topic, partition.partition});
  }
  std::vector<PartitionWatermarks> out;
  if (partitions.empty()) return out;
  FLOE_ASSIGN_OR_RETURN(auto marks, consumer->QueryWatermarks(partitions));
  for (size_t i = 0; i < partitions.size(); ++i) {
    out.push_back({partitions[i].topic, partitions[i].partition, marks[i].low, marks[i].high});
  }
  return out;
}

}  // namespace floe::ingest
