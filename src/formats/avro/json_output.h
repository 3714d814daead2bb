// Renders Avro values as JSON text (the output of `floe avro cat`).
//
// Contract: one JSON value per datum, without newlines. Records become
// objects keyed by field name; unions are unwrapped to their value; enums are
// their symbol; maps are objects; int and long are exact JSON integers; float
// and double use the shortest text that round-trips (floats as 32-bit), with
// NaN and infinities as the strings "NaN", "Infinity", "-Infinity"; bytes and
// fixed are lowercase hex strings; invalid UTF-8 in strings becomes U+FFFD.
// A value that does not match the schema renders as null at that spot.
#pragma once

#include <string>

#include "formats/avro/schema.h"
#include "formats/avro/value.h"

namespace floe::avro {

std::string AvroValueToJson(const AvroNode& schema, const AvroValue& value);
void AppendAvroValueJson(const AvroNode& schema, const AvroValue& value, std::string* out);
// Appends `text` as a JSON string literal.
void AppendJsonString(std::string_view text, std::string* out);

}  // namespace floe::avro
