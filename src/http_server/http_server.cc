#include "http_server/http_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <unordered_map>
#include <vector>

#include "common/thread_pool.h"
#include "http_server/head_admission.h"
#include "http_server/http_request_parser.h"

namespace floe::http_server {

namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kReadChunk = size_t{64} << 10;
// After refusing a request whose body was not read, the rest of it is read
// and dropped for a moment, so closing does not reset the connection before
// the client has read the answer; bounded in time and bytes. Dropped bytes
// cost no memory, so the byte bound is loose: a client on loopback can send
// more than a MiB before it reads the answer, and closing then would reset
// the connection and lose the answer it has not read yet.
constexpr auto kDrainTime = std::chrono::milliseconds(2000);
constexpr size_t kDrainBytes = size_t{64} << 20;

const char* ReasonPhrase(int status) {
  switch (status) {
    case 100: return "Continue";
    case 200: return "OK";
    case 204: return "No Content";
    case 304: return "Not Modified";
    case 400: return "Bad Request";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 406: return "Not Acceptable";
    case 408: return "Request Timeout";
    case 409: return "Conflict";
    case 413: return "Content Too Large";
    case 414: return "URI Too Long";
    case 417: return "Expectation Failed";
    case 419: return "Authentication Timeout";
    case 422: return "Unprocessable Content";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 501: return "Not Implemented";
    case 503: return "Service Unavailable";
    case 505: return "HTTP Version Not Supported";
    default: return "Status";
  }
}

std::string Serialize(const HttpResponse& response, bool close, bool head_request) {
  std::string out =
      "HTTP/1.1 " + std::to_string(response.status) + " " + ReasonPhrase(response.status) + "\r\n";
  const bool no_body = response.status == 204 || response.status == 304;
  if (!no_body) {
    out += "Content-Type: " + response.content_type + "\r\n";
    out += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  }
  for (const auto& [name, value] : response.headers) out += name + ": " + value + "\r\n";
  if (close) out += "Connection: close\r\n";
  out += "\r\n";
  if (!no_body && !head_request) out += response.body;
  return out;
}

std::string PeerAddress(const sockaddr_storage& address) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (address.ss_family == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in&>(address).sin_addr, text, sizeof(text));
  } else if (address.ss_family == AF_INET6) {
    const auto& v6 = reinterpret_cast<const sockaddr_in6&>(address);
    if (IN6_IS_ADDR_V4MAPPED(&v6.sin6_addr)) {
      inet_ntop(AF_INET, &v6.sin6_addr.s6_addr[12], text, sizeof(text));
    } else {
      inet_ntop(AF_INET6, &v6.sin6_addr, text, sizeof(text));
    }
  }
  return text;
}

void SetNonBlocking(int fd) {
  const int flags = fcntl(fd, F_GETFL, 0);
  if (flags >= 0) fcntl(fd, F_SETFL, flags | O_NONBLOCK);
}

}  // namespace

Status ParseListenAddress(const std::string& text, std::string* host, int* port) {
  size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    return Status::InvalidArgument("listen address '" + text + "' must be host:port (e.g. 127.0.0.1:8181)");
  }
  std::string h = text.substr(0, colon);
  if (h.size() >= 2 && h.front() == '[' && h.back() == ']') h = h.substr(1, h.size() - 2);
  int p = -1;
  const char* begin = text.data() + colon + 1;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(begin, end, p);
  if (ec != std::errc() || ptr != end || p < 0 || p > 65535) {
    return Status::InvalidArgument("listen address '" + text + "': port must be 0-65535");
  }
  *host = h;
  *port = p;
  return Status::OK();
}

struct HttpServer::Impl {
  enum class State {
    kReading,   // waiting for (more of) a request
    kHandling,  // a worker runs the request
    kWriting,   // writing an answer
    kDraining,  // answered and half-closed: dropping what the client still sends
  };

  struct Connection {
    int fd = -1;
    std::string peer;
    State state = State::kReading;
    std::optional<HttpRequestParser> parser;
    bool head_seen = false;  // the parser finished this request's head
    bool request_started = false;
    std::string in;   // bytes read and not yet parsed
    std::string out;  // bytes to write
    size_t out_offset = 0;
    bool close_after_write = false;
    bool drain_after_write = false;
    size_t drained = 0;
    size_t reserved = 0;  // body bytes counted against max_buffered_body_bytes
    Clock::time_point deadline;
    bool timed_out_request = false;
  };

  struct Completion {
    uint64_t id = 0;
    std::string bytes;
    bool close = false;
  };

  Impl(std::shared_ptr<HttpService> s, HttpServerOptions o) : service(std::move(s)), options(std::move(o)) {
    limits.max_body_bytes = options.max_body_bytes;
  }

  ~Impl() {
    for (int fd : {listen_fd, wake_read, wake_write}) {
      if (fd >= 0) close(fd);
    }
  }

  Result<int> Bind();
  Status Serve();
  void Stop();

  void Wake() {
    const char byte = 1;
    if (wake_write >= 0) {
      ssize_t ignored = write(wake_write, &byte, 1);
      (void)ignored;
    }
  }
  // The service's error answer, on a connection that then closes.
  std::string ErrorAnswer(int status, const std::string& message) const {
    return Serialize(service->ErrorResponse(status, message), true, false);
  }
  void AcceptConnections();
  void Refuse(int fd, int status, const std::string& message);
  void ReadFrom(uint64_t id, Connection& c);
  void Process(uint64_t id, Connection& c);
  void AfterHead(uint64_t id, Connection& c);
  void Dispatch(uint64_t id, Connection& c);
  void Answer(Connection& c, std::string bytes, bool close, bool drain);
  void WriteTo(Connection& c);
  void AfterWrite(uint64_t id, Connection& c);
  void StartRequest(Connection& c, Clock::time_point now);
  void CloseConnection(uint64_t id);
  void Release(Connection& c) {
    buffered -= std::min(buffered, c.reserved);
    c.reserved = 0;
  }
  void TakeCompletions();
  void ExpireDeadlines(Clock::time_point now);
  void Progress();

  std::shared_ptr<HttpService> service;
  HttpServerOptions options;
  HttpParseLimits limits;
  int listen_fd = -1;
  int wake_read = -1;
  int wake_write = -1;
  bool bound = false;
  std::atomic<bool> stop_requested{false};

  // Owned by the serving thread.
  std::map<uint64_t, Connection> connections;
  std::unordered_map<std::string, size_t> per_client;
  uint64_t next_id = 1;
  size_t buffered = 0;
  std::unique_ptr<ThreadPool> pool;

  std::mutex completions_mutex;
  std::vector<Completion> completions;
};

Result<int> HttpServer::Impl::Bind() {
  if (!IsLoopbackHost(options.host) && !service->requires_auth()) {
    return Status::InvalidArgument("refusing to listen on " + options.host + " without authentication: " +
                                   options.how_to_authenticate + ", or listen on 127.0.0.1");
  }
  if (bound) return Status::InvalidArgument("Bind called twice");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(options.port);
  if (int rc = getaddrinfo(options.host.c_str(), port_text.c_str(), &hints, &found); rc != 0) {
    return Status::IOError("cannot resolve listen address " + options.host + ": " + gai_strerror(rc));
  }
  std::string failure = "no usable address";
  for (addrinfo* a = found; a != nullptr && listen_fd < 0; a = a->ai_next) {
    int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, SOMAXCONN) != 0) {
      failure = std::strerror(errno);
      close(fd);
      continue;
    }
    listen_fd = fd;
  }
  freeaddrinfo(found);
  if (listen_fd < 0) {
    return Status::IOError("cannot listen on " + options.host + ":" + port_text + ": " + failure);
  }
  SetNonBlocking(listen_fd);
  sockaddr_storage local{};
  socklen_t length = sizeof(local);
  getsockname(listen_fd, reinterpret_cast<sockaddr*>(&local), &length);
  const int port = local.ss_family == AF_INET6 ? ntohs(reinterpret_cast<sockaddr_in6&>(local).sin6_port)
                                               : ntohs(reinterpret_cast<sockaddr_in&>(local).sin_port);
  int pipe_fds[2];
  if (pipe2(pipe_fds, O_NONBLOCK | O_CLOEXEC) != 0) return Status::IOError("cannot create a wake-up pipe");
  wake_read = pipe_fds[0];
  wake_write = pipe_fds[1];
  bound = true;
  return port;
}

void HttpServer::Impl::Stop() {
  stop_requested = true;
  Wake();
}

void HttpServer::Impl::Refuse(int fd, int status, const std::string& message) {
  // Best effort: the answer fits the socket buffer of a fresh connection.
  const std::string answer = ErrorAnswer(status, message);
  ssize_t ignored = send(fd, answer.data(), answer.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  (void)ignored;
  shutdown(fd, SHUT_WR);
  close(fd);
}

void HttpServer::Impl::AcceptConnections() {
  while (true) {
    sockaddr_storage address{};
    socklen_t length = sizeof(address);
    int fd = accept4(listen_fd, reinterpret_cast<sockaddr*>(&address), &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) return;  // EAGAIN, or a transient error (EMFILE, ECONNABORTED): try at the next wake-up
    std::string peer = PeerAddress(address);
    if (connections.size() >= options.max_connections) {
      Refuse(fd, 503, "too many open connections; retry later");
      continue;
    }
    size_t& from_peer = per_client[peer];
    if (from_peer >= options.max_connections_per_client) {
      Refuse(fd, 503, "too many connections from " + peer + "; retry later");
      continue;
    }
    ++from_peer;
    const uint64_t id = next_id++;
    Connection& c = connections[id];
    c.fd = fd;
    c.peer = std::move(peer);
    StartRequest(c, Clock::now());
    // A new connection that sends nothing is held no longer than a slow head.
    c.deadline = Clock::now() + options.header_timeout;
  }
}

void HttpServer::Impl::StartRequest(Connection& c, Clock::time_point now) {
  c.state = State::kReading;
  c.parser.emplace(limits);
  c.head_seen = false;
  c.request_started = false;
  c.deadline = now + options.idle_timeout;
}

void HttpServer::Impl::CloseConnection(uint64_t id) {
  auto it = connections.find(id);
  if (it == connections.end()) return;
  Release(it->second);
  close(it->second.fd);
  auto client = per_client.find(it->second.peer);
  if (client != per_client.end() && --client->second == 0) per_client.erase(client);
  connections.erase(it);
}

void HttpServer::Impl::ReadFrom(uint64_t id, Connection& c) {
  char buffer[kReadChunk];
  const ssize_t n = recv(c.fd, buffer, sizeof(buffer), 0);
  if (n < 0) {
    if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return;
    CloseConnection(id);
    return;
  }
  if (n == 0) {
    CloseConnection(id);
    return;
  }
  if (c.state == State::kDraining) {
    c.drained += static_cast<size_t>(n);
    if (c.drained > kDrainBytes) CloseConnection(id);
    return;
  }
  c.in.append(buffer, static_cast<size_t>(n));
  Process(id, c);
}

void HttpServer::Impl::Process(uint64_t id, Connection& c) {
  while (c.state == State::kReading && !c.in.empty()) {
    if (!c.request_started) {
      c.request_started = true;
      // The head of a request must arrive in time, however slowly it trickles in.
      c.deadline = Clock::now() + options.header_timeout;
    }
    HttpRequestParser& parser = *c.parser;
    const size_t used = parser.Feed(c.in);
    c.in.erase(0, used);
    if (parser.state() == HttpRequestParser::State::kError) {
      Answer(c, ErrorAnswer(parser.error_status(), parser.error_message()), true, true);
      return;
    }
    if (!c.head_seen && parser.state() != HttpRequestParser::State::kHead) {
      c.head_seen = true;
      AfterHead(id, c);
      if (c.state != State::kReading) return;
    }
    if (parser.state() == HttpRequestParser::State::kBody && parser.head().chunked) {
      // A chunked body is counted as it grows.
      const size_t have = parser.body().size();
      if (have > c.reserved) {
        if (buffered + (have - c.reserved) > options.max_buffered_body_bytes) {
          Answer(c, ErrorAnswer(503, "the server is reading too many request bodies; retry later"), true,
                 true);
          return;
        }
        buffered += have - c.reserved;
        c.reserved = have;
      }
    }
    if (parser.state() == HttpRequestParser::State::kComplete) {
      Dispatch(id, c);
      return;
    }
    if (used == 0) return;
  }
}

void HttpServer::Impl::AfterHead(uint64_t, Connection& c) {
  HttpRequestParser& parser = *c.parser;
  HttpRequest head;
  head.method = parser.head().method;
  head.target = parser.head().target;
  head.headers = parser.head().headers;
  const bool body_follows = parser.state() == HttpRequestParser::State::kBody;
  if (std::optional<HttpResponse> refused = service->Admit(head)) {
    // Nothing of the body is read for a refused request.
    const bool close = body_follows || !parser.head().keep_alive;
    Answer(c, Serialize(*refused, close, head.method == "HEAD"), close, body_follows);
    return;
  }
  const uint64_t declared = parser.declared_body_bytes();
  if (declared > 0) {
    if (buffered + declared > options.max_buffered_body_bytes) {
      Answer(c, ErrorAnswer(503, "the server is reading too many request bodies; retry later"), true, true);
      return;
    }
    buffered += declared;
    c.reserved = declared;
  }
  if (body_follows) {
    c.deadline = Clock::now() + options.body_timeout;
    if (parser.head().expect_continue) {
      c.out += "HTTP/1.1 100 Continue\r\n\r\n";
      WriteTo(c);
    }
  }
}

void HttpServer::Impl::Dispatch(uint64_t id, Connection& c) {
  HttpRequestParser& parser = *c.parser;
  auto request = std::make_shared<HttpRequest>();
  request->method = parser.head().method;
  request->target = parser.head().target;
  request->headers = parser.head().headers;
  request->body = std::move(parser.body());
  const bool close = !parser.head().keep_alive;
  c.state = State::kHandling;
  pool->Submit([this, id, request, close] {
    HttpResponse response;
    try {
      response = service->HandleAdmitted(*request);
    } catch (...) {
      response = service->ErrorResponse(500, "unexpected server error");
    }
    Completion done{id, Serialize(response, close, request->method == "HEAD"), close};
    {
      std::lock_guard<std::mutex> lock(completions_mutex);
      completions.push_back(std::move(done));
    }
    Wake();
  });
}

void HttpServer::Impl::Answer(Connection& c, std::string bytes, bool close, bool drain) {
  c.state = State::kWriting;
  c.out += bytes;
  c.close_after_write = close;
  c.drain_after_write = close && drain;
  c.deadline = Clock::now() + options.write_timeout;
}

void HttpServer::Impl::WriteTo(Connection& c) {
  while (c.out_offset < c.out.size()) {
    const ssize_t n =
        send(c.fd, c.out.data() + c.out_offset, c.out.size() - c.out_offset, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (n <= 0) return;  // would block, or the peer is gone (seen at the next poll)
    c.out_offset += static_cast<size_t>(n);
  }
  c.out.clear();
  c.out_offset = 0;
}

void HttpServer::Impl::AfterWrite(uint64_t id, Connection& c) {
  Release(c);
  if (c.close_after_write) {
    if (!c.drain_after_write) {
      CloseConnection(id);
      return;
    }
    shutdown(c.fd, SHUT_WR);
    c.state = State::kDraining;
    c.in.clear();
    c.deadline = Clock::now() + kDrainTime;
    return;
  }
  StartRequest(c, Clock::now());
  Process(id, c);  // a pipelined request may be waiting in `in`
}

void HttpServer::Impl::TakeCompletions() {
  char drain[256];
  while (read(wake_read, drain, sizeof(drain)) > 0) {
  }
  std::vector<Completion> done;
  {
    std::lock_guard<std::mutex> lock(completions_mutex);
    done.swap(completions);
  }
  for (Completion& d : done) {
    auto it = connections.find(d.id);
    if (it == connections.end() || it->second.state != State::kHandling) continue;
    Answer(it->second, std::move(d.bytes), d.close, false);
  }
}

void HttpServer::Impl::Progress() {
  // Writes what can be written now; a connection whose answer went out moves on
  // (closes, drains, or reads its next request, which may be answered at once).
  bool again = true;
  std::vector<uint64_t> ids;
  while (again) {
    again = false;
    ids.clear();
    for (const auto& [id, c] : connections) {
      if (c.state == State::kWriting) ids.push_back(id);
    }
    for (uint64_t id : ids) {
      auto it = connections.find(id);
      if (it == connections.end() || it->second.state != State::kWriting) continue;
      WriteTo(it->second);
      if (!it->second.out.empty()) continue;
      AfterWrite(id, it->second);
      again = true;
    }
  }
}

void HttpServer::Impl::ExpireDeadlines(Clock::time_point now) {
  std::vector<uint64_t> expired;
  for (auto& [id, c] : connections) {
    if (c.state != State::kHandling && c.deadline <= now) expired.push_back(id);
  }
  for (uint64_t id : expired) {
    Connection& c = connections[id];
    if (c.state == State::kReading && c.request_started && !c.timed_out_request) {
      // One last answer, then the connection goes whether or not it is read.
      c.timed_out_request = true;
      Answer(c, ErrorAnswer(408, "the request did not arrive in time"), true, false);
      c.deadline = now + std::chrono::milliseconds(100);
      continue;
    }
    CloseConnection(id);
  }
}

Status HttpServer::Impl::Serve() {
  if (!bound) return Status::InvalidArgument("Serve called before Bind");
  pool = std::make_unique<ThreadPool>(std::max(1, options.threads));
  std::vector<pollfd> fds;
  std::vector<uint64_t> ids;
  while (!stop_requested) {
    Progress();
    fds.clear();
    ids.clear();
    fds.push_back({wake_read, POLLIN, 0});
    fds.push_back({listen_fd, POLLIN, 0});
    Clock::time_point next = Clock::now() + std::chrono::seconds(1);
    for (auto& [id, c] : connections) {
      short events = 0;
      if (c.state == State::kReading || c.state == State::kDraining) events |= POLLIN;
      if (!c.out.empty()) events |= POLLOUT;
      fds.push_back({c.fd, events, 0});
      ids.push_back(id);
      if (c.state != State::kHandling) next = std::min(next, c.deadline);
    }
    const auto wait = std::chrono::duration_cast<std::chrono::milliseconds>(next - Clock::now()).count();
    const int ready = poll(fds.data(), fds.size(), static_cast<int>(std::clamp<int64_t>(wait, 0, 1000)));
    if (ready < 0 && errno != EINTR)
      return Status::IOError(std::string("poll failed: ") + std::strerror(errno));
    if (stop_requested) break;
    if (fds[0].revents) TakeCompletions();
    for (size_t i = 2; i < fds.size(); ++i) {
      if (!fds[i].revents) continue;
      auto it = connections.find(ids[i - 2]);
      if (it == connections.end()) continue;
      Connection& c = it->second;
      if (fds[i].revents & POLLOUT) WriteTo(c);
      if (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) {
        if (c.state == State::kReading || c.state == State::kDraining) {
          ReadFrom(ids[i - 2], c);
        } else if (fds[i].revents & (POLLHUP | POLLERR)) {
          // The client went away while its request was handled or its answer written.
          CloseConnection(ids[i - 2]);
        }
      }
    }
    if (fds[1].revents & POLLIN) AcceptConnections();
    ExpireDeadlines(Clock::now());
  }
  // Requests still running finish (a commit is never cut short); their answers are dropped.
  pool.reset();
  std::vector<uint64_t> open;
  for (const auto& [id, c] : connections) open.push_back(id);
  for (uint64_t id : open) CloseConnection(id);
  return Status::OK();
}

HttpServer::HttpServer(std::shared_ptr<HttpService> service, HttpServerOptions options)
    : impl_(std::make_unique<Impl>(std::move(service), std::move(options))) {}

HttpServer::~HttpServer() {
  Stop();
}

Result<int> HttpServer::Bind() {
  return impl_->Bind();
}

Status HttpServer::Serve() {
  return impl_->Serve();
}

void HttpServer::Stop() {
  impl_->Stop();
}

}  // namespace floe::http_server
