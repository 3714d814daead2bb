// One HTTP exchange over libcurl, with easy handles pooled for connection reuse.
//
// Contract: Execute performs exactly one attempt (retries belong to the
// callers: the S3 client, the AWS JSON client, the REST catalog session).
// A failure to get a complete HTTP response (connect error, reset, timeout,
// body shorter than its Content-Length) is an IOError marked retryable; any
// HTTP status, including 4xx/5xx, is a successful Execute with that status.
// When `may_have_reached_server` is given it tells, after a failure, whether
// the request could have been received (false only when the connection was
// never made: DNS, connect or TLS handshake failures), which decides whether
// a write that failed may have been applied.
// A request given a `cancel` flag is abandoned soon after the flag becomes
// true (libcurl checks it at least once a second, also while waiting for an
// answer): Execute then returns kCancelled, which is not retryable.
// Request headers are sent as given (plus "Expect:" to suppress 100-continue);
// nothing here logs or returns request headers, so credentials in the
// Authorization header never reach an error message.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "common/status.h"

namespace floe::http {

struct HttpRequest {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string url;     // already encoded
  std::vector<std::pair<std::string, std::string>> headers;
  std::span<const uint8_t> body;  // PUT/POST payload
  // When set, the response body of a 2xx answer is written here and may not
  // exceed `into_capacity` bytes; error bodies still go to HttpResponse::body.
  uint8_t* into = nullptr;
  int64_t into_capacity = 0;
  // When set and it becomes true, the exchange is abandoned (a long poll a
  // stopping process does not wait out).
  const std::atomic<bool>* cancel = nullptr;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;                            // unless written to HttpRequest::into
  int64_t body_bytes = 0;                      // bytes received, wherever they went
};

class HttpTransport {
 public:
  HttpTransport(int64_t connect_timeout_ms, int64_t request_timeout_ms);
  ~HttpTransport();
  HttpTransport(const HttpTransport&) = delete;
  HttpTransport& operator=(const HttpTransport&) = delete;

  // Thread-safe: each call takes its own easy handle from the pool.
  Result<HttpResponse> Execute(const HttpRequest& request, bool* may_have_reached_server = nullptr);

 private:
  void* AcquireHandle();
  void ReleaseHandle(void* handle);

  int64_t connect_timeout_ms_;
  int64_t request_timeout_ms_;
  std::mutex mutex_;
  std::vector<void*> idle_handles_;
};

}  // namespace floe::http
