// Type inference for values written as text: the one implementation JSON
// and CSV share (`infer_column_types`, `date_format`, `timestamp_format`).
//
// Contract:
// - A value's own type is the narrowest of: boolean ("true"/"false", any
//   case), integer (fits int64), decimal (a plain literal with at most 9
//   fraction digits and 18 significant digits, as fixed-point exports of
//   money and rates are written; an integer past int64 within 38 digits),
//   double (exponent notation, NaN/Infinity, or a longer fraction: printed
//   floating-point values), date,
//   timestamp without zone, timestamp with zone, string. Integers with a
//   redundant leading zero ("007") are strings: a number would lose the zeros.
// - A column's type is the join of its values' types in a widening lattice
//   (as DuckDB's sniffer and Auto Loader widen): null joins anything;
//   integer < decimal < double (decimal(p,s) joins keep every integer digit
//   and every fraction digit: scale = max, integer digits = max; past 38
//   digits the join is double); date < timestamp (a date reads as midnight);
//   any other mix (boolean with numbers, zoned with zone-less timestamps,
//   temporal with numbers) is string.
// - Dates and timestamps are recognised in ISO 8601 (temporal_text.h) and,
//   unless `date_format` / `timestamp_format` is set (which then is the only
//   format tried), in a few common orders: m/d/Y, d/m/Y, Y/m/d, d.m.Y, m-d-Y,
//   d-m-Y, d-b-Y, each with " H:M:S[.f]" for timestamps (and m/d/Y with
//   " I:M:S p"). A column keeps every candidate format that parsed each of its
//   values; when both a month-first and a day-first format remain (every day
//   was <= 12) the column stays a string instead of guessing.
// - Timestamps take microseconds unless a value has more than 6 fraction
//   digits (then nanoseconds).
// TextInference is immutable after Make and safe to share between threads.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "columnar/types.h"
#include "common/status.h"
#include "formats/number_text.h"
#include "formats/temporal_text.h"

namespace floe::formats {

// The longest fixed-point literal inferred as a decimal (see the contract).
inline constexpr int32_t kMaxInferredDecimalScale = 9;
inline constexpr int32_t kMaxInferredDecimalDigits = 18;

// The options both text formats share; names follow the user-facing keys.
struct TypeInferenceOptions {
  // false: every field is a string (Auto Loader's default); true: infer.
  bool infer_column_types = false;
  // strftime formats; empty = ISO 8601 plus the candidates above.
  std::string timestamp_format;
  std::string date_format;
};

struct InferredType {
  enum Kind : uint8_t {
    kNull,  // only nulls (or nothing) seen
    kBoolean,
    kInteger,
    kDecimal,
    kDouble,
    kDate,
    kTimestamp,    // without zone
    kTimestampTz,  // with zone (an instant)
    kString,
  };
  Kind kind = kNull;
  int32_t integer_digits = 0;   // kInteger, kDecimal: most significant integer digits seen
  int32_t scale = 0;            // kDecimal: most fraction digits seen
  int32_t fraction_digits = 0;  // kTimestamp*: most fraction digits seen
  uint32_t formats = 0;         // kDate / kTimestamp*: candidate formats still parsing every value
};

class TextInference {
 public:
  static Result<std::shared_ptr<const TextInference>> Make(const TypeInferenceOptions& options);

  // The type of one CSV-like value (every kind).
  InferredType Classify(std::string_view text) const;
  // The type of one JSON string: a date or timestamp, else string.
  InferredType ClassifyTemporal(std::string_view text) const;
  // The type of a number (JSON tokens): integer or double; a JSON decimal
  // literal is a double, as DuckDB and Spark read JSON.
  static InferredType ClassifyJsonNumber(const NumberShape& shape);

  // into = join(into, value).
  void Widen(InferredType* into, const InferredType& value) const;

  // The column type of an inferred type (kNull becomes string).
  DataType ToDataType(const InferredType& type) const;
  // The formats conversion uses for a column inferred as `type`: the chosen
  // candidate for its kind, and for a timestamp column the date order of its
  // date part (date-only values read as midnight). nullptr means ISO 8601.
  // Other kinds (and hinted or known columns: ConfiguredFormats) get the
  // configured formats.
  struct Formats {
    const TemporalFormat* date = nullptr;
    const TemporalFormat* timestamp = nullptr;
  };
  Formats FormatsOf(const InferredType& type) const;
  Formats ConfiguredFormats() const { return {configured_date_.get(), configured_timestamp_.get()}; }

  const TypeInferenceOptions& options() const { return options_; }

  struct Candidate {
    std::unique_ptr<TemporalFormat> format;  // nullptr = ISO 8601
    int family = 0;                          // 1 month-first, 2 day-first, 0 neither
  };

 private:
  TextInference() = default;
  uint32_t DateMask(std::string_view text, TimestampText* parsed) const;
  uint32_t TimestampMask(std::string_view text, TimestampText* parsed) const;
  // The index of the candidate a column uses, or -1 when ambiguous.
  int Choose(uint32_t mask, const std::vector<Candidate>& candidates) const;

  TypeInferenceOptions options_;
  std::vector<Candidate> dates_;
  std::vector<Candidate> timestamps_;
  std::vector<int> timestamp_date_;  // for each timestamp candidate: the date candidate of its date part
  std::unique_ptr<TemporalFormat> configured_date_;
  std::unique_ptr<TemporalFormat> configured_timestamp_;
};

}  // namespace floe::formats
