// HttpRequestParser: one HTTP/1.1 (or 1.0) request read incrementally from
// untrusted bytes, for floe's HTTP server (http_server.h).
//
// Contract: Feed consumes bytes and stops at three points: when the request
// head (request line and headers) is complete, when the whole request is,
// and at the first error. Stopping after the head lets the server admit or
// refuse a request (authentication, Host and Origin checks, the body limit)
// before it reads a single body byte. Every limit is enforced while reading,
// whatever the framing: the head is at most `max_head_bytes` with at most
// `max_headers` fields; a body, by Content-Length or chunked
// Transfer-Encoding, is at most `max_body_bytes` (a larger Content-Length is
// refused from the head alone; a chunked body the moment it grows past the
// limit); a chunk-size line and the trailers are bounded too. Errors carry
// the HTTP status to answer (400, 413, 414, 417, 431, 501, 505) and a
// message; ambiguous framing (Content-Length twice, both Content-Length and
// Transfer-Encoding, a transfer coding other than "chunked", header line
// folding, bare LF line ends) is an error, never a guess. Memory is bounded
// by the limits. Not thread-safe: one parser per connection and request.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>

namespace floe::http_server {

struct HttpParseLimits {
  size_t max_head_bytes = size_t{64} << 10;
  size_t max_headers = 100;
  size_t max_target_bytes = size_t{8} << 10;
  size_t max_body_bytes = size_t{16} << 20;
};

struct HttpRequestHead {
  std::string method;
  std::string target;
  int minor_version = 1;                       // HTTP/1.<minor_version>
  std::map<std::string, std::string> headers;  // lower-case names; repeats joined by ", "
  bool keep_alive = true;                      // the connection may carry another request
  bool expect_continue = false;                // "Expect: 100-continue"
  bool chunked = false;                        // Transfer-Encoding: chunked
  uint64_t content_length = 0;                 // when not chunked
};

class HttpRequestParser {
 public:
  enum class State { kHead, kBody, kComplete, kError };

  explicit HttpRequestParser(HttpParseLimits limits) : limits_(limits) {}

  // Consumes a prefix of `data` and returns its length. Call again with the
  // rest (and more bytes) while the state is kHead or kBody; a call that
  // completes the head returns right after it, in state kBody (or kComplete
  // for a request without a body).
  size_t Feed(std::string_view data);

  State state() const { return state_; }
  // Valid from state kBody on.
  const HttpRequestHead& head() const { return head_; }
  // The body read so far (all of it in state kComplete).
  std::string& body() { return body_; }
  // Bytes of body the request still declares (Content-Length framing), for budgets.
  uint64_t declared_body_bytes() const { return head_.chunked ? 0 : head_.content_length; }

  // In state kError: the status to answer and why.
  int error_status() const { return error_status_; }
  const std::string& error_message() const { return error_message_; }

 private:
  enum class ChunkState { kSize, kData, kDataEnd, kTrailers };

  size_t FeedHead(std::string_view data);
  size_t FeedBody(std::string_view data);
  size_t FeedChunked(std::string_view data);
  bool ParseHead(std::string_view head);
  bool ParseRequestLine(std::string_view line);
  bool ParseHeaderLine(std::string_view line);
  bool DecideFraming();
  // Takes one CRLF-terminated line from `data` into line_ (bounded by `limit`);
  // returns the bytes consumed and sets *done when the line is complete.
  size_t TakeLine(std::string_view data, size_t limit, bool* done);
  bool Fail(int status, std::string message);

  HttpParseLimits limits_;
  State state_ = State::kHead;
  std::string buffer_;  // head bytes so far
  HttpRequestHead head_;
  size_t header_count_ = 0;
  std::string body_;
  uint64_t body_remaining_ = 0;  // Content-Length framing
  ChunkState chunk_state_ = ChunkState::kSize;
  uint64_t chunk_remaining_ = 0;
  std::string line_;  // a chunk-size or trailer line being read
  size_t trailer_bytes_ = 0;
  int error_status_ = 0;
  std::string error_message_;
};

}  // namespace floe::http_server
