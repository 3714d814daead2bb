#include "formats/csv/csv_records.h"

#include <algorithm>
#include <array>
#include <cstring>

#include "formats/byte_search.h"

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
  state_ = State::kOutside;
  record_start_ = end;
  record_empty_ = true;
  quote_open_ = -1;
  cut_ = -1;
}

void CsvRecordScanner::Scan(std::string_view block) {
  const char delimiter = dialect_.delimiter, quote = dialect_.quote, escape = dialect_.escape;
  const bool rfc = quote != '\0' && escape == quote;
  // Outside quotes only line breaks and quotes matter (a quote opens a field
  // only where one starts); inside, the quote, the escape and line breaks.
  const char outside_quote = quote != '\0' ? quote : '\n';
  const char inside_escape = !rfc && escape != '\0' ? escape : quote;
  const size_t n = block.size();
  size_t i = 0;
  while (i < n) {
    const int64_t at = offset_ + static_cast<int64_t>(i);
    if (pending_cr_) {
      pending_cr_ = false;
      const char c = block[i];
      if (state_ == State::kQuoted || state_ == State::kQuotedEscape) {
        if (c != '\n') {  // a lone '\r' inside quotes: a line break there
          ++line_;
          if (cut_ < 0) cut_ = at, cut_line_ = line_;
        }
      } else {
        ++line_;
        if (c == '\n') {
          EndRecord(at + 1);
          ++i;
        } else {
          EndRecord(at);
        }
      }
      continue;
    }
    switch (state_) {
      case State::kOutside: {
        const size_t j = i + formats::FindAnyOf(block.substr(i), '\n', '\r', outside_quote, outside_quote);
        if (j > i) record_empty_ = false;
        if (j == n) {
          i = n;
          break;
        }
        const char c = block[j];
        const int64_t hit = offset_ + static_cast<int64_t>(j);
        if (c == '\n') {
          ++line_;
          EndRecord(hit + 1);
        } else if (c == '\r') {
          pending_cr_ = true;
        } else {
          record_empty_ = false;
          const char before = j > 0 ? block[j - 1] : prev_byte_;
          if (hit == record_start_ || before == delimiter) {
            state_ = State::kQuoted;
            quote_open_ = hit;
          }
        }
        i = j + 1;
        break;
      }
      case State::kQuoted: {
        const size_t j = i + formats::FindAnyOf(block.substr(i), quote, inside_escape, '\n', '\r');
        if (j == n) {
          i = n;
          break;
        }
        const char c = block[j];
        if (c == quote) {
          state_ = rfc ? State::kQuoteInQuoted : State::kOutside;
        } else if (c == '\n') {
          ++line_;
          if (cut_ < 0) cut_ = offset_ + static_cast<int64_t>(j) + 1, cut_line_ = line_;
        } else if (c == '\r') {
          pending_cr_ = true;
        } else {
          state_ = State::kQuotedEscape;
        }
        i = j + 1;
        break;
      }
      case State::kQuotedEscape: {
        const char c = block[i];
        state_ = State::kQuoted;
        if (c == '\n') {
          ++line_;
          if (cut_ < 0) cut_ = at + 1, cut_line_ = line_;
        } else if (c == '\r') {
          pending_cr_ = true;
        }
        ++i;
        break;
      }
      case State::kQuoteInQuoted:
        if (block[i] == quote) {
          state_ = State::kQuoted;  // a doubled quote
          ++i;
        } else {
          state_ = State::kOutside;  // the quote closed the field; look at this byte outside
        }
        break;
    }
  }
  if (n > 0) prev_byte_ = block[n - 1];
  offset_ += static_cast<int64_t>(n);
}

int64_t CsvRecordScanner::Finish() {
  const bool quoted = state_ == State::kQuoted || state_ == State::kQuotedEscape;
  if (state_ == State::kQuoteInQuoted) state_ = State::kOutside;
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
  const char inside_escape = !rfc && escape != '\0' ? escape : quote;
  const std::string_view data = data_;
  const size_t n = data.size();
  // Skip empty lines.
  while (pos_ < n && (data[pos_] == '\n' || data[pos_] == '\r')) {
    pos_ += BreakLength(data, pos_);
    ++line_;
  }
  if (pos_ >= n) return false;
  record->fields.clear();
  record->quoted.clear();
  record->error.clear();
  record->line = line_;
  scratch_.clear();
  const size_t start = pos_;
  size_t i = pos_;
  int64_t inner_lines = 0;  // line breaks inside quoted fields
  const char* base = data.data();
  while (true) {
    // One field starting at i.
    if (quote != '\0' && i < n && data[i] == quote) {
      const size_t open = i;
      size_t k = i + 1;
      bool escaped = false;
      bool closed = false;
      while (true) {
        const size_t j =
            k + formats::FindAnyOf(data.substr(std::min(k, n)), quote, inside_escape, quote, quote);
        if (j >= n) break;
        if (data[j] == quote) {
          if (rfc && j + 1 < n && data[j + 1] == quote) {
            escaped = true;
            k = j + 2;
            continue;
          }
          closed = true;
          k = j;
          break;
        }
        escaped = true;  // the escape character: the next byte is data
        k = j + 2;
      }
      if (!closed) {
        // Unterminated: the record ends at the first line break after the quote.
        const size_t cut = open + 1 + formats::FindAnyOf(data.substr(open + 1), '\n', '\r', '\n', '\r');
        record->raw = data.substr(start, cut - start);
        record->error = "unterminated quote";
        const size_t next = cut < n ? cut + BreakLength(data, cut) : cut;
        line_ += CountLines(data.substr(start, next - start));
        pos_ = next;
        return true;
      }
      std::string_view content(base + open + 1, k - open - 1);
      if (formats::FindAnyOf(content, '\n', '\r', '\n', '\r') < content.size())
        inner_lines += CountLines(content);
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
      if (i < n && data[i] != delimiter && data[i] != '\n' && data[i] != '\r') {
        if (record->error.empty()) record->error = "unexpected text after a closing quote";
        i += formats::FindAnyOf(data.substr(i), delimiter, '\n', '\r', '\n');
      }
    } else {
      const size_t end = i + formats::FindAnyOf(data.substr(i), delimiter, '\n', '\r', '\n');
      record->fields.emplace_back(base + i, end - i);
      record->quoted.push_back(0);
      i = end;
    }
    if (i >= n) {
      record->raw = data.substr(start, i - start);
      line_ += inner_lines;
      pos_ = i;
      return true;
    }
    if (data[i] == delimiter) {
      ++i;
      continue;
    }
    // A line break ends the record.
    record->raw = data.substr(start, i - start);
    line_ += 1 + inner_lines;
    pos_ = i + BreakLength(data, i);
    return true;
  }
}

}  // namespace floe::csv
