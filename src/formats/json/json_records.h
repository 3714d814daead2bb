// Where the records of a JSON text unit are: one per line (JSON lines), or
// each top-level value, or each element of one top-level array
// (strip_outer_array).
//
// Contract:
// - JSON lines: a record is a line ('\n'-terminated, a trailing '\r'
//   dropped); lines holding only whitespace are not records. A line is never
//   parsed here: a broken line is still one record (the decoder rescues it).
// - JSON (not lines): records are the top-level values, found by a
//   structural scan that tracks strings and bracket depth across lines, so a
//   value may span many lines. With strip_outer_array the unit must be one
//   array (whitespace around it), and its elements are the records. The
//   scan cannot resynchronise inside a broken structure: an unterminated
//   string or bracket, a stray closing bracket, a missing '[' or content
//   after the array is Corruption naming the byte offset and line.
// - The scanner feeds record ends to a TextChunker; SplitJsonRecords cuts
//   one chunk's bytes (which begin and end at record boundaries) into the
//   same records, each with its line number.
// Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "common/status.h"
#include "formats/text_chunks.h"

namespace floe::json {

enum class JsonLayout : uint8_t { kLines, kValues, kArray };

class JsonRecordScanner {
 public:
  JsonRecordScanner(JsonLayout layout, formats::TextChunker* chunker, int64_t start, std::string name)
      : layout_(layout), chunker_(chunker), offset_(start), name_(std::move(name)) {
    chunker_->SetStart(start, 1);
  }

  // Consecutive blocks of the unit, from `start` on.
  Status Scan(std::string_view block);
  // The end of the unit.
  Status Finish();

 private:
  Status ScanLines(std::string_view block);
  Status ScanStructure(std::string_view block);
  Status Error(const std::string& what, int64_t at) const;

  JsonLayout layout_;
  formats::TextChunker* chunker_;
  int64_t offset_;  // unit offset of the next byte to scan
  int64_t line_ = 1;
  std::string name_;
  // Lines.
  bool line_has_content_ = false;
  // Structure.
  enum class State : uint8_t {
    kBeforeArray,
    kBetween,
    kInValue,
    kInString,
    kInStringEscape,
    kInScalar,
    kAfterArray
  };
  State state_ = State::kBetween;
  bool array_started_ = false;
  bool expect_element_ = true;  // in an array: no element since '[' or the last ','
  int64_t depth_ = 0;           // bracket depth inside the current value
  int64_t value_start_ = 0;
  bool string_is_value_ = false;  // the string being scanned is a top-level value
};

// The JSON-lines record of the line that starts `text`: `record` is the
// line without its '\n' and a trailing '\r' (empty when the line holds only
// white space: not a record), `length` the bytes to the next line's start
// (text.size() when no '\n' ends it).
struct JsonLine {
  std::string_view record;
  size_t length;
};
JsonLine FirstJsonLine(std::string_view text);

// Calls `record(text, line)` for each record of a chunk's bytes (see the
// contract); stops at the first error `record` returns.
// `next_line` (optional) receives the line number after the chunk.
Status SplitJsonRecords(JsonLayout layout, std::string_view chunk, int64_t first_line,
                        const std::function<Status(std::string_view, int64_t)>& record,
                        int64_t* next_line = nullptr);

}  // namespace floe::json
