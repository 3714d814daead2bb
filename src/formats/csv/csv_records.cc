#include "formats/csv/csv_records.h"

#include <array>
#include <cstring>

namespace floe::csv {
namespace {

// Line breaks in text: '\n', and '\r' not followed by '\n'.
int64_t CountLines(std::string_view text) {
  int64_t lines = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\n' || (text[i] == '\r' && (i + 1 == text.size() || text[i + 1] != '\n'))) ++lines;
  }
  return lines;
}

// The length of the line break at text[i] ("\r\n" = 2), or 0.
size_t BreakLength(std::string_view text, size_t i) {
  if (text[i] == '\n') return 1;
  if (text[i] == '\r') return i + 1 < text.size() && text[i + 1] == '\n' ? 2 : 1;
  return 0;
}

using ByteTable = std::array<uint8_t, 256>;

ByteTable Table(std::initializer_list<char> special) {
  ByteTable table{};
  for (char c : special) {
    if (c != '\0') table[static_cast<unsigned char>(c)] = 1;
  }
  return table;
}

}  // namespace

CsvRecordScanner::CsvRecordScanner(CsvDialect dialect, formats::TextChunker* chunker, int64_t start,
                                   int64_t first_line, bool header)
    : dialect_(dialect),
      chunker_(chunker),
      header_pending_(header),
      offset_(start),
      line_(first_line),
      record_start_(start) {
  chunker_->SetStart(start, first_line);
}

void CsvRecordScanner::EndRecord(int64_t end) {
  if (header_pending_ && !record_empty_) {
    header_pending_ = false;
    header_start_ = record_start_;
    header_end_ = end;
    chunker_->SetStart(end, line_);
  } else {
    chunker_->RecordEnd(end, !record_empty_, line_);
  }
  state_ = State::kFieldStart;
  record_start_ = end;
  record_empty_ = true;
  quote_open_ = -1;
  cut_ = -1;
}

void CsvRecordScanner::Scan(std::string_view block) {
  const char delimiter = dialect_.delimiter, quote = dialect_.quote, escape = dialect_.escape;
  const bool rfc = quote != '\0' && escape == quote;
  // Bytes an unquoted field stops at.
  const ByteTable unquoted_stops = Table({delimiter, '\n', '\r'});
  for (size_t i = 0; i < block.size(); ++i) {
    const char c = block[i];
    const int64_t at = offset_ + static_cast<int64_t>(i);
    if (pending_cr_) {
      pending_cr_ = false;
      const bool quoted = state_ == State::kQuoted || state_ == State::kQuotedEscape;
      if (quoted) {
        if (c != '\n') {  // a lone '\r' inside quotes: a line break there
          ++line_;
          if (cut_ < 0) cut_ = at, cut_line_ = line_;
        }
      } else {
        ++line_;
        EndRecord(c == '\n' ? at + 1 : at);
        if (c == '\n') continue;
      }
    }
    switch (state_) {
      case State::kFieldStart:
        if (quote != '\0' && c == quote) {
          state_ = State::kQuoted;
          quote_open_ = at;
          record_empty_ = false;
          break;
        }
        if (c == delimiter) {
          record_empty_ = false;
          break;
        }
        if (c == '\n') {
          ++line_;
          EndRecord(at + 1);
          break;
        }
        if (c == '\r') {
          pending_cr_ = true;
          break;
        }
        state_ = State::kUnquoted;
        record_empty_ = false;
        [[fallthrough]];
      case State::kUnquoted: {
        // Fast path: skip to the next delimiter or line break.
        while (i + 1 < block.size() && !unquoted_stops[static_cast<unsigned char>(block[i + 1])]) ++i;
        if (i + 1 >= block.size()) break;
        const char next = block[++i];
        const int64_t next_at = offset_ + static_cast<int64_t>(i);
        if (next == delimiter) {
          state_ = State::kFieldStart;
        } else if (next == '\n') {
          ++line_;
          EndRecord(next_at + 1);
        } else {
          pending_cr_ = true;
        }
        break;
      }
      case State::kQuoted:
        if (rfc ? c == quote : (c == quote)) {
          state_ = rfc ? State::kQuoteInQuoted : State::kAfterClose;
        } else if (!rfc && escape != '\0' && c == escape) {
          state_ = State::kQuotedEscape;
        } else if (c == '\n') {
          ++line_;
          if (cut_ < 0) cut_ = at + 1, cut_line_ = line_;
        } else if (c == '\r') {
          pending_cr_ = true;
        }
        break;
      case State::kQuotedEscape:
        state_ = State::kQuoted;
        if (c == '\n') {
          ++line_;
          if (cut_ < 0) cut_ = at + 1, cut_line_ = line_;
        } else if (c == '\r') {
          pending_cr_ = true;
        }
        break;
      case State::kQuoteInQuoted:
        if (c == quote) {
          state_ = State::kQuoted;  // a doubled quote
          break;
        }
        state_ = State::kAfterClose;
        [[fallthrough]];
      case State::kAfterClose:
        if (c == delimiter) {
          state_ = State::kFieldStart;
        } else if (c == '\n') {
          ++line_;
          EndRecord(at + 1);
        } else if (c == '\r') {
          pending_cr_ = true;
        }
        break;
    }
  }
  offset_ += static_cast<int64_t>(block.size());
}

int64_t CsvRecordScanner::Finish() {
  const bool quoted = state_ == State::kQuoted || state_ == State::kQuotedEscape;
  if (pending_cr_) {
    pending_cr_ = false;
    ++line_;
    if (quoted) {
      if (cut_ < 0) cut_ = offset_, cut_line_ = line_;
    } else {
      EndRecord(offset_);
      return -1;
    }
  }
  if (quoted) {
    if (cut_ >= 0 && cut_ < offset_) {
      // Unterminated quote: the record ends at the first line break after
      // the quote; what follows is read again as records of their own.
      const int64_t cut = cut_;
      line_ = cut_line_;
      EndRecord(cut);
      offset_ = cut;
      return cut;
    }
    EndRecord(offset_);
    return -1;
  }
  if (!record_empty_) EndRecord(offset_);
  return -1;
}

bool CsvTokenizer::Next(CsvRecord* record) {
  const char delimiter = dialect_.delimiter, quote = dialect_.quote, escape = dialect_.escape;
  const bool rfc = quote != '\0' && escape == quote;
  const std::string_view data = data_;
  // Skip empty lines.
  while (pos_ < data.size() && (data[pos_] == '\n' || data[pos_] == '\r')) {
    pos_ += BreakLength(data, pos_);
    ++line_;
  }
  if (pos_ >= data.size()) return false;
  record->fields.clear();
  record->quoted.clear();
  record->error.clear();
  record->line = line_;
  scratch_.clear();
  const size_t start = pos_;
  size_t i = pos_;
  const char* base = data.data();
  while (true) {
    // One field starting at i.
    if (quote != '\0' && i < data.size() && data[i] == quote) {
      const size_t open = i;
      size_t k = i + 1;
      bool escaped = false;
      bool closed = false;
      while (k < data.size()) {
        const char c = data[k];
        if (c == quote) {
          if (rfc && k + 1 < data.size() && data[k + 1] == quote) {
            escaped = true;
            k += 2;
            continue;
          }
          closed = true;
          break;
        }
        if (!rfc && escape != '\0' && c == escape) {
          escaped = true;
          k += 2;
          continue;
        }
        ++k;
      }
      if (!closed) {
        // Unterminated: the record ends at the first line break after the quote.
        size_t cut = open + 1;
        while (cut < data.size() && data[cut] != '\n' && data[cut] != '\r') ++cut;
        record->raw = data.substr(start, cut - start);
        record->error = "unterminated quote";
        size_t next = cut < data.size() ? cut + BreakLength(data, cut) : cut;
        line_ += CountLines(data.substr(start, next - start));
        pos_ = next;
        return true;
      }
      std::string_view content(base + open + 1, k - open - 1);
      if (escaped) {
        std::string unescaped;
        unescaped.reserve(content.size());
        for (size_t p = 0; p < content.size(); ++p) {
          if (rfc && content[p] == quote) {
            ++p;  // the first of a doubled quote
          } else if (!rfc && escape != '\0' && content[p] == escape && p + 1 < content.size()) {
            ++p;
          }
          unescaped.push_back(content[p]);
        }
        scratch_.push_back(std::move(unescaped));
        content = scratch_.back();
      }
      record->fields.push_back(content);
      record->quoted.push_back(1);
      i = k + 1;
      if (i < data.size() && data[i] != delimiter && data[i] != '\n' && data[i] != '\r') {
        if (record->error.empty()) record->error = "unexpected text after a closing quote";
        while (i < data.size() && data[i] != delimiter && data[i] != '\n' && data[i] != '\r') ++i;
      }
    } else {
      const size_t field_start = i;
      while (i < data.size() && data[i] != delimiter && data[i] != '\n' && data[i] != '\r') ++i;
      record->fields.emplace_back(base + field_start, i - field_start);
      record->quoted.push_back(0);
    }
    if (i >= data.size()) {
      record->raw = data.substr(start, i - start);
      line_ += CountLines(record->raw);
      pos_ = i;
      return true;
    }
    if (data[i] == delimiter) {
      ++i;
      continue;
    }
    // A line break ends the record.
    record->raw = data.substr(start, i - start);
    const size_t next = i + BreakLength(data, i);
    line_ += CountLines(data.substr(start, next - start));
    pos_ = next;
    return true;
  }
}

}  // namespace floe::csv
