#include "http_server/head_admission.h"

#include <arpa/inet.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <cctype>

#include "common/strings.h"

namespace floe::http_server {

namespace {

// The host name of a Host header value ("h", "h:8181", "[::1]:8181"), lower-case, without a trailing dot.
std::string HostName(const std::string& value) {
  std::string name;
  if (!value.empty() && value[0] == '[') {
    const size_t close = value.find(']');
    name = close == std::string::npos ? value : value.substr(0, close + 1);
  } else {
    const size_t colon = value.find(':');
    name = colon == std::string::npos ? value : value.substr(0, colon);
  }
  name = AsciiLower(name);
  if (!name.empty() && name.back() == '.') name.pop_back();
  return name;
}

// Content types a browser may send cross-site without a preflight; a JSON route never takes them.
bool IsFormLikeContentType(const std::string& value) {
  std::string media = AsciiLower(value.substr(0, value.find(';')));
  media.erase(std::remove(media.begin(), media.end(), ' '), media.end());
  return media == "text/plain" || media == "application/x-www-form-urlencoded" ||
         media == "multipart/form-data";
}

}  // namespace

bool SameDigest(const std::string& a, const std::string& b) {
  return a.size() == b.size() && !a.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

std::string HeaderValue(const HttpRequest& request, const std::string& name) {
  auto it = request.headers.find(name);
  return it == request.headers.end() ? "" : it->second;
}

bool IsLoopbackHost(const std::string& host) {
  std::string name = AsciiLower(host);
  if (name.size() >= 2 && name.front() == '[' && name.back() == ']') name = name.substr(1, name.size() - 2);
  if (name == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, name.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  if (inet_pton(AF_INET6, name.c_str(), &v6) == 1) {
    if (IN6_IS_ADDR_LOOPBACK(&v6)) return true;
    return IN6_IS_ADDR_V4MAPPED(&v6) && v6.s6_addr[12] == 127;
  }
  return false;
}

std::string HeadAdmission::TokenDigest(std::string_view token) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(token.data(), token.size(), digest, &length, EVP_sha256(), nullptr) != 1) return "";
  return HexEncode(std::string_view(reinterpret_cast<const char*>(digest), length));
}

std::string HeadAdmission::CheckTokenText(const std::string& token) {
  const bool printable = std::all_of(token.begin(), token.end(), [](char c) { return c > 0x20 && c < 0x7f; });
  if (token.size() >= kMinSecretLength && printable) return "";
  return "the bearer token must be at least " + std::to_string(kMinSecretLength) +
         " printable characters without spaces (e.g. openssl rand -hex 32)";
}

HeadAdmission::HeadAdmission(HeadAdmissionOptions options) : options_(std::move(options)) {
  if (!options_.token.empty()) token_digest_ = TokenDigest(options_.token);
}

bool HeadAdmission::HostAllowed(const HttpRequest& request, bool requires_auth) const {
  auto host = request.headers.find("host");
  // Browsers always send Host; a client that does not is not a page being rebound.
  if (host == request.headers.end()) return true;
  const std::string name = HostName(host->second);
  // A page's request carries the page's host name, never a loopback one.
  if (IsLoopbackHost(name)) return true;
  for (const auto& allowed : options_.allowed_hosts) {
    if (AsciiLower(allowed) == name) return true;
  }
  return options_.allowed_hosts.empty() && requires_auth;
}

bool HeadAdmission::OriginAllowed(const std::string& origin) const {
  const std::string wanted = AsciiLower(origin);
  for (const auto& allowed : options_.cors_origins) {
    std::string candidate = AsciiLower(allowed);
    while (!candidate.empty() && candidate.back() == '/') candidate.pop_back();
    if (candidate == wanted) return true;
  }
  return false;
}

AdmissionVerdict HeadAdmission::Preflight(const HttpRequest& request) const {
  const std::string origin = HeaderValue(request, "origin");
  AdmissionVerdict out{204, "", {}};
  if (origin.empty()) {
    out.headers.emplace_back("Allow", options_.allowed_methods + ", OPTIONS");
    return out;
  }
  out.headers.emplace_back("Access-Control-Allow-Origin", origin);
  out.headers.emplace_back("Vary", "Origin");
  out.headers.emplace_back("Access-Control-Allow-Methods", options_.allowed_methods);
  const std::string asked = HeaderValue(request, "access-control-request-headers");
  // Echoed only when it is a plain list of header names.
  const bool plain = std::all_of(asked.begin(), asked.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ',' || c == ' ';
  });
  if (!asked.empty() && plain) out.headers.emplace_back("Access-Control-Allow-Headers", asked);
  out.headers.emplace_back("Access-Control-Max-Age", "600");
  return out;
}

bool HeadAdmission::Authorized(const HttpRequest& request,
                               const std::function<bool(const std::string& digest)>& also_accepted) const {
  if (token_digest_.empty() && !also_accepted) return true;
  const std::string header = HeaderValue(request, "authorization");
  if (header.size() < 7 || AsciiLower(header.substr(0, 7)) != "bearer ") return false;
  const std::string digest = TokenDigest(std::string_view(header).substr(7));
  if (SameDigest(digest, token_digest_)) return true;
  return also_accepted && also_accepted(digest);
}

std::optional<AdmissionVerdict> HeadAdmission::Check(
    const HttpRequest& head, bool token_exempt,
    const std::function<bool(const std::string& digest)>& also_accepted,
    std::optional<bool> requires_auth) const {
  const bool auth = requires_auth.value_or(requires_token());
  if (!HostAllowed(head, auth)) {
    return AdmissionVerdict{400,
                            "Host '" + HeaderValue(head, "host") + "' does not name this server (" +
                                options_.allowed_host_flag + " adds names)",
                            {}};
  }
  const std::string origin = HeaderValue(head, "origin");
  if (!origin.empty() && !OriginAllowed(origin)) {
    return AdmissionVerdict{403,
                            "requests from origin " + origin + " are not allowed (" +
                                options_.cors_origin_flag + " allows an origin)",
                            {}};
  }
  auto with_cors = [&](AdmissionVerdict verdict) {
    if (!origin.empty()) {
      verdict.headers.emplace_back("Access-Control-Allow-Origin", origin);
      verdict.headers.emplace_back("Vary", "Origin");
    }
    return verdict;
  };
  if (head.method == "OPTIONS") return Preflight(head);
  // A page can send such a POST cross-site without asking first, but never with an Authorization header.
  if (head.method == "POST" && !token_exempt && !head.headers.count("authorization") &&
      IsFormLikeContentType(HeaderValue(head, "content-type"))) {
    return with_cors(AdmissionVerdict{400,
                                      "request bodies must be JSON (Content-Type: application/json), got '" +
                                          HeaderValue(head, "content-type") + "'",
                                      {}});
  }
  if (token_exempt || !auth || Authorized(head, also_accepted)) return std::nullopt;
  return with_cors(AdmissionVerdict{
      401, "a valid bearer token is required (Authorization: Bearer ...)", {{"WWW-Authenticate", "Bearer"}}});
}

void HeadAdmission::AddCorsHeaders(const HttpRequest& request, HttpResponse* response) {
  if (auto origin = request.headers.find("origin"); origin != request.headers.end()) {
    response->headers.emplace_back("Access-Control-Allow-Origin", origin->second);
    response->headers.emplace_back("Vary", "Origin");
  }
}

}  // namespace floe::http_server
