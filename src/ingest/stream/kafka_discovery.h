// KafkaDiscovery: the discovery axis of the source model for Kafka — which
// offset ranges of which topic partitions are there to ingest.
//
// Contract (see Discovery):
// - Topics: [source] topics, or every existing topic [source] topic_pattern
//   matches (topics created later are picked up by the next poll). A listed
//   topic that does not exist is a warning each poll, not an error.
// - The source table of a topic is [source] topic_tables' entry, else the
//   topic name's last dot-separated segment ("dbserver1.inventory.customers"
//   -> "customers"); a topic of [source] topic_routes goes to each of its
//   tables, read once per table as the stream "<topic>@<table>"
//   (kafka_topic_routes.h), with its own positions.
// - Per partition the next range starts one past the last offset the ledger
//   holds for it (SetStreamEnds, which the pipeline calls before every
//   Discover); a partition floe has never read starts at its oldest retained
//   offset ([source] starting_offsets = "earliest", the default) or at its
//   end when it was first seen ("latest"). Ranges run to the high watermark
//   at Discover time (so floe run --once stops there) in pieces of at most
//   [trigger] max_records_per_batch records.
// - Offsets the broker dropped before floe read them (retention) are a
//   warning naming them; reading goes on from the oldest retained offset. A
//   partition whose end is below what floe already read (the topic was
//   deleted and re-created) stops its table with an error: floe will not
//   guess which records are new.
// - Broker errors (metadata, watermarks) are the returned error, retryable
//   when librdkafka says so; a continuous run logs them and polls again.
// Not thread-safe (the pipeline's loop calls it).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "ingest/discovery/discovery.h"
#include "stream/kafka/kafka_consumer.h"

namespace floe::ingest {

// What a range's SourceUnit::size counts per record (its real size is known
// only once fetched); the pipeline plans stream batches by it.
inline constexpr int64_t kEstimatedRecordBytes = 1024;

struct PartitionWatermarks;
struct KafkaTableStream;  // kafka_topic_routes.h

class KafkaDiscovery final : public Discovery {
 public:
  static Result<std::unique_ptr<KafkaDiscovery>> Open(const SourceConfig& config,
                                                      int64_t max_records_per_unit,
                                                      const std::string& client_id);
  Result<DiscoveryResult> Discover(const std::map<std::string, TableWatermark>& watermarks,
                                   int64_t now_ms) override;
  void SetStreamEnds(const std::map<std::pair<std::string, std::string>, std::string>& ends) override {
    ends_ = ends;
  }
  bool finds_streams() const override { return true; }

 private:
  KafkaDiscovery(const SourceConfig& config, int64_t max_records_per_unit,
                 std::unique_ptr<kafka::KafkaConsumer> consumer);
  // The ranges of one partition for one of its topic's tables, and its marks.
  void DiscoverRanges(const PartitionWatermarks& mark, const KafkaTableStream& routed, int64_t now_ms,
                      DiscoveryResult* result);

  const KafkaSourceConfig config_;
  const bool start_at_latest_;
  const int64_t max_records_per_unit_;
  std::unique_ptr<kafka::KafkaConsumer> consumer_;
  std::optional<kafka::TopicPattern> pattern_;
  std::map<std::pair<std::string, std::string>, std::string> ends_;
  // starting_offsets = "latest": where partitions never read started, when first seen.
  std::map<std::pair<std::string, std::string>, int64_t> latest_starts_;
  // Retention gaps already reported (so each is reported once).
  std::set<std::pair<std::string, std::string>> reported_gaps_;
};

// Every partition of a Kafka source's topics with its watermarks, sorted by
// topic and partition (`floe files --lag`). Opens its own short-lived client.
struct PartitionWatermarks {
  std::string topic;
  int32_t partition = 0;
  int64_t low = 0;
  int64_t high = 0;
};
Result<std::vector<PartitionWatermarks>> KafkaWatermarks(const SourceConfig& config);

// The source table a topic's records go to (see the contract).
std::string KafkaTableOf(const KafkaSourceConfig& config, const std::string& topic);

}  // namespace floe::ingest
