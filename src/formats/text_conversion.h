// Text -> typed column values: the one conversion CSV cells and JSON strings
// share once a column's type is known (inferred, hinted or given).
//
// Contract: Append either appends exactly the value the text means to the
// column, or appends nothing and returns false (the caller rescues the
// text). Nothing is rounded, truncated or clamped:
// - bool: true/false/1/0 (any case);
// - integers: number_text.h's integers, range-checked for the width;
// - float/double: number_text.h's doubles (overflow or underflow does not fit);
// - decimal(p,s): any decimal literal whose value fits p and s exactly;
// - date: the date format (nullptr = ISO 8601);
// - time: ISO "HH:MM[:SS[.f]]" within the unit;
// - timestamp: the timestamp format, else the date format (midnight); a
//   zone converts to UTC for a UTC column and does not fit a local one; a
//   text without zone is taken as UTC by a UTC column;
// - string: the text as is; binary and fixed: standard base64 (padding
//   optional; fixed needs exactly its width); uuid: 8-4-4-4-12 hex or 32 hex
//   digits.
// Nested types have no text form (Make: NotSupported). A converter is
// immutable and may be shared between threads; Append writes only `column`.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/text_inference.h"

namespace floe::formats {

class TextConverter {
 public:
  static Result<TextConverter> Make(const DataType& type, TextInference::Formats formats = {});

  bool Append(std::string_view text, Column* column) const;

  const DataType& type() const { return type_; }

 private:
  TextConverter(DataType type, TextInference::Formats formats) : type_(std::move(type)), formats_(formats) {}
  bool ParseTimestamp(std::string_view text, int64_t* out) const;

  DataType type_;
  TextInference::Formats formats_;
};

// Standard base64 (RFC 4648, '+' '/', '=' padding optional) into *out;
// false on any other character or an impossible length.
bool DecodeBase64(std::string_view text, std::string* out);
// "8-4-4-4-12" or 32 hex digits into 16 big-endian bytes.
bool ParseUuidText(std::string_view text, uint8_t out[16]);

}  // namespace floe::formats
