// KafkaUnitOpener: opens a stream-range unit of a Kafka source — records
// [first, last] of topic[partition], fetched from the brokers at exactly
// those offsets — as rows, so the change convention, merge and writers read
// it like any file.
//
// Contract (see UnitOpener and StreamUnitOpener, which decodes the records
// and handles dead letters, the registry and the second pass):
// - The records come from the offsets the unit names, never from a consumer
//   group position; opening the same unit twice reads the same records. A
//   range of a routed table (stream "<topic>@<table>") reads its topic and
//   keeps the records that name its table (kafka_topic_routes.h).
// - A broker that returns nothing for the range for 60 s (down, no leader)
//   is a retryable error: the batch fails and is redone, the unit is never
//   quarantined for it. Offsets the broker no longer holds (retention ran
//   before floe read them) are an error naming the topic, partition and
//   offsets: the unit is quarantined, loudly, instead of being read short.
// Thread-safe: one mutex guards the consumer and the prefetched records.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "ingest/config/config.h"
#include "ingest/stream/stream_unit_opener.h"
#include "stream/kafka/kafka_consumer.h"

namespace floe::ingest {

class KafkaUnitOpener final : public StreamUnitOpener {
 public:
  static Result<std::shared_ptr<KafkaUnitOpener>> Open(const SourceConfig& config,
                                                       const std::string& client_id,
                                                       int64_t memory_budget_bytes);
  // Fetches the batch's ranges together (all their partitions assigned at
  // once), keeping their records, up to half the decoded-range cache, for Open.
  Status Prepare(const std::vector<SourceUnit>& batch) override;
  // Commits the group offsets one past each partition's last range of the
  // batch ([source] group_id), so lag tools see floe's progress.
  Status Committed(const std::vector<SourceUnit>& batch) override;

  // `stop` (the pipeline's stop flag, outliving the opener's use) makes a
  // fetch in progress give up at once with a retryable error, so SIGTERM
  // ends a run promptly even while the brokers are away.
  void SetStopFlag(const std::atomic<bool>* stop) override { stop_ = stop; }

  // Fetches records [first, last] of the unit's partition (tests, tools).
  Result<std::vector<StreamRecord>> Fetch(const SourceUnit& unit);

 protected:
  Result<std::vector<StreamRecord>> Records(const SourceUnit& unit) override;
  Result<std::unique_ptr<RecordOrigin>> OriginOf(const SourceUnit& unit) const override;
  std::optional<RecordRoute> RouteOf(const SourceUnit& unit) const override;

 private:
  KafkaUnitOpener(std::unique_ptr<kafka::KafkaConsumer> consumer, kafka::KafkaConsumerOptions client,
                  StreamDecoding decoding, int64_t prefetch_bytes, KafkaSourceConfig source);
  // Records of `units` (ranges of distinct partitions), fetched together.
  Result<std::vector<std::vector<StreamRecord>>> FetchLocked(const std::vector<const SourceUnit*>& units);

  std::mutex mutex_;
  std::unique_ptr<kafka::KafkaConsumer> consumer_;
  const kafka::KafkaConsumerOptions client_;  // to open the consumer again
  const int64_t prefetch_bytes_;
  const KafkaSourceConfig source_;  // its topic_routes
  std::atomic<const std::atomic<bool>*> stop_{nullptr};
  // Records Prepare fetched, by unit uri, until a unit's first decode takes them.
  std::map<std::string, std::vector<StreamRecord>> prefetched_;
};

// A Kafka offset as a ledger position holds it (decimal, no sign), or
// nullopt when it is not one that fits an int64.
std::optional<int64_t> ParseKafkaOffset(const std::string& text);

// Whether [source] uri names a Kafka source ("kafka://...").
bool IsKafkaUri(const std::string& uri);

// librdkafka options for a Kafka source: bootstrap servers, [source.kafka].
kafka::KafkaConsumerOptions KafkaOptionsOf(const SourceConfig& config, const std::string& client_id);

}  // namespace floe::ingest
