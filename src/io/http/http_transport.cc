// libcurl easy-handle transport. Handles return to an idle pool after each
// request so keep-alive connections are reused across requests and threads.
#include "io/http/http_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "common/strings.h"

namespace floe::http {
namespace {

// Responses that are not streamed into a caller buffer are XML or JSON
// documents or error bodies; anything larger is not an answer we expect (a
// Kinesis GetRecords answer, the largest, is at most ~14 MiB of JSON).
constexpr size_t kMaxBufferedBody = 64 << 20;

void GlobalInitOnce() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

struct Exchange {
  const HttpRequest* request = nullptr;
  HttpResponse* response = nullptr;
  size_t upload_offset = 0;
  bool overflow = false;
};

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  size_t n = size * count;
  // The status line has been parsed by the time body bytes arrive.
  const bool to_caller =
      ex->request->into != nullptr && ex->response->status >= 200 && ex->response->status < 300;
  if (to_caller) {
    int64_t room = ex->request->into_capacity - ex->response->body_bytes;
    if (static_cast<int64_t>(n) > room) {
      ex->overflow = true;
      return 0;  // aborts the transfer with CURLE_WRITE_ERROR
    }
    std::memcpy(ex->request->into + ex->response->body_bytes, data, n);
  } else {
    if (ex->response->body.size() + n > kMaxBufferedBody) {
      ex->overflow = true;
      return 0;
    }
    ex->response->body.append(data, n);
  }
  ex->response->body_bytes += static_cast<int64_t>(n);
  return n;
}

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  size_t n = size * count;
  std::string line(data, n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r')) line.pop_back();
  if (line.rfind("HTTP/", 0) == 0) {
    // A new status line (after 100 Continue or a redirect) starts a new header set.
    ex->response->headers.clear();
    size_t space = line.find(' ');
    if (space != std::string::npos) ex->response->status = std::strtol(line.c_str() + space + 1, nullptr, 10);
    return n;
  }
  size_t colon = line.find(':');
  if (colon == std::string::npos) return n;
  const std::string name = AsciiLower(std::string_view(line).substr(0, colon));
  size_t value_start = line.find_first_not_of(" \t", colon + 1);
  ex->response->headers[name] = value_start == std::string::npos ? "" : line.substr(value_start);
  return n;
}

size_t OnUpload(char* buffer, size_t size, size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  size_t room = size * count;
  size_t left = ex->request->body.size() - ex->upload_offset;
  size_t n = std::min(room, left);
  if (n > 0) std::memcpy(buffer, ex->request->body.data() + ex->upload_offset, n);
  ex->upload_offset += n;
  return n;
}

// libcurl's progress callback: a non-zero answer abandons the transfer.
int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* cancel = static_cast<const std::atomic<bool>*>(user);
  return cancel->load() ? 1 : 0;
}

// libcurl rewinds the upload when it resends a request on a fresh connection
// (a reused keep-alive connection that the server had closed).
int OnSeek(void* user, curl_off_t offset, int origin) {
  auto* ex = static_cast<Exchange*>(user);
  if (origin != SEEK_SET || offset < 0 || static_cast<size_t>(offset) > ex->request->body.size()) {
    return CURL_SEEKFUNC_CANTSEEK;
  }
  ex->upload_offset = static_cast<size_t>(offset);
  return CURL_SEEKFUNC_OK;
}

bool IsRetryableCurlError(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_PARTIAL_FILE:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_READ_ERROR: return true;
    default: return false;
  }
}

// Failures before the connection was established: the server cannot have
// seen any byte of the request.
bool RequestMayHaveBeenSent(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL: return false;
    default: return true;
  }
}

}  // namespace

HttpTransport::HttpTransport(int64_t connect_timeout_ms, int64_t request_timeout_ms)
    : connect_timeout_ms_(connect_timeout_ms), request_timeout_ms_(request_timeout_ms) {
  GlobalInitOnce();
}

HttpTransport::~HttpTransport() {
  for (void* handle : idle_handles_) curl_easy_cleanup(static_cast<CURL*>(handle));
}

void* HttpTransport::AcquireHandle() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!idle_handles_.empty()) {
      void* handle = idle_handles_.back();
      idle_handles_.pop_back();
      return handle;
    }
  }
  return curl_easy_init();
}

void HttpTransport::ReleaseHandle(void* handle) {
  curl_easy_reset(static_cast<CURL*>(handle));
  std::lock_guard<std::mutex> lock(mutex_);
  idle_handles_.push_back(handle);
}

Result<HttpResponse> HttpTransport::Execute(const HttpRequest& request, bool* may_have_reached_server) {
  if (may_have_reached_server != nullptr) *may_have_reached_server = false;
  CURL* curl = static_cast<CURL*>(AcquireHandle());
  if (!curl) return Status::IOError("cannot create a libcurl handle", true);
  HttpResponse response;
  Exchange ex{&request, &response, 0, false};

  curl_easy_setopt(curl, CURLOPT_URL, request.url.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_PATH_AS_IS, 1L);  // S3 keys may contain "." and ".." segments
  curl_easy_setopt(curl, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(connect_timeout_ms_));
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(request_timeout_ms_));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, OnBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &ex);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, OnHeader);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &ex);
  if (request.cancel != nullptr) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, OnProgress);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, const_cast<std::atomic<bool>*>(request.cancel));
  }

  if (request.method == "HEAD") {
    curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (request.method == "PUT") {
    curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(curl, CURLOPT_READFUNCTION, OnUpload);
    curl_easy_setopt(curl, CURLOPT_READDATA, &ex);
    curl_easy_setopt(curl, CURLOPT_SEEKFUNCTION, OnSeek);
    curl_easy_setopt(curl, CURLOPT_SEEKDATA, &ex);
    curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method == "POST") {
    curl_easy_setopt(curl, CURLOPT_POST, 1L);
    curl_easy_setopt(curl, CURLOPT_POSTFIELDS,
                     request.body.empty() ? "" : reinterpret_cast<const char*>(request.body.data()));
    curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  } else if (request.method != "GET") {
    curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, request.method.c_str());
  }

  curl_slist* header_list = nullptr;
  for (const auto& [name, value] : request.headers) {
    header_list = curl_slist_append(header_list, (name + ": " + value).c_str());
  }
  header_list = curl_slist_append(header_list, "Expect:");
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, header_list);

  CURLcode code = curl_easy_perform(curl);
  curl_slist_free_all(header_list);
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  ReleaseHandle(curl);

  if (may_have_reached_server != nullptr) *may_have_reached_server = RequestMayHaveBeenSent(code);
  if (ex.overflow) {
    return Status::IOError("response body larger than expected (" + std::to_string(response.body_bytes) +
                           " bytes buffered)");
  }
  if (code == CURLE_ABORTED_BY_CALLBACK && request.cancel != nullptr && request.cancel->load()) {
    return Status::Cancelled("the request was abandoned: the process is stopping");
  }
  if (code != CURLE_OK) {
    return Status::IOError(std::string("transport error: ") + curl_easy_strerror(code),
                           IsRetryableCurlError(code));
  }
  response.status = status;
  if (request.method != "HEAD") {
    auto it = response.headers.find("content-length");
    if (it != response.headers.end()) {
      char* end = nullptr;
      long long declared = std::strtoll(it->second.c_str(), &end, 10);
      if (end != it->second.c_str() && declared != response.body_bytes) {
        return Status::IOError("truncated response body: " + std::to_string(response.body_bytes) + " of " +
                                   std::to_string(declared) + " bytes",
                               true);
      }
    }
  }
  return response;
}

}  // namespace floe::http
