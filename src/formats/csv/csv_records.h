// The CSV grammar floe reads (RFC 4180 plus the usual dialects): where
// records end (CsvRecordScanner, run once over a unit when it is opened)
// and which fields a record holds (CsvTokenizer, run per chunk).
//
// Contract (both follow the same rules, so a chunk always tokenizes into the
// records the scan counted):
// - A record is fields separated by `delimiter`, ended by "\n", "\r\n" or a
//   lone "\r" outside quotes, or by the end of the data. A record with no
//   bytes at all (an empty line) is not a record.
// - A field that starts with `quote` is quoted: it ends at the next quote
//   that is not escaped. With escape == quote a doubled quote is one quote
//   character (RFC 4180); with another escape character, escape + any
//   character is that character. Delimiters and line breaks inside quotes
//   are data. A quote elsewhere in an unquoted field is an ordinary
//   character. Text between a closing quote and the next delimiter or line
//   end makes the record bad ("unexpected text after a closing quote").
// - A quoted field still open at the end of the data makes its record bad
//   ("unterminated quote"); that record ends at the first line break after
//   the opening quote (or at the end), and reading goes on from there. No
//   byte is scanned more than twice: after such a cut, no later quoted field
//   can run past the end again (a quote that opened a field there would have
//   closed the first one), so the rescan is linear.
// - Line numbers count "\n" and lone "\r" from the first line of the data.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "common/status.h"
#include "formats/text_chunks.h"

namespace floe::csv {

struct CsvDialect {
  char delimiter = ',';
  char quote = '"';   // '\0': no quoting
  char escape = '"';  // == quote: doubled quotes; '\0': none
};

class CsvRecordScanner {
 public:
  // `header`: the first record is the header, not a row; `first_line` is the
  // line number at `start`.
  CsvRecordScanner(CsvDialect dialect, formats::TextChunker* chunker, int64_t start, int64_t first_line,
                   bool header);

  // Consecutive blocks from `start` on (or from the offset Finish returned).
  void Scan(std::string_view block);
  // At the end of the data. Returns -1 when the scan is complete, or the
  // offset to scan again from (after a record cut at an unterminated quote):
  // feed the bytes from there and call Finish again.
  int64_t Finish();

  // The header record's byte range (header = true, once it ended).
  int64_t header_start() const { return header_start_; }
  int64_t header_end() const { return header_end_; }

 private:
  // kOutside: not inside quotes (a field's start is where a quote opens one:
  // the record's first byte or a byte after the delimiter); kQuoteInQuoted:
  // a quote seen inside quotes that is doubled or closes the field.
  enum class State : uint8_t { kOutside, kQuoted, kQuotedEscape, kQuoteInQuoted };
  void EndRecord(int64_t end);

  CsvDialect dialect_;
  formats::TextChunker* chunker_;
  bool header_pending_;
  int64_t header_start_ = -1;
  int64_t header_end_ = -1;
  int64_t offset_;  // unit offset of the next byte to scan
  int64_t line_;
  State state_ = State::kOutside;
  bool pending_cr_ = false;  // the last byte was a '\r' that may start "\r\n"
  char prev_byte_ = '\n';    // the byte before the next block
  int64_t record_start_;
  bool record_empty_ = true;
  int64_t quote_open_ = -1;  // the open quote of the current record's quoted field
  int64_t cut_ = -1;         // the end of the first line break after quote_open_
  int64_t cut_line_ = 0;     // the line number after that break
};

// One record's fields. Each field is a view into the chunk or, when
// unescaping changed it, into the tokenizer's scratch; views stay valid
// until the next call to Next.
struct CsvRecord {
  std::vector<std::string_view> fields;
  std::vector<uint8_t> quoted;  // per field: it was quoted (so it is never the null string)
  std::string_view raw;         // the record's text without its line break
  int64_t line = 0;             // line number of its first byte
  std::string error;            // non-empty: the record is bad (see the contract)
};

class CsvTokenizer {
 public:
  CsvTokenizer(CsvDialect dialect, std::string_view data, int64_t first_line)
      : dialect_(dialect), data_(data), line_(first_line) {}

  // Reads the next record; false at the end of the data.
  bool Next(CsvRecord* record);

 private:
  CsvDialect dialect_;
  std::string_view data_;
  size_t pos_ = 0;
  int64_t line_;
  std::deque<std::string> scratch_;  // unescaped quoted fields of the current record (stable addresses)
};

}  // namespace floe::csv
