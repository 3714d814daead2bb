#include "ingest/stream_lag.h"

#include <algorithm>

#include "ingest/stream/kafka_discovery.h"
#include "ingest/stream/kafka_unit_opener.h"

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

Result<std::vector<StreamPartitionLag>> QueryStreamLag(const PipelineConfig& config, Ledger& ledger) {
  if (config.source.discovery != DiscoveryKind::kKafka) {
    return Status::InvalidArgument(
        "only stream sources ([source] discovery = \"kafka\") have offsets and lag");
  }
  FLOE_ASSIGN_OR_RETURN(auto positions, ledger.StreamPositions());
  FLOE_ASSIGN_OR_RETURN(auto partitions, KafkaWatermarks(config.source));
  std::vector<DiscoveryResult::StreamMarks> marks;
  marks.reserve(partitions.size());
  for (const PartitionWatermarks& p : partitions) {
    marks.push_back(
        {p.topic, std::to_string(p.partition), KafkaTableOf(config.source.kafka, p.topic), p.low, p.high});
  }
  return StreamLag(positions, marks);
}

}  // namespace floe::ingest
