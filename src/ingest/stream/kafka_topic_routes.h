// KafkaTopicRoutes: one Kafka topic split into several tables by a field of
// its records ([source] topic_routes; Debezium's topic-routing SMT, an
// outbox topic, events with a type field).
//
// Contract:
// - Each routed table reads the topic's partitions as if they were its own
//   topic: its ranges carry the stream name "<topic>@<table>"
//   (KafkaTableStreams; '@' is no topic character), so the ledger's ranges,
//   the ledger's and the table's stream ends (floe.stream-ends), leases and
//   lag are per table, and crash recovery is each table's own. Each routed
//   table therefore fetches the topic once.
// - RouteRecords keeps of a range the records whose field (a dot path into
//   the value: the Connect envelope's payload when the value is one, the
//   Debezium envelope or the event object) is a string naming the range's
//   table. The route's first table also keeps what no table claims, once:
//   a record whose field is missing, not a string, or names no table of the
//   route is a dead letter with an error naming the field and the value
//   ([source] on_unrouted = "dead_letter"), dropped ("skip") or fails the
//   batch ("fail", retryable: the table stops until it is dealt with);
//   records whose field cannot be read because the value does not decode
//   and records the source could not take apart go on to the decoder, which handles them by [source]
//   on_bad_record.
// - A registry that cannot be reached while an Avro record's writer schema
//   is looked up is the returned error (the batch is redone).
// Pure functions; thread-safe.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/status.h"
#include "ingest/config/config.h"
#include "ingest/stream/stream_avro_records.h"
#include "ingest/stream/stream_records.h"

namespace floe::ingest {

// One table a topic's records go to, and the stream name its ranges carry.
struct KafkaTableStream {
  std::string stream;
  std::string table;
};
// The topic's tables: its routed tables, else the one KafkaTableOf names.
std::vector<KafkaTableStream> KafkaTableStreams(const KafkaSourceConfig& config, const std::string& topic);
// The Kafka topic of a range's stream name ("<topic>@<table>" -> "<topic>").
std::string KafkaTopicOfStream(const std::string& stream);

// How one range of a routed topic picks its records.
struct RecordRoute {
  std::vector<std::string> field;
  std::string table;                // the range's table
  std::vector<std::string> tables;  // the route's tables
  UnroutedRecordPolicy on_unrouted = UnroutedRecordPolicy::kDeadLetter;
};
// The route of a range (by its stream name), or nullopt when its topic is not routed.
std::optional<RecordRoute> KafkaRouteOf(const KafkaSourceConfig& config, const std::string& stream,
                                        const std::string& table);

// What a record's route field holds.
struct RouteField {
  enum class Kind {
    kValue,        // `text` is the field's string
    kUnrouted,     // `text` says why no table claims it ("has no field source.table")
    kUndecodable,  // the value does not decode: the decoder says why
    kTombstone     // the Connect envelope's null payload: no table, no change
  };
  Kind kind = Kind::kValue;
  std::string text;
};
// Reads one record's route field.
using RouteFieldReader = std::function<Result<RouteField>(const StreamRecord& record)>;
// JSON values (with or without the Connect envelope).
RouteField JsonRouteField(std::string_view value, const std::vector<std::string>& field);
// Confluent Avro values; `lookup` finds writer schemas (its retryable errors are returned).
Result<RouteField> AvroRouteField(std::string_view value, const std::vector<std::string>& field,
                                  const RegisteredSchemaLookup& lookup);

// See the contract: `records` keeps the route's records, in order.
Status RouteRecords(const RecordRoute& route, const RecordOrigin& origin, const RouteFieldReader& read,
                    std::vector<StreamRecord>* records);

}  // namespace floe::ingest
