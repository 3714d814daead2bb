// JsonDocumentDecoder: a sequence of JSON documents (one object each: the
// lines of a JSON-lines file, the elements of a top-level array, or stream
// record payloads) -> one RecordBatch. It knows nothing about files.
//
// Contract:
// - Each document must be one JSON object; each becomes one row. Its members
//   are matched to columns by exact name. Nested objects become structs and
//   arrays lists (or, with nested_as_json, JSON text strings).
// - Columns of `known` keep their types: values decode into them (a binary
//   column takes a base64 string; a date "YYYY-MM-DD" or an integer day
//   count; a time "HH:MM:SS[.f]" or an integer in its unit; a timestamp an
//   ISO string or an integer in its unit; a decimal a number or a string
//   holding one; a double also "NaN"/"Infinity"/"-Infinity"; a string column
//   takes any value: strings as they are, other values as their JSON text; a
//   map an object whose keys convert to the key type). A field absent from a
//   document is null in its row.
// - Members outside `known` (at any depth) are new fields: with
//   infer_new_fields they are inferred over the whole batch (text_inference.h:
//   numbers by their literal, strings as dates/timestamps when they parse,
//   objects as structs, arrays as lists of the join of their elements, mixed
//   shapes as JSON text strings; schema_hints override; with
//   infer_column_types = false every new field is a string holding the
//   value's text) and appended after the known columns in the order they
//   first appear. Without infer_new_fields they are rescued.
// - A value that does not fit its column (wrong JSON type, a number out of
//   range or with more fraction digits than the decimal scale: never rounded)
//   is null in its column and goes to `_rescued_data` under its path
//   ("amount", "address.zip", "items[2].price") with its original JSON text;
//   a repeated member rescues the later occurrences. A broken document
//   (invalid JSON, not an object, too deep, too large) is rescued whole
//   (its text and the parser's error) with every column null; with
//   kFail either is an error naming the unit, the line or record, and the
//   field or the byte column. rescued_data.h describes the column; it is
//   appended last, only when something was rescued (or always, with
//   always_rescued_column). A `_rescued_data` field in `known` is that
//   column, not a field to decode.
// - `columns` (when set) selects the top-level columns to produce, in that
//   order (names from known, plus `_rescued_data`); other members are still
//   validated (a broken document is broken whatever is selected) but not
//   built, and new fields are not inferred.
// - Memory: the batch being built, plus the raw text of new-field values
//   (until Finish) and one padded copy of a document that arrives without
//   SIMDJSON_PADDING readable bytes after it. A document larger than
//   max_document_bytes is broken.
// Not thread-safe; one decoder per thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"
#include "common/status.h"
#include "formats/rescued_data.h"
#include "formats/schema_hints.h"
#include "formats/text_inference.h"

namespace floe::json {

using formats::BadDataPolicy;

struct JsonDecodeOptions {
  formats::TypeInferenceOptions inference;
  formats::SchemaHints schema_hints;
  Schema known;
  bool nested_as_json = false;
  bool infer_new_fields = true;
  BadDataPolicy on_mismatch = BadDataPolicy::kRescue;  // a value that does not fit its column
  BadDataPolicy on_broken = BadDataPolicy::kRescue;    // a document that is not a valid JSON object
  formats::RescueLocation location;                    // unit name and keys for messages and rescues
  bool always_rescued_column = false;
  std::optional<std::vector<std::string>> columns;
  int max_depth = 64;
  int64_t max_document_bytes = int64_t{64} << 20;
  // Flat documents (json_flat_object.h) skip simdjson; false sends every
  // document through it (tests compare the two: the rows must be equal).
  bool flat_fast_path = true;
};

// The number of bytes after a document that must be readable for the
// decoder to parse it in place (simdjson's padding).
size_t JsonDocumentPadding();

class JsonDocumentDecoder {
 public:
  static Result<std::unique_ptr<JsonDocumentDecoder>> Make(JsonDecodeOptions options);
  ~JsonDocumentDecoder();

  // Decodes one document as the next row. `position` is its line or record
  // number (1-based) for messages and _rescued_data. `readable_after` is how
  // many bytes after the document may be read (0 = none; the document is
  // then copied into padded memory first).
  Status Add(std::string_view document, int64_t position, size_t readable_after = 0);
  // Decodes each record of `lines`, JSON-lines text cut as json_records.h
  // says (FirstJsonLine), as the next rows, the same rows as Add of each
  // record. `first_line` is the number of its first line; *next_line gets
  // the number after its last. `readable_after` as for Add, after `lines`.
  // A flat record (json_flat_object.h) is scanned once: the scan that
  // decodes it also finds its line's end.
  Status AddLines(std::string_view lines, int64_t first_line, size_t readable_after, int64_t* next_line);

  int64_t num_rows() const;
  // The rows added since the last Finish (see the contract for the column
  // order). The decoder is then empty and ready for the next batch with
  // the same options.
  Result<RecordBatch> Finish();

  class Impl;

 private:
  explicit JsonDocumentDecoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace floe::json
