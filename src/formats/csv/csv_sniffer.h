// The CSV dialect sniffer: finds the delimiter, quote, escape and whether
// the first record is a header, from a sample of the text, for the options
// the user did not give (DuckDB's sniffer works the same way).
//
// Contract:
// - Candidates: delimiters , | ; TAB; quotes " ' and none; escapes the
//   quote itself (doubling) and backslash. Each candidate tokenizes the
//   sample's records (csv_records.h; at most max_records; a record cut by the
//   sample's end is not counted) and is scored by its consistency: the
//   share of records with the most common field count (bad records count
//   against it). Per delimiter, among the quote/escape choices within 5% of
//   the records (or one record) of the most consistent one, the one whose quote opened the most fields wins
//   (ties: the earlier in the order above); across delimiters the one with the most
//   fields among those consistent on half of the records with more than one
//   field, else the most consistent.
// - Header: given, it is used. Otherwise the first record is a header when
//   some column's values in the other records infer to a type other than
//   string (text_inference.h) that the first record's value does not fit, or,
//   when every column is text (or there is no other record), when the first
//   record's values are all non-empty and distinct.
// Pure function of its inputs.
#pragma once

#include <optional>
#include <string_view>

#include "formats/csv/csv_records.h"
#include "formats/text_inference.h"

namespace floe::csv {

struct SniffedDialect {
  CsvDialect dialect;
  bool header = true;
  int columns = 0;  // the common field count
};

struct SniffHints {
  std::optional<char> delimiter;
  std::optional<char> quote;   // '\0' = none
  std::optional<char> escape;  // '\0' = none
  std::optional<bool> header;
  int max_records = 20480;
};

// `sample` starts at a record boundary; `complete` says it is the whole data
// (so its last record is whole).
SniffedDialect SniffCsvDialect(std::string_view sample, bool complete, const SniffHints& hints,
                               const formats::TextInference& inference);

}  // namespace floe::csv
