// Kafka Connect values to exact floe columns: the column-level half of the
// type mapping in connect_types.h.
//
// Contract: ConvertConnectColumn takes `raw`, a column decoded from record
// payloads (by the JSON or Avro record decoders) for a field whose Connect
// schema is `schema`, and returns it as FloeTypeOf(schema), the same length,
// with the same nulls. `raw` may hold a value's physical representation or
// already its logical type:
//   integers (int8..int64, float32/64) -> any integer type of the schema, or
//       the date/time/timestamp it means, range-checked (a time must lie
//       within one day); an integral float counts as its integer;
//   date/time/timestamp columns -> the schema's unit, converted exactly;
//   float32/float64/integers -> float32/float64;
//   binary, fixed, or base64 text (how the JSON converter writes bytes) ->
//       binary, Decimal (big-endian two's complement unscaled value), or
//       uuid (16 bytes);
//   decimal columns -> Decimal, rescaled exactly;
//   strings -> string, ZonedTimestamp/ZonedTime (offset_time_text.h), Uuid;
//   structs {scale, value} -> VariableScaleDecimal text or decimal(38, s)
//       (a value of more than 1,024 bytes or a scale beyond ±1000 is a value
//       error: a few bytes never become a huge text);
//   structs, lists and maps -> the same, members matched by name (a member
//       the raw struct lacks is all nulls), converted recursively.
// A value that cannot be represented exactly (out of range, more digits than
// the decimal holds, a bad date or UUID text, invalid base64) becomes null
// and is reported in ConvertedColumn::errors with its top-level row and a
// message naming the column path, the row and what was wrong — so the
// caller can send just those records to the dead-letter table. A raw column
// whose type cannot represent the schema at all is a SchemaMismatch Status.
// Required (non-optional) fields are not checked for nulls: Debezium's
// `before` image of a delete leaves non-key columns null. Pure functions;
// thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/connect/connect_schema.h"
#include "formats/connect/connect_types.h"

namespace floe::connect {

struct ValueError {
  int64_t row = 0;      // row of the converted (top-level) column
  std::string message;  // "<path>, row <row>: <what was wrong>"
};

struct ConvertedColumn {
  Column column;
  std::vector<ValueError> errors;  // in row order; those values are null in `column`
};

// `path` names the column in messages ("after.balance").
Result<ConvertedColumn> ConvertConnectColumn(const ConnectSchema& schema, Column raw, std::string_view path,
                                             const ConnectTypeOptions& options = {});

struct ConvertedBatch {
  RecordBatch batch;               // FloeSchemaOf(struct_schema)
  std::vector<ValueError> errors;  // of every column, sorted by row
};

// Every member of a struct schema, from a batch holding the raw members as
// top-level columns (matched by name; a missing member is all nulls).
Result<ConvertedBatch> ConvertConnectBatch(const ConnectSchema& struct_schema, RecordBatch raw,
                                           std::string_view path, const ConnectTypeOptions& options = {});

}  // namespace floe::connect
