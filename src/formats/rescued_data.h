// `_rescued_data`: where a reader puts what does not fit the schema instead
// of dropping it or rounding it.
//
// Contract: the column is a string holding, per row, one JSON object, or
// null when nothing of the row was rescued:
// - a value that does not fit its column: {"<field>": <original value>, ...}
//   (JSON values as they were written; CSV cells as JSON strings), its
//   column null in that row;
// - a broken record (invalid JSON, an unterminated quote, a wrong number of
//   fields, invalid UTF-8): {"_raw": "<its text>", "_error": "<why>"}, every
//   other column null;
// - both carry the location: {..., "<unit key>": "<unit>", "<position key>":
//   <line or record number>}; the keys default to "_file_path" (as Auto
//   Loader names it) and "_line".
// Rows are added in non-decreasing order. Not thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/column.h"

namespace floe::formats {

inline constexpr std::string_view kRescuedDataColumn = "_rescued_data";

inline bool IsRescuedDataField(const Field& field) {
  return field.name == kRescuedDataColumn;
}

// What a reader does with a value that does not fit its column, or with a
// broken record: put it in _rescued_data, or fail with a message naming the
// unit, the line or record, and the field.
enum class BadDataPolicy : uint8_t { kRescue, kFail };

struct RescueLocation {
  std::string unit;                     // file path, or "topic/partition" for streams
  std::string unit_key = "_file_path";  // JSON key of the unit
  std::string position_key = "_line";   // JSON key of the per-row position
};

// The error of a broken record's `_rescued_data` value ({"_raw": ...,
// "_error": "<why>", ...}, as AddBroken writes it), or nullopt when `rescued`
// is anything else (values that did not fit their columns, or not JSON).
std::optional<std::string> BrokenRecordError(std::string_view rescued);

class RescuedDataBuilder {
 public:
  explicit RescuedDataBuilder(RescueLocation location) : location_(std::move(location)) {}

  // A field of `row` whose original value is `json_value` (JSON text).
  void AddJsonValue(int64_t row, int64_t position, std::string_view field, std::string_view json_value);
  // A field of `row` whose original value is the text `text` (a JSON string).
  void AddText(int64_t row, int64_t position, std::string_view field, std::string_view text);
  // `row` is a broken record with this raw text and error.
  void AddBroken(int64_t row, int64_t position, std::string_view raw, std::string_view error);
  // Forgets everything added for rows >= row (a rolled-back document).
  void Truncate(int64_t row);

  bool empty() const { return entries_.empty(); }
  // Whether `row` has an entry.
  bool Has(int64_t row) const { return !entries_.empty() && entries_.back().row == row; }

  // The column for rows [0, num_rows): each entry's object, null elsewhere.
  // Resets the builder.
  Column Finish(int64_t num_rows);

 private:
  struct Entry {
    int64_t row;
    int64_t position;
    std::string members;  // "\"a\":1,\"b\":2" without braces or location
  };
  Entry& EntryFor(int64_t row, int64_t position);

  RescueLocation location_;
  std::vector<Entry> entries_;
};

}  // namespace floe::formats
