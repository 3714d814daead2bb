#include "formats/json/json_records.h"

#include <algorithm>
#include <cstring>

#include "formats/json/json_text.h"

namespace floe::json {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

bool HasContent(std::string_view text) {
  for (char c : text) {
    if (!IsSpace(c)) return true;
  }
  return false;
}

}  // namespace

Status JsonRecordScanner::Error(const std::string& what, int64_t at) const {
  return Status::Corruption(name_ + ": line " + std::to_string(line_) + ", byte " + std::to_string(at + 1) +
                            ": " + what);
}

Status JsonRecordScanner::Scan(std::string_view block) {
  return layout_ == JsonLayout::kLines ? ScanLines(block) : ScanStructure(block);
}

Status JsonRecordScanner::ScanLines(std::string_view block) {
  const char* data = block.data();
  size_t pos = 0;
  while (pos < block.size()) {
    const void* found = std::memchr(data + pos, '\n', block.size() - pos);
    const size_t end = found ? static_cast<size_t>(static_cast<const char*>(found) - data) : block.size();
    if (!line_has_content_) line_has_content_ = HasContent(block.substr(pos, end - pos));
    if (!found) break;
    ++line_;
    chunker_->RecordEnd(offset_ + static_cast<int64_t>(end) + 1, line_has_content_, line_);
    line_has_content_ = false;
    pos = end + 1;
  }
  offset_ += static_cast<int64_t>(block.size());
  return Status::OK();
}

Status JsonRecordScanner::ScanStructure(std::string_view block) {
  if (layout_ == JsonLayout::kArray && !array_started_ && state_ == State::kBetween)
    state_ = State::kBeforeArray;
  for (size_t i = 0; i < block.size(); ++i) {
    const char c = block[i];
    const int64_t at = offset_ + static_cast<int64_t>(i);
    if (c == '\n') ++line_;
    switch (state_) {
      case State::kBeforeArray:
        if (IsSpace(c)) break;
        if (c != '[') return Error("expected '[' (strip_outer_array: the file must be one JSON array)", at);
        array_started_ = true;
        state_ = State::kBetween;
        chunker_->SetStart(at + 1, line_);
        break;
      case State::kAfterArray:
        if (!IsSpace(c)) return Error("content after the top-level array", at);
        break;
      case State::kBetween:
        if (IsSpace(c)) break;
        if (layout_ == JsonLayout::kArray) {
          if (c == ',') {
            if (expect_element_) return Error("unexpected ','", at);
            expect_element_ = true;
            break;
          }
          if (c == ']') {
            if (expect_element_ && value_start_ > 0) return Error("']' after ','", at);
            state_ = State::kAfterArray;
            break;
          }
          if (!expect_element_) return Error("expected ',' or ']' between array elements", at);
        } else if (c == ']' || c == '}' || c == ',' || c == ':') {
          return Error(std::string("unexpected '") + c + "' between top-level values", at);
        }
        value_start_ = at + 1;  // > 0 marks "an element was seen"
        expect_element_ = false;
        if (c == '{' || c == '[') {
          depth_ = 1;
          state_ = State::kInValue;
        } else if (c == '"') {
          string_is_value_ = true;
          state_ = State::kInString;
        } else {
          state_ = State::kInScalar;
        }
        break;
      case State::kInValue:
        if (c == '"') {
          string_is_value_ = false;
          state_ = State::kInString;
        } else if (c == '{' || c == '[') {
          ++depth_;
        } else if (c == '}' || c == ']') {
          if (--depth_ == 0) {
            chunker_->RecordEnd(at + 1, true, line_);
            state_ = State::kBetween;
          }
        }
        break;
      case State::kInString:
        if (c == '\\') {
          state_ = State::kInStringEscape;
        } else if (c == '"') {
          if (string_is_value_) {
            chunker_->RecordEnd(at + 1, true, line_);
            state_ = State::kBetween;
          } else {
            state_ = State::kInValue;
          }
        }
        break;
      case State::kInStringEscape: state_ = State::kInString; break;
      case State::kInScalar:
        if (IsSpace(c) || c == ',' || c == ']' || c == '}' || c == '[' || c == '{' || c == '"' || c == ':') {
          // The scalar ended before this byte; look at the byte again between values.
          if (c == '\n') --line_;
          chunker_->RecordEnd(at, true, line_);
          state_ = State::kBetween;
          --i;
        }
        break;
    }
  }
  offset_ += static_cast<int64_t>(block.size());
  return Status::OK();
}

Status JsonRecordScanner::Finish() {
  if (layout_ == JsonLayout::kLines) {
    if (line_has_content_) chunker_->RecordEnd(offset_, true, line_);
    return Status::OK();
  }
  switch (state_) {
    case State::kInValue: return Error("unterminated object or array at the end of the file", offset_);
    case State::kInString:
    case State::kInStringEscape: return Error("unterminated string at the end of the file", offset_);
    case State::kInScalar: chunker_->RecordEnd(offset_, true, line_); return Status::OK();
    case State::kBetween:
      if (layout_ == JsonLayout::kArray && array_started_)
        return Error("the top-level array is not closed", offset_);
      return Status::OK();
    case State::kBeforeArray:
    case State::kAfterArray: return Status::OK();
  }
  return Status::OK();
}

JsonLine FirstJsonLine(std::string_view text) {
  const void* found = std::memchr(text.data(), '\n', text.size());
  const size_t end = found ? static_cast<size_t>(static_cast<const char*>(found) - text.data()) : text.size();
  std::string_view record = text.substr(0, end);
  if (!record.empty() && record.back() == '\r') record.remove_suffix(1);
  if (!HasContent(record)) record = {};
  return JsonLine{record, found ? end + 1 : end};
}

Status SplitJsonRecords(JsonLayout layout, std::string_view chunk, int64_t first_line,
                        const std::function<Status(std::string_view, int64_t)>& record, int64_t* next_line) {
  const char* data = chunk.data();
  size_t pos = 0;
  int64_t line = first_line;
  if (layout == JsonLayout::kLines) {
    while (pos < chunk.size()) {
      const JsonLine next = FirstJsonLine(chunk.substr(pos));
      if (!next.record.empty()) FLOE_RETURN_IF_ERROR(record(next.record, line));
      ++line;
      pos += next.length;
    }
    if (next_line) *next_line = line;
    return Status::OK();
  }
  while (true) {
    bool comma = false;
    while (pos < chunk.size() &&
           (IsSpace(data[pos]) || (layout == JsonLayout::kArray && data[pos] == ',' && !comma))) {
      if (data[pos] == '\n') ++line;
      if (data[pos] == ',') comma = true;
      ++pos;
    }
    if (pos >= chunk.size()) {
      if (next_line) *next_line = line;
      return Status::OK();
    }
    const size_t length = JsonValueExtent(chunk.substr(pos));
    const std::string_view text(data + pos, std::max<size_t>(length, 1));
    FLOE_RETURN_IF_ERROR(record(text, line));
    line += std::count(text.begin(), text.end(), '\n');
    pos += text.size();
  }
}

}  // namespace floe::json
