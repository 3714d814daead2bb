// How a text reader cuts a unit into chunks at record boundaries, found by
// one scan of the unit when it is opened.
//
// Contract: records arrive in order as their end offsets (one past the last
// byte, terminator included), each counting as a row or not (a blank line)
// and with the line number that starts after it. A chunk closes at the
// first record end that brings it to chunk_rows rows or chunk_bytes bytes.
// A record longer than max_record_bytes is never read whole: it becomes a
// chunk of its own, flagged oversized (the reader rescues its first bytes
// or fails), so no chunk holds more than max(chunk_bytes, max_record_bytes)
// bytes. Not thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace floe::formats {

struct TextChunkLimits {
  int64_t chunk_rows = 65536;
  int64_t chunk_bytes = int64_t{16} << 20;
  int64_t max_record_bytes = int64_t{64} << 20;
};

struct TextChunk {
  int64_t offset = 0;      // first byte
  int64_t length = 0;      // bytes
  int64_t rows = 0;        // records that are rows
  int64_t first_line = 1;  // line number of the first byte
  bool oversized = false;  // one record longer than max_record_bytes
};

// How much of an oversized record a reader rescues, and why.
inline constexpr int64_t kOversizedPrefixBytes = 1024;
std::string OversizedRecordReason(const TextChunk& chunk, int64_t max_record_bytes);

class TextChunker {
 public:
  TextChunker(TextChunkLimits limits, int64_t start, int64_t first_line)
      : limits_(limits),
        chunk_start_(start),
        chunk_line_(first_line),
        record_start_(start),
        record_line_(first_line) {}

  // Moves the start of the first chunk (before any record ended): bytes
  // before it (a header, an opening bracket) belong to no chunk.
  void SetStart(int64_t start, int64_t line) {
    chunk_start_ = record_start_ = start;
    chunk_line_ = record_line_ = line;
  }
  void RecordEnd(int64_t end, bool is_row, int64_t next_line);
  // Closes the last chunk; returns every chunk.
  std::vector<TextChunk> Finish();

  int64_t rows() const { return total_rows_; }

 private:
  void Close(int64_t end);

  TextChunkLimits limits_;
  std::vector<TextChunk> chunks_;
  int64_t chunk_start_;
  int64_t chunk_line_;
  int64_t chunk_rows_ = 0;
  int64_t record_start_;
  int64_t record_line_;
  int64_t total_rows_ = 0;
};

}  // namespace floe::formats
