// HttpRequestParser: requests fed whole, byte by byte and pipelined; the
// head stops Feed before the body; every limit holds for Content-Length and
// chunked framing; ambiguous framing and malformed heads are errors with the
// status to answer.
#include "http_server/http_request_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace floe::http_server {
namespace {

using State = HttpRequestParser::State;

// Feeds `wire` in pieces of `step` bytes (0: whole) until the request completes or fails.
struct Parsed {
  State state;
  int status = 0;
  std::string message;
  HttpRequestHead head;
  std::string body;
  size_t consumed = 0;
};

Parsed Parse(const std::string& wire, size_t step = 0, HttpParseLimits limits = {}) {
  HttpRequestParser parser(limits);
  size_t at = 0;
  while (at < wire.size() && (parser.state() == State::kHead || parser.state() == State::kBody)) {
    const size_t n = step == 0 ? wire.size() - at : std::min(step, wire.size() - at);
    size_t used = 0;
    std::string_view piece(wire.data() + at, n);
    // Feed may stop early (after the head): feed the rest of the piece again.
    while (used < n && (parser.state() == State::kHead || parser.state() == State::kBody)) {
      const size_t u = parser.Feed(piece.substr(used));
      used += u;
      if (u == 0) break;
    }
    at += used;
    if (used < n) break;
  }
  Parsed out{parser.state(), parser.error_status(), parser.error_message(), {}, "", at};
  if (parser.state() != State::kHead && parser.state() != State::kError) {
    out.head = parser.head();
    out.body = parser.body();
  }
  return out;
}

TEST(HttpRequestParser, GetWithHeaders) {
  Parsed p = Parse("GET /v1/config?x=1 HTTP/1.1\r\nHost: h:81\r\nX-A:  one \r\nx-a: two\r\n\r\n");
  ASSERT_EQ(p.state, State::kComplete) << p.message;
  EXPECT_EQ(p.head.method, "GET");
  EXPECT_EQ(p.head.target, "/v1/config?x=1");
  EXPECT_EQ(p.head.headers.at("host"), "h:81");
  EXPECT_EQ(p.head.headers.at("x-a"), "one, two");
  EXPECT_TRUE(p.head.keep_alive);
}

TEST(HttpRequestParser, BodyByteByByteAndHeadStopsFeed) {
  const std::string wire =
      "POST /v1/namespaces HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n{\"a\":\"bc\"}\nGET /next";
  for (size_t step : {size_t{0}, size_t{1}, size_t{7}}) {
    Parsed p = Parse(wire, step);
    ASSERT_EQ(p.state, State::kComplete) << step << ": " << p.message;
    EXPECT_EQ(p.body, "{\"a\":\"bc\"}\n");
    EXPECT_EQ(p.consumed, wire.find("GET /next")) << "the pipelined request stays unread";
  }
  HttpRequestParser parser({});
  const size_t used = parser.Feed(wire);
  EXPECT_EQ(parser.state(), State::kBody);
  EXPECT_EQ(used, wire.find('{')) << "the head is consumed, no body byte";
  EXPECT_EQ(parser.declared_body_bytes(), 11u);
}

TEST(HttpRequestParser, Chunked) {
  const std::string wire =
      "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n"
      "4;ext=1\r\nabcd\r\n0A\r\n0123456789\r\n0\r\nX-Trailer: t\r\n\r\nNEXT";
  for (size_t step : {size_t{0}, size_t{1}, size_t{3}}) {
    Parsed p = Parse(wire, step);
    ASSERT_EQ(p.state, State::kComplete) << step << ": " << p.message;
    EXPECT_TRUE(p.head.chunked);
    EXPECT_EQ(p.body, "abcd0123456789");
    EXPECT_EQ(p.consumed, wire.size() - 4);
  }
}

TEST(HttpRequestParser, ChunkedBodyIsLimitedWhileRead) {
  HttpParseLimits limits;
  limits.max_body_bytes = 10;
  Parsed p = Parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n6\r\nabcdef\r\n6\r\nab",
                   1, limits);
  EXPECT_EQ(p.state, State::kError);
  EXPECT_EQ(p.status, 413) << p.message;
  // Refused at the chunk size, before its data arrives.
  p = Parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFF\r\n", 0, limits);
  EXPECT_EQ(p.status, 413);
  p = Parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n", 0, limits);
  EXPECT_EQ(p.status, 413);
  p = Parse("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789", 0, limits);
  EXPECT_EQ(p.state, State::kComplete);
  p = Parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n" + std::string(2000, '1'), 0,
            limits);
  EXPECT_EQ(p.status, 400) << "a chunk-size line is bounded";
  p = Parse("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n10000000000000000\r\n", 0,
            limits);
  EXPECT_EQ(p.status, 400) << "more than 16 hex digits";
}

TEST(HttpRequestParser, HeadLimits) {
  HttpParseLimits limits;
  limits.max_head_bytes = 100;
  limits.max_headers = 3;
  limits.max_target_bytes = 20;
  EXPECT_EQ(Parse("GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(200, 'a') + "\r\n\r\n", 0, limits).status,
            431);
  EXPECT_EQ(Parse("GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(200, 'a'), 1, limits).status, 431)
      << "an unterminated head is cut at the limit";
  EXPECT_EQ(Parse("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", 0, limits).status, 431);
  EXPECT_EQ(Parse("GET /" + std::string(30, 'a') + " HTTP/1.1\r\nHost: h\r\n\r\n", 0, limits).status, 414);
}

TEST(HttpRequestParser, AmbiguousOrMalformedIsRefused) {
  struct Case {
    std::string wire;
    int status;
  } cases[] = {
      {"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1\r\n\r\nx", 400},
      {"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
      {"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1 2\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n folded\r\n\r\n", 400},
      {"GET / HTTP/1.1\nHost: h\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost : h\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nX: a\x01b\r\nHost: h\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: h\r\nAuthorization: Bearer a\r\nAuthorization: Bearer b\r\n\r\n", 400},
      {"GET / HTTP/2.0\r\nHost: h\r\n\r\n", 505},
      {"GET / FTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"G(T / HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"GET /a b HTTP/1.1\r\nHost: h\r\n\r\n", 400},
      {"GET / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok\r\n\r\n", 417},
      {"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nabcdXY", 400},
      {"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
  };
  for (const auto& c : cases) {
    Parsed p = Parse(c.wire);
    EXPECT_EQ(p.state, State::kError) << c.wire;
    EXPECT_EQ(p.status, c.status) << c.wire << ": " << p.message;
    EXPECT_FALSE(p.message.empty());
  }
}

TEST(HttpRequestParser, ConnectionAndExpectation) {
  EXPECT_FALSE(Parse("GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Close\r\n\r\n").head.keep_alive);
  EXPECT_FALSE(Parse("GET / HTTP/1.0\r\n\r\n").head.keep_alive);
  EXPECT_TRUE(Parse("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").head.keep_alive);
  Parsed expect = Parse("POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\nab");
  EXPECT_TRUE(expect.head.expect_continue);
  EXPECT_EQ(expect.body, "ab");
  // Empty lines before a request line are skipped.
  EXPECT_EQ(Parse("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n").state, State::kComplete);
}

}  // namespace
}  // namespace floe::http_server
