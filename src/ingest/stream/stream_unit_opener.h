// StreamUnitOpener: what the unit openers of stream sources (Kafka,
// Kinesis) share — a range's records decoded into rows by the record format
// [source] format names (stream_json_records.h, or stream_avro_records.h
// with the schema registry), dead letters by [source] on_bad_record, and
// the decoded range kept for the batch's second pass. A source supplies
// the records of a unit (fetched from its service at exactly the unit's
// positions) and where they came from (its RecordOrigin).
//
// Contract (see UnitOpener):
// - Opening the same unit twice in a batch gives the same rows: a range's
//   decoded rows are kept, up to `cache_bytes` (a quarter of [performance]
//   memory_budget), else its records are fetched again (Records()).
// - A registry that cannot answer fails the range with a retryable error,
//   and for 30 s after it the other ranges fail at once with the same error
//   (the batch is redone later) instead of each waiting out the client's
//   retries.
// - With `record_key_column` (Debezium from Kafka without [merge] keys),
//   each record's key is decoded by the same format as its value (JSON with
//   or without the Connect envelope, or Confluent Avro through the
//   registry) and every row gets it as the struct column `__record_key`
//   (kRecordKeyColumn); a record whose key does not decode, is not an
//   object/record or has a null payload is a dead letter saying so; so is a
//   record that changes a row (its change event has an after or before
//   image) without a key, or whose key has a field that image lacks or holds
//   another value in. A keyless record changing no row (a truncate) gets a
//   null key; tombstones are skipped whatever their key.
// - A routed range (RouteOf) keeps only the records that name its table,
//   before anything is decoded (RouteRecords).
// - [source] on_bad_record = "fail": a record that cannot become a row fails
//   the batch (retryable: the table stops until the record is dealt with);
//   "skip" drops it, counted; "dead_letter" (default) keeps it for
//   <table>__dead_letter.
// Thread-safe: decoding runs outside the locks, so several units of a batch
// decode at once on its workers.
#pragma once

#include <chrono>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "formats/connect/connect_schema.h"
#include "ingest/config/config.h"
#include "ingest/format/unit_opener.h"
#include "ingest/stream/kafka_topic_routes.h"
#include "ingest/stream/stream_avro_records.h"
#include "ingest/stream/stream_json_records.h"
#include "stream/schema_registry/schema_registry_client.h"

namespace floe::ingest {

// How a stream source's records become rows ([source] format, changes,
// on_bad_record, the metadata column, schema_registry).
struct StreamDecoding {
  StreamJsonOptions json;
  StreamBadRecordPolicy policy = StreamBadRecordPolicy::kDeadLetter;
  int64_t cache_bytes = 0;
  bool record_key_column = false;  // StreamSourceConfig::record_key_column
  // format = "avro": the writer schemas' registry (thread-safe); null for JSON values.
  std::unique_ptr<schema_registry::SchemaRegistryClient> registry;
};
// From [source]: the metadata column is kept with [source] <kind>_metadata
// and always read for changes = "debezium" (its default ordering reads it).
Result<StreamDecoding> MakeStreamDecoding(const SourceConfig& config, int64_t memory_budget_bytes);

class StreamUnitOpener : public UnitOpener {
 public:
  Result<std::unique_ptr<formats::ChunkedReader>> Open(const SourceUnit& unit,
                                                       const Schema& table_columns) final;
  Result<DeadLetters> DeadLettersOf(const SourceUnit& unit, const Schema& table_columns) final;

 protected:
  explicit StreamUnitOpener(StreamDecoding decoding) : decoding_(std::move(decoding)) {}

  // The records of `unit`, in position order. Thread-safe.
  virtual Result<std::vector<StreamRecord>> Records(const SourceUnit& unit) = 0;
  // Where `unit`'s records come from; an error when `unit` is not one of
  // this source's ranges.
  virtual Result<std::unique_ptr<RecordOrigin>> OriginOf(const SourceUnit& unit) const = 0;
  // How `unit`'s records are picked by a field before decoding (a routed
  // Kafka topic, kafka_topic_routes.h); nullopt: all of them.
  virtual std::optional<RecordRoute> RouteOf(const SourceUnit& unit) const {
    (void)unit;
    return std::nullopt;
  }

 private:
  Result<std::shared_ptr<const DecodedRecords>> Decoded(const SourceUnit& unit, const Schema& table_columns);
  // `records` decoded by [source] format; `metadata_column` as StreamJsonOptions.
  Result<DecodedRecords> DecodeRecords(const RecordOrigin& origin, const std::vector<StreamRecord>& records,
                                       const Schema& table_columns, bool metadata_column);
  // See the contract: the records' keys decoded; a record whose key cannot
  // be one gets its StreamRecord::error (so it becomes a dead letter), and
  // `key_row_of` the row of `keys` holding each record's key (-1: none).
  Result<DecodedRecords> DecodeRecordKeys(const RecordOrigin& origin, std::vector<StreamRecord>* records,
                                          std::vector<int64_t>* key_row_of);
  Result<std::shared_ptr<const schema_registry::RegisteredSchema>> LookupSchema(int32_t id);

  const StreamDecoding decoding_;
  connect::ConnectSchemaCache schemas_;
  // The registry's last retryable failure and until when it stands.
  std::mutex registry_mutex_;
  Status registry_failure_;
  std::chrono::steady_clock::time_point registry_failure_until_;
  // Decoded ranges by unit uri and table columns, oldest first, with their approximate size.
  std::mutex cache_mutex_;
  std::list<std::pair<std::string, std::shared_ptr<const DecodedRecords>>> cache_;
  int64_t cached_bytes_ = 0;
};

// The records' key and value bytes.
int64_t RecordBytes(const std::vector<StreamRecord>& records);

}  // namespace floe::ingest
