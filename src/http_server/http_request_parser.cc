#include "http_server/http_request_parser.h"

#include <algorithm>
#include <charconv>

namespace floe::http_server {

namespace {

constexpr size_t kMaxChunkLine = 1024;
constexpr size_t kMaxMethod = 32;

// RFC 9110 token characters.
bool IsTokenChar(unsigned char c) {
  if (c >= '0' && c <= '9') return true;
  if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

bool IsToken(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(),
                                      [](char c) { return IsTokenChar(static_cast<unsigned char>(c)); });
}

std::string Lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  return out;
}

std::string_view TrimWhitespace(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Whether the comma-separated list `value` holds `token` (case-insensitive).
bool HasToken(std::string_view value, std::string_view token) {
  size_t start = 0;
  while (start <= value.size()) {
    size_t end = value.find(',', start);
    if (end == std::string_view::npos) end = value.size();
    if (Lower(TrimWhitespace(value.substr(start, end - start))) == token) return true;
    start = end + 1;
  }
  return false;
}

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

bool HttpRequestParser::Fail(int status, std::string message) {
  state_ = State::kError;
  error_status_ = status;
  error_message_ = std::move(message);
  buffer_.clear();
  body_.clear();
  return false;
}

size_t HttpRequestParser::Feed(std::string_view data) {
  size_t consumed = 0;
  if (state_ == State::kHead) {
    consumed = FeedHead(data);
    // Stop after the head: the caller admits the request before any body byte.
    return consumed;
  }
  if (state_ == State::kBody) consumed = FeedBody(data);
  return consumed;
}

size_t HttpRequestParser::FeedHead(std::string_view data) {
  size_t skipped = 0;
  // Empty lines before the request line are ignored (RFC 9112 section 2.2).
  while (buffer_.empty() && data.size() - skipped >= 2 && data[skipped] == '\r' &&
         data[skipped + 1] == '\n') {
    skipped += 2;
    if (skipped > limits_.max_head_bytes) {
      Fail(400, "too many empty lines before the request line");
      return skipped;
    }
  }
  data.remove_prefix(skipped);
  const size_t old_size = buffer_.size();
  // Never hold more than the limit (plus the terminator being looked for).
  const size_t room = limits_.max_head_bytes + 4 > old_size ? limits_.max_head_bytes + 4 - old_size : 0;
  buffer_.append(data.substr(0, std::min(room, data.size())));
  const size_t from = old_size >= 3 ? old_size - 3 : 0;
  const size_t end = buffer_.find("\r\n\r\n", from);
  if (end == std::string::npos) {
    if (buffer_.size() > limits_.max_head_bytes) {
      Fail(431, "request head is larger than " + std::to_string(limits_.max_head_bytes) + " bytes");
    }
    return skipped + (buffer_.size() - old_size);
  }
  const size_t head_bytes = end + 4;
  const size_t used = skipped + (head_bytes - old_size);
  if (end > limits_.max_head_bytes) {
    Fail(431, "request head is larger than " + std::to_string(limits_.max_head_bytes) + " bytes");
    return used;
  }
  buffer_.resize(end);
  if (!ParseHead(buffer_)) return used;
  buffer_.clear();
  buffer_.shrink_to_fit();
  if (!DecideFraming()) return used;
  state_ = head_.chunked || head_.content_length > 0 ? State::kBody : State::kComplete;
  body_remaining_ = head_.content_length;
  return used;
}

bool HttpRequestParser::ParseHead(std::string_view head) {
  size_t start = 0;
  bool first = true;
  while (start <= head.size()) {
    size_t end = head.find("\r\n", start);
    if (end == std::string_view::npos) end = head.size();
    std::string_view line = head.substr(start, end - start);
    if (line.find('\r') != std::string_view::npos || line.find('\n') != std::string_view::npos) {
      return Fail(400, "request head has a line ending in a bare CR or LF");
    }
    if (first) {
      if (!ParseRequestLine(line)) return false;
      first = false;
    } else if (!ParseHeaderLine(line)) {
      return false;
    }
    start = end + 2;
  }
  return true;
}

bool HttpRequestParser::ParseRequestLine(std::string_view line) {
  const size_t first_space = line.find(' ');
  const size_t last_space = line.rfind(' ');
  if (first_space == std::string_view::npos || first_space == last_space) {
    return Fail(400, "malformed request line");
  }
  std::string_view method = line.substr(0, first_space);
  std::string_view target = line.substr(first_space + 1, last_space - first_space - 1);
  std::string_view version = line.substr(last_space + 1);
  if (!IsToken(method) || method.size() > kMaxMethod) return Fail(400, "malformed request method");
  if (target.size() > limits_.max_target_bytes) {
    return Fail(414, "request target is longer than " + std::to_string(limits_.max_target_bytes) + " bytes");
  }
  if (target.empty() || !std::all_of(target.begin(), target.end(), [](char c) {
        return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
      })) {
    return Fail(400, "malformed request target");
  }
  if (version == "HTTP/1.1") {
    head_.minor_version = 1;
  } else if (version == "HTTP/1.0") {
    head_.minor_version = 0;
  } else if (version.size() == 8 && version.substr(0, 5) == "HTTP/" && IsDigit(version[5]) &&
             version[6] == '.' && IsDigit(version[7])) {
    return Fail(505, "HTTP version " + std::string(version.substr(5)) + " is not supported (use 1.1)");
  } else {
    return Fail(400, "malformed HTTP version");
  }
  head_.method = std::string(method);
  head_.target = std::string(target);
  return true;
}

bool HttpRequestParser::ParseHeaderLine(std::string_view line) {
  if (++header_count_ > limits_.max_headers) {
    return Fail(431, "request has more than " + std::to_string(limits_.max_headers) + " header fields");
  }
  if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
    return Fail(400, "folded header lines are not accepted");
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos || !IsToken(line.substr(0, colon))) {
    return Fail(400, "malformed header field");
  }
  std::string name = Lower(line.substr(0, colon));
  std::string_view value = TrimWhitespace(line.substr(colon + 1));
  for (char ch : value) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f)
      return Fail(400, "header " + name + " holds a control character");
  }
  auto [it, inserted] = head_.headers.emplace(name, std::string(value));
  if (!inserted) {
    // A second value would make the framing, the target host or the credentials ambiguous.
    if (name == "content-length" || name == "host" || name == "authorization" || name == "origin") {
      return Fail(400, "header " + name + " appears twice");
    }
    it->second += ", ";
    it->second += value;
  }
  return true;
}

bool HttpRequestParser::DecideFraming() {
  const auto& h = head_.headers;
  if (head_.minor_version == 1 && !h.count("host"))
    return Fail(400, "HTTP/1.1 request without a Host header");
  auto te = h.find("transfer-encoding");
  auto length = h.find("content-length");
  if (te != h.end()) {
    if (length != h.end()) return Fail(400, "request has both Content-Length and Transfer-Encoding");
    if (head_.minor_version == 0) return Fail(400, "Transfer-Encoding in an HTTP/1.0 request");
    if (Lower(te->second) != "chunked") {
      return Fail(501, "Transfer-Encoding '" + te->second + "' is not supported (only chunked)");
    }
    head_.chunked = true;
  } else if (length != h.end()) {
    const std::string& text = length->second;
    if (text.empty() || text.size() > 19 || !std::all_of(text.begin(), text.end(), IsDigit)) {
      return Fail(400, "malformed Content-Length '" + text + "'");
    }
    head_.content_length = std::stoull(text);
    if (head_.content_length > limits_.max_body_bytes) {
      return Fail(413, "request body of " + text + " bytes is larger than the limit of " +
                           std::to_string(limits_.max_body_bytes) + " bytes");
    }
  }
  head_.keep_alive = head_.minor_version == 1;
  if (auto c = h.find("connection"); c != h.end()) {
    if (HasToken(c->second, "close")) head_.keep_alive = false;
    if (head_.minor_version == 0 && HasToken(c->second, "keep-alive")) head_.keep_alive = true;
  }
  if (auto e = h.find("expect"); e != h.end()) {
    if (Lower(e->second) != "100-continue") return Fail(417, "unsupported expectation '" + e->second + "'");
    head_.expect_continue = head_.minor_version == 1;
  }
  return true;
}

size_t HttpRequestParser::FeedBody(std::string_view data) {
  if (head_.chunked) return FeedChunked(data);
  const size_t n = static_cast<size_t>(std::min<uint64_t>(body_remaining_, data.size()));
  body_.append(data.data(), n);
  body_remaining_ -= n;
  if (body_remaining_ == 0) state_ = State::kComplete;
  return n;
}

size_t HttpRequestParser::TakeLine(std::string_view data, size_t limit, bool* done) {
  *done = false;
  const size_t newline = data.find('\n');
  const size_t take = newline == std::string_view::npos ? data.size() : newline;
  if (line_.size() + take > limit + 1) {  // +1: the CR before the LF
    Fail(head_.chunked && chunk_state_ == ChunkState::kTrailers ? 431 : 400,
         "chunked body has a line longer than " + std::to_string(limit) + " bytes");
    return take;
  }
  line_.append(data.data(), take);
  if (newline == std::string_view::npos) return take;
  if (line_.empty() || line_.back() != '\r') {
    Fail(400, "chunked body has a line ending in a bare LF");
    return take + 1;
  }
  line_.pop_back();
  if (line_.find('\r') != std::string::npos) {
    Fail(400, "chunked body has a bare CR");
    return take + 1;
  }
  *done = true;
  return take + 1;
}

size_t HttpRequestParser::FeedChunked(std::string_view data) {
  size_t used = 0;
  while (used < data.size() && state_ == State::kBody) {
    std::string_view rest = data.substr(used);
    bool done = false;
    switch (chunk_state_) {
      case ChunkState::kSize: {
        used += TakeLine(rest, kMaxChunkLine, &done);
        if (!done) break;
        // chunk-size [ chunk-ext ]: the extensions are ignored.
        std::string_view size_text = std::string_view(line_).substr(0, line_.find(';'));
        size_text = TrimWhitespace(size_text);
        if (size_text.empty() || size_text.size() > 16) return Fail(400, "malformed chunk size"), used;
        uint64_t size = 0;
        auto [end, ec] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size, 16);
        if (ec != std::errc() || end != size_text.data() + size_text.size()) {
          return Fail(400, "malformed chunk size"), used;
        }
        line_.clear();
        if (size > limits_.max_body_bytes - std::min(limits_.max_body_bytes, body_.size())) {
          return Fail(413, "chunked request body is larger than the limit of " +
                               std::to_string(limits_.max_body_bytes) + " bytes"),
                 used;
        }
        chunk_remaining_ = size;
        chunk_state_ = size == 0 ? ChunkState::kTrailers : ChunkState::kData;
        break;
      }
      case ChunkState::kData: {
        const size_t n = static_cast<size_t>(std::min<uint64_t>(chunk_remaining_, rest.size()));
        body_.append(rest.data(), n);
        chunk_remaining_ -= n;
        used += n;
        if (chunk_remaining_ == 0) chunk_state_ = ChunkState::kDataEnd;
        break;
      }
      case ChunkState::kDataEnd:
        used += TakeLine(rest, 0, &done);
        if (!done) break;
        if (!line_.empty()) return Fail(400, "chunk data is not followed by CRLF"), used;
        chunk_state_ = ChunkState::kSize;
        break;
      case ChunkState::kTrailers: {
        used += TakeLine(rest, limits_.max_head_bytes, &done);
        if (!done) break;
        if (line_.empty()) {
          state_ = State::kComplete;
          break;
        }
        trailer_bytes_ += line_.size() + 2;
        line_.clear();
        if (trailer_bytes_ > limits_.max_head_bytes || ++header_count_ > limits_.max_headers) {
          return Fail(431, "chunked request trailers are too large"), used;
        }
        break;
      }
    }
  }
  return used;
}

}  // namespace floe::http_server
