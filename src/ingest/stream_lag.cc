#include "ingest/stream_lag.h"

#include <algorithm>

#include "ingest/stream/kafka_discovery.h"
#include "ingest/stream/kafka_topic_routes.h"
#include "ingest/stream/kafka_unit_opener.h"
#include "ingest/stream/kinesis_discovery.h"

namespace floe::ingest {

Result<std::vector<StreamPartitionLag>> StreamLag(
    const std::map<std::pair<std::string, std::string>, Ledger::StreamPosition>& positions,
    const std::vector<DiscoveryResult::StreamMarks>& marks) {
  auto next_after = [](const std::string& last, const std::string& what) -> Result<std::optional<int64_t>> {
    if (last.empty()) return std::optional<int64_t>();
    const std::optional<int64_t> offset = ParseKafkaOffset(last);
    if (!offset)
      return Status::Corruption("the ledger's " + what + " \"" + last + "\" is not a Kafka offset");
    return std::optional<int64_t>(*offset + 1);
  };
  std::vector<StreamPartitionLag> out;
  out.reserve(marks.size());
  for (const DiscoveryResult::StreamMarks& mark : marks) {
    StreamPartitionLag lag{mark.stream, mark.partition, mark.table, mark.low,
                           mark.low,    mark.low,       mark.high,  0};
    if (auto it = positions.find({mark.stream, mark.partition}); it != positions.end()) {
      const std::string where = mark.stream + "[" + mark.partition + "]";
      FLOE_ASSIGN_OR_RETURN(auto committed,
                            next_after(it->second.committed_last, "committed offset of " + where));
      FLOE_ASSIGN_OR_RETURN(auto recorded, next_after(it->second.recorded_last, "last offset of " + where));
      if (committed) lag.committed = *committed;
      if (recorded) lag.recorded = *recorded;
      lag.recorded = std::max(lag.recorded, lag.committed);
    }
    lag.lag = std::max<int64_t>(0, lag.high - lag.committed);
    out.push_back(std::move(lag));
  }
  return out;
}

namespace {

using StreamPositions = std::map<std::pair<std::string, std::string>, Ledger::StreamPosition>;

Result<std::vector<StreamPartitionLag>> KafkaPartitionLag(const PipelineConfig& config,
                                                          const StreamPositions& positions) {
  FLOE_ASSIGN_OR_RETURN(auto partitions, KafkaWatermarks(config.source));
  std::vector<DiscoveryResult::StreamMarks> marks;
  marks.reserve(partitions.size());
  for (const PartitionWatermarks& p : partitions) {
    for (const KafkaTableStream& routed : KafkaTableStreams(config.source.kafka, p.topic))
      marks.push_back({routed.stream, std::to_string(p.partition), routed.table, p.low, p.high});
  }
  return StreamLag(positions, marks);
}

}  // namespace

Result<std::vector<StreamPartitionLag>> QueryStreamLag(const PipelineConfig& config, Ledger& ledger) {
  if (config.source.discovery != DiscoveryKind::kKafka) {
    return Status::InvalidArgument(
        "only stream sources ([source] discovery = \"kafka\") have offsets and lag");
  }
  FLOE_ASSIGN_OR_RETURN(auto positions, ledger.StreamPositions());
  return KafkaPartitionLag(config, positions);
}

Result<StreamLagReport> QueryStreamLagReport(const PipelineConfig& config, Ledger* ledger) {
  StreamPositions positions;
  if (ledger != nullptr && (config.source.discovery == DiscoveryKind::kKafka ||
                            config.source.discovery == DiscoveryKind::kKinesis)) {
    FLOE_ASSIGN_OR_RETURN(positions, ledger->StreamPositions());
  }
  StreamLagReport report;
  switch (config.source.discovery) {
    case DiscoveryKind::kKafka: {
      FLOE_ASSIGN_OR_RETURN(auto partitions, KafkaPartitionLag(config, positions));
      int64_t total_lag = 0;
      for (const StreamPartitionLag& p : partitions) {
        total_lag += p.lag;
        report.rows.push_back({{"topic", p.stream},
                               {"partition", std::stoi(p.partition)},
                               {"committed", p.committed},
                               {"recorded", p.recorded},
                               {"low", p.low},
                               {"high", p.high},
                               {"lag", p.lag}});
      }
      report.summary = std::to_string(partitions.size()) +
                       (partitions.size() == 1 ? " partition" : " partitions") + ", lag " +
                       std::to_string(total_lag) + (total_lag == 1 ? " record" : " records");
      return report;
    }
    case DiscoveryKind::kKinesis: {
      StreamEnds committed, recorded;
      for (const auto& [key, position] : positions) {
        if (!position.committed_last.empty()) committed[key] = position.committed_last;
        recorded[key] = position.recorded_last;
      }
      return KinesisLag(config.source, config.s3, committed, recorded);
    }
    default: break;
  }
  return Status::InvalidArgument(
      "--lag applies to stream sources ([source] discovery = \"kafka\" or \"kinesis\")");
}

}  // namespace floe::ingest
