// StreamJsonRecords: the format axis of the source model for stream records
// (Kafka, Kinesis) whose values are JSON — one range of one partition or
// shard becomes one RecordBatch of rows, plus the records that could not
// become rows.
//
// Contract:
// - A null value (a tombstone, which follows a Debezium delete) makes no row.
// - A value in the Kafka Connect JSON converter's envelope
//   {"schema": {...}, "payload": {...}} (schemas.enable=true) becomes its
//   payload, typed exactly by its Connect schema (formats/connect: Decimal
//   bytes with their scale, io.debezium.time.* in their units, Uuid, ...). A
//   payload of null makes no row (the converter's form of a tombstone).
// - Any other JSON object is one row whose types are inferred like a JSON
//   lines file's ([source] infer_column_types, schema_hints; the table's
//   columns hint their own types), with values that do not fit rescued into
//   `_rescued_data`.
// - When the records of one range carry several schemas (a column added or
//   widened mid-stream), the batch has their union (kafka_records.h:
//   AssembleDecodedRecords, as every record format). A record whose schema
//   cannot join the union is a dead letter, as is a record that is not a JSON
//   object, a broken envelope, a schema that does not parse, and a payload
//   value its own schema cannot represent; each dead letter keeps its raw
//   value and says what was wrong, naming the record (RecordOrigin).
// - With `metadata_column`, each row gets the origin's struct column
//   (`kafka`: topic, partition, offset, timestamp, key; `kinesis`: stream,
//   shard, sequence number, ...): [merge] order_by can name "kafka.offset",
//   and append tables keep where each row came from.
// Rows are in record order. Thread-safe (each call builds its own
// decoders; `schemas` is a thread-safe cache).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/connect/connect_schema.h"
#include "ingest/format/text_format_options.h"
#include "ingest/stream/stream_records.h"

namespace floe::ingest {

struct StreamJsonOptions {
  TextFormatOptions text;
  bool metadata_column = false;
};

// `records` of one partition or shard (`origin`), in order. `table_columns`:
// the target table's primitive top-level columns, which hint inferred types
// (see FileFormat::Open). `schemas` caches parsed Connect schemas across calls.
Result<DecodedRecords> DecodeStreamJsonRecords(const RecordOrigin& origin,
                                               const std::vector<StreamRecord>& records,
                                               const Schema& table_columns, const StreamJsonOptions& options,
                                               connect::ConnectSchemaCache& schemas);

}  // namespace floe::ingest
