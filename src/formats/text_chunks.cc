#include "formats/text_chunks.h"

#include <utility>

namespace floe::formats {

std::string OversizedRecordReason(const TextChunk& chunk, int64_t max_record_bytes) {
  return "record of " + std::to_string(chunk.length) + " bytes exceeds max_record_bytes (" +
         std::to_string(max_record_bytes) + ")";
}

void TextChunker::Close(int64_t end) {
  // Bytes holding no row (blank lines) need no chunk.
  if (chunk_rows_ > 0)
    chunks_.push_back(TextChunk{chunk_start_, end - chunk_start_, chunk_rows_, chunk_line_, false});
  chunk_start_ = end;
  chunk_rows_ = 0;
}

void TextChunker::RecordEnd(int64_t end, bool is_row, int64_t next_line) {
  const int64_t length = end - record_start_;
  if (is_row && length > limits_.max_record_bytes) {
    Close(record_start_);
    chunks_.push_back(TextChunk{record_start_, length, 1, record_line_, true});
    chunk_start_ = end;
    chunk_line_ = next_line;
    ++total_rows_;
  } else {
    if (chunk_start_ == record_start_) chunk_line_ = record_line_;
    if (is_row) {
      ++chunk_rows_;
      ++total_rows_;
    }
    if (chunk_rows_ >= limits_.chunk_rows || end - chunk_start_ >= limits_.chunk_bytes) {
      Close(end);
      chunk_line_ = next_line;
    }
  }
  record_start_ = end;
  record_line_ = next_line;
}

std::vector<TextChunk> TextChunker::Finish() {
  Close(record_start_);
  return std::move(chunks_);
}

}  // namespace floe::formats
