// The Connect schema of an Avro schema, as Confluent's Avro converter
// (io.confluent.connect.avro.AvroData) writes Connect records to Avro and
// Debezium's Avro topics carry them.
//
// Contract: ConnectSchemaFromAvro maps an Avro node to the ConnectSchema the
// converter started from: ["null", T] (either order) is T made optional;
// int is int32 unless "connect.type" says int8 or int16; long int64; float,
// double, boolean, string, bytes as named; fixed and bytes are bytes; enum
// is string; array is array, and an array of records named
// io.confluent.connect.avro.MapEntry (fields key, value) is a map with
// non-string keys; map is a map with string keys; record is struct. The
// schema name is "connect.name", else a record's full name; "connect.version",
// "connect.doc" and the string values of "connect.parameters" are kept.
// Avro logical types without a connect.name give the semantic type: decimal
// (scale and precision become the parameters "scale" and
// "connect.decimal.precision"), date, time-millis, timestamp-millis as
// Connect's logical types; time-micros, timestamp-micros,
// local-timestamp-millis/micros and uuid as the kAvro* semantic types. Other
// unions, and null alone, are NotSupported naming the path. Thread-safe.
#pragma once

#include "common/status.h"
#include "formats/avro/schema.h"
#include "formats/connect/connect_schema.h"

namespace floe::connect {

Result<ConnectSchema> ConnectSchemaFromAvro(const avro::AvroNode& node);

}  // namespace floe::connect
