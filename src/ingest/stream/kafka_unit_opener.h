// KafkaUnitOpener: opens a stream-range unit of a Kafka source — records
// [first, last] of topic[partition], fetched from the brokers at exactly
// those offsets — as rows (kafka_json_records.h), so the change convention,
// merge and writers read it like any file.
//
// Contract (see UnitOpener):
// - Record values are JSON (kafka_json_records.h) or, with [source] format =
//   "avro", Confluent Avro whose writer schemas come from [source]
//   schema_registry (kafka_avro_records.h). A registry that cannot answer
//   fails the range with a retryable error, and for 30 s after it the other
//   ranges fail at once with the same error (the batch is redone later).
// - The records come from the offsets the unit names, never from a consumer
//   group position; opening the same unit twice reads the same records (a
//   range's decoded rows are kept for the second pass, up to a quarter of
//   [performance] memory_budget, else fetched again).
// - A broker that returns nothing for the range for 60 s (down, no leader)
//   is a retryable error: the batch fails and is redone, the unit is never
//   quarantined for it. Offsets the broker no longer holds (retention ran
//   before floe read them) are an error naming the topic, partition and
//   offsets: the unit is quarantined, loudly, instead of being read short.
// - With [source] on_bad_record = "fail" a record that cannot become a row
//   fails the batch (retryable: it stops the table until the record is dealt
//   with); "skip" drops it, counted; "dead_letter" (default) keeps it for
//   <table>__dead_letter.
// Thread-safe: one mutex guards the consumer and the cache.
#pragma once

#include <atomic>
#include <chrono>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "formats/connect/connect_schema.h"
#include "ingest/config/config.h"
#include "ingest/format/unit_opener.h"
#include "ingest/stream/kafka_avro_records.h"
#include "ingest/stream/kafka_json_records.h"
#include "stream/kafka/kafka_consumer.h"

namespace floe::ingest {

class KafkaUnitOpener final : public UnitOpener {
 public:
  static Result<std::shared_ptr<KafkaUnitOpener>> Open(const SourceConfig& config,
                                                       const std::string& client_id,
                                                       int64_t memory_budget_bytes);
  Result<std::unique_ptr<formats::ChunkedReader>> Open(const SourceUnit& unit,
                                                       const Schema& table_columns) override;
  Result<DeadLetters> DeadLettersOf(const SourceUnit& unit, const Schema& table_columns) override;
  // Fetches the batch's ranges together (all their partitions assigned at
  // once), keeping their records, up to the cache size, for Open.
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

 private:
  KafkaUnitOpener(std::unique_ptr<kafka::KafkaConsumer> consumer, kafka::KafkaConsumerOptions client,
                  KafkaJsonOptions options, StreamBadRecordPolicy policy, int64_t cache_bytes);
  Result<std::shared_ptr<const DecodedRecords>> Decoded(const SourceUnit& unit, const Schema& table_columns);
  // Records of `units` (ranges of distinct partitions), fetched together.
  Result<std::vector<std::vector<StreamRecord>>> FetchLocked(const std::vector<const SourceUnit*>& units);

  std::mutex mutex_;
  std::unique_ptr<kafka::KafkaConsumer> consumer_;
  const kafka::KafkaConsumerOptions client_;  // to open the consumer again
  const KafkaJsonOptions options_;
  std::atomic<const std::atomic<bool>*> stop_{nullptr};
  const StreamBadRecordPolicy policy_;
  const int64_t cache_bytes_;
  connect::ConnectSchemaCache schemas_;
  // format = "avro": the writer schemas' registry (thread-safe); null for JSON values.
  std::unique_ptr<schema_registry::SchemaRegistryClient> registry_;
  // The registry's last retryable failure and until when it stands: the
  // other units of the batch fail at once with it instead of each waiting
  // out the client's retries (64 partitions would wait 64 times).
  std::mutex registry_mutex_;
  Status registry_failure_;
  std::chrono::steady_clock::time_point registry_failure_until_;
  Result<std::shared_ptr<const schema_registry::RegisteredSchema>> LookupSchema(int32_t id);
  // Decoded ranges by unit uri, oldest first, with their approximate size.
  std::list<std::pair<std::string, std::shared_ptr<const DecodedRecords>>> cache_;
  int64_t cached_bytes_ = 0;
  // Records Prepare fetched, by unit uri, until a unit's first decode takes them.
  std::map<std::string, std::vector<StreamRecord>> prefetched_;
  int64_t prefetched_bytes_ = 0;
};

// A Kafka offset as a ledger position holds it (decimal, no sign), or
// nullopt when it is not one that fits an int64.
std::optional<int64_t> ParseKafkaOffset(const std::string& text);

// Whether [source] uri names a Kafka source ("kafka://...").
bool IsKafkaUri(const std::string& uri);

// librdkafka options for a Kafka source: bootstrap servers, [source.kafka].
kafka::KafkaConsumerOptions KafkaOptionsOf(const SourceConfig& config, const std::string& client_id);

}  // namespace floe::ingest
