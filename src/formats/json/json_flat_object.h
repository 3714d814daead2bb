// The common shape of a change record in JSON lines: one object whose
// members are all scalars, with no escape sequence in any key or string.
// JsonDocumentDecoder reads such a document in one pass over its bytes and
// gives everything else (nested values, escapes, anything odd) to simdjson.
//
// Contract: ScanFlatJsonObject returns true only for a document that is one
// RFC 8259 JSON object (whitespace around tokens allowed) whose member keys
// and string values contain no backslash and no control character, whose
// values are strings, numbers (the RFC grammar), true, false or null, and
// whose bytes are valid UTF-8; then *members holds every member in order
// (duplicates included). Anything else returns false with *members
// unspecified: the caller parses the document with simdjson, which decides
// whether it is valid. So a true result never accepts invalid JSON, and the
// caller's decoding of both paths must agree (the decoder routes both
// through one scalar conversion; the fuzz target compares them).
// Pure function; *members is reused.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace floe::json {

enum class JsonScalarKind : uint8_t { kString, kNumber, kTrue, kFalse, kNull };

struct JsonFlatMember {
  std::string_view key;  // without quotes
  int32_t key_index;     // the index of the key in `expected`, or -1
  JsonScalarKind kind;
  std::string_view text;  // a string's content (no quotes), or the literal's text
  const char* raw;        // where the value's JSON text starts (a string's opening quote)
  // A number without exponent of at most 18 digits (both sides of the point
  // together), read while scanning: `digits` is all its digits as one signed
  // integer ("-12.50" -> -1250) and `fraction_digits` how many follow the point.
  bool short_number;
  int8_t fraction_digits;
  int64_t digits;
};

// `expected` (optional) lists the keys documents usually have, in their
// usual order: a key equal to the one after the previous member's is matched
// without being scanned (its bytes are compared with the name, which must be
// free of quotes, backslashes and control characters, and valid UTF-8), and
// every member's key_index says which expected key it is.
bool ScanFlatJsonObject(std::string_view document, const std::vector<std::string>* expected,
                        std::vector<JsonFlatMember>* members);

}  // namespace floe::json
