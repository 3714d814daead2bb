// Text rendering of column values: the JSON-lines contract shared by
// `floe parquet cat` and `floe table scan`, and the CSV form.
//
// JSON contract: null -> null; bool; every integer type -> exact JSON
// integer; float/double/float16 -> shortest round-trip number, NaN and
// infinities as the strings "NaN", "Infinity", "-Infinity"; decimal -> string
// with exactly `scale` fraction digits; date -> "YYYY-MM-DD"; time ->
// "HH:MM:SS.fff" (3/6/9 digits for ms/us/ns); timestamp ->
// "YYYY-MM-DDTHH:MM:SS.fff[fff[fff]]" plus "Z" when adjusted to UTC; string ->
// JSON string (control characters escaped, invalid UTF-8 bytes as \uFFFD);
// binary/fixed -> lowercase hex string; uuid -> 8-4-4-4-12 hex; list ->
// array; map -> array of {"key":..,"value":..}; struct -> object.
// Years outside 0..9999 keep at least 4 digits with a leading '-' if negative.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "columnar/column.h"

namespace floe {

// Appends the JSON text of slot `row` of `column`.
void AppendJsonValue(const Column& column, int64_t row, std::string* out);

// Appends {"<field>": <value>, ...} for row `row` of `batch` (no newline).
void AppendJsonRow(const RecordBatch& batch, int64_t row, std::string* out);

// CSV (RFC 4180): header line of the field names, and one line per row;
// null is an empty field, scalars are their text (strings unescaped), nested
// values their JSON text; fields are quoted when they contain , " CR or LF.
void AppendCsvHeader(const Schema& schema, std::string* out);
void AppendCsvRow(const RecordBatch& batch, int64_t row, std::string* out);

// Building blocks, exposed for tests and other renderers.
// A JSON string literal of `text` (quotes included), escaped as above.
void AppendJsonString(std::string_view text, std::string* out);
std::string FormatDate(int32_t days_since_epoch);
std::string FormatTimestamp(int64_t value, TimeUnit unit, bool utc);
std::string FormatTimeOfDay(int64_t value, TimeUnit unit);
std::string FormatDecimal(__int128 unscaled, int32_t scale);
// IEEE 754 binary16 bits (kFloat16 values) as a float, exactly.
float HalfToFloat(uint16_t bits);

}  // namespace floe
