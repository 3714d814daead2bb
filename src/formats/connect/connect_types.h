// The exact floe type of a Kafka Connect schema: what a Debezium column
// becomes in an Iceberg table.
//
// Contract (physical types): int8..int64 -> int8..int64, float -> float32,
// double -> float64, boolean -> bool, string -> string, bytes -> binary,
// array -> list, map -> map, struct -> struct; a field is nullable exactly
// when its schema is optional.
// Semantic types (ConnectSchema::semantic) give the exact type of what the
// value means:
//   Decimal (bytes, "scale", "connect.decimal.precision" or 38)  decimal(p, s)
//   Date, io.debezium.time.Date (int32 days)                     date
//   Time, io.debezium.time.Time (int32 ms)                       time[ms]
//   io.debezium.time.MicroTime, Avro time-micros (int64)         time[us]
//   io.debezium.time.NanoTime (int64)                            time[ns]
//   Timestamp (int64 ms, an instant)                             timestamp[ms, utc]
//   io.debezium.time.Timestamp (int64 ms, no zone)               timestamp[ms]
//   io.debezium.time.MicroTimestamp (int64 us, no zone)          timestamp[us]
//   io.debezium.time.NanoTimestamp (int64 ns, no zone)           timestamp[ns]
//   Avro timestamp-micros / local-timestamp-millis / -micros     timestamp[us, utc] / [ms] / [us]
//   io.debezium.time.ZonedTimestamp (ISO-8601 string)            timestamp[us, utc]
//   io.debezium.time.ZonedTime (ISO-8601 string)                 time[us], in UTC
//   io.debezium.data.VariableScaleDecimal (struct scale, value)  string: the exact decimal
//       text, or decimal(38, s) with ConnectTypeOptions::variable_scale_decimal_scale
//   io.debezium.data.Json                                        string (JSON annotation)
//   io.debezium.data.Enum                                        string (enum annotation)
//   io.debezium.data.EnumSet, Xml                                string
//   io.debezium.data.Uuid, Avro uuid                             uuid
//   io.debezium.data.Bits (bytes)                                binary
//   io.debezium.time.Year (int32), MicroDuration (int64 us)      int32, int64
// A semantic type on the wrong physical type (io.debezium.time.Date on a
// string), a Decimal without a scale, a negative scale or a precision above
// 38 is SchemaMismatch naming the path. Pure functions; thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "columnar/types.h"
#include "common/status.h"
#include "formats/connect/connect_schema.h"

namespace floe::connect {

struct ConnectTypeOptions {
  // io.debezium.data.VariableScaleDecimal as decimal(38, this scale) instead
  // of its exact text; values with more fraction digits (other than zeros)
  // or more than 38 digits are value errors.
  std::optional<int32_t> variable_scale_decimal_scale;
};

// `path` names the schema in errors ("after.balance").
Result<DataType> FloeTypeOf(const ConnectSchema& schema, std::string_view path,
                            const ConnectTypeOptions& options = {});
Result<Field> FloeFieldOf(const std::string& name, const ConnectSchema& schema, std::string_view path,
                          const ConnectTypeOptions& options = {});
// The members of a struct schema as a floe Schema (a row image's columns).
Result<Schema> FloeSchemaOf(const ConnectSchema& struct_schema, std::string_view path,
                            const ConnectTypeOptions& options = {});

// A Decimal schema's scale and precision (precision 38 when not given).
Result<std::pair<int32_t, int32_t>> DecimalPrecisionAndScale(const ConnectSchema& schema,
                                                             std::string_view path);

}  // namespace floe::connect
