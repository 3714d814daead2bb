// StreamAvroRecords: the format axis of the source model for stream records
// (Kafka, Kinesis) in the Confluent wire format (a magic byte, the writer
// schema's registry id, then one Avro datum) — what Confluent's and
// Apicurio's Avro converters and Debezium's Avro topics write. One range of
// one partition or shard becomes one RecordBatch of rows, plus the records
// that could not become rows.
//
// Contract:
// - A null value (a tombstone) makes no row.
// - The writer schema of each record is looked up by its id (`lookup`, the
//   schema registry; one request per id, which the client caches); its
//   Connect schema (connect_avro_schema.h: connect.name, connect.type and
//   Avro logical types) types the row exactly, as the JSON converter's
//   envelope does (Decimal, io.debezium.time.*, Uuid, ...). The writer
//   schema must be an Avro record.
// - Dead letters (the stream goes on): a value that is not Confluent-framed,
//   a schema id the registry does not know (NotFound), a schema that is not
//   AVRO or not a record, a datum that does not decode against its writer
//   schema (or leaves bytes over), and a value its Connect schema cannot
//   represent. Each keeps its raw value and says what was wrong.
// - A registry that cannot be reached (a retryable error), or refuses floe
//   (401/403), is the returned error: the batch is redone later, no record
//   is set aside for it.
// - Several writer schemas in one range (a column added mid-stream) join as
//   every record format's do (stream_records.h).
// Rows are in record order. Thread-safe when `lookup` is.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "common/status.h"
#include "ingest/stream/stream_records.h"
#include "stream/schema_registry/schema_registry_client.h"

namespace floe::ingest {

// The registered schema of an id (SchemaRegistryClient::GetSchema).
using RegisteredSchemaLookup =
    std::function<Result<std::shared_ptr<const schema_registry::RegisteredSchema>>(int32_t id)>;

Result<DecodedRecords> DecodeStreamAvroRecords(const RecordOrigin& origin,
                                               const std::vector<StreamRecord>& records,
                                               const RegisteredSchemaLookup& lookup, bool metadata_column);

}  // namespace floe::ingest
