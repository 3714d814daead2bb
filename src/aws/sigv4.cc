// SigV4 signer: canonical request -> string to sign -> HMAC chain.
#include "aws/sigv4.h"

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

#include "common/strings.h"
#include "io/http/url_encoding.h"

namespace floe::aws {
namespace {

// Trims both ends and collapses each run of spaces/tabs into one space.
std::string CanonicalHeaderValue(std::string_view value) {
  std::string out;
  bool pending_space = false;
  for (char c : value) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      pending_space = !out.empty();
      continue;
    }
    if (pending_space) out.push_back(' ');
    pending_space = false;
    out.push_back(c);
  }
  return out;
}

std::string NormalizeSegments(std::string_view path) {
  std::vector<std::string_view> segments;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view segment = path.substr(start, end - start);
    if (segment == "..") {
      if (!segments.empty()) segments.pop_back();
    } else if (!segment.empty() && segment != ".") {
      segments.push_back(segment);
    }
    start = end + 1;
  }
  bool trailing_slash = !path.empty() && path.back() == '/';
  if (!path.empty()) {
    // A path ending in "/." or "/.." names a directory too.
    std::string_view last = path.substr(path.rfind('/') + 1);
    if (last == "." || last == "..") trailing_slash = true;
  }
  std::string out;
  for (std::string_view segment : segments) {
    out.push_back('/');
    out.append(segment);
  }
  if (out.empty() || trailing_slash) out.push_back('/');
  return out;
}

}  // namespace

std::string CanonicalPath(std::string_view decoded_path, bool normalize) {
  if (decoded_path.empty()) return "/";
  if (normalize) return http::PercentEncode(NormalizeSegments(decoded_path), true);
  return http::PercentEncode(decoded_path, true);
}

std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query)
    encoded.emplace_back(http::PercentEncode(name, false), http::PercentEncode(value, false));
  std::sort(encoded.begin(), encoded.end());
  std::string out;
  for (const auto& [name, value] : encoded) {
    if (!out.empty()) out.push_back('&');
    out += name;
    out.push_back('=');
    out += value;
  }
  return out;
}

std::string FormatAmzDate(std::chrono::system_clock::time_point time) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y%m%dT%H%M%SZ", &utc);
  return buffer;
}

namespace {

// What both signing styles share: the canonical request over the given
// headers (names lower-cased, repeated ones joined with ','), the string to
// sign and the signature. `signed_headers` comes back "host;x-amz-date".
Status Sign(const SigV4Request& request, const SigV4Credentials& credentials, const SigV4Scope& scope,
            const std::map<std::string, std::string>& headers, SigV4Signature* out) {
  std::string canonical_headers;
  std::string signed_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers += name + ":" + value + "\n";
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers += name;
  }
  out->signed_headers = signed_headers;
  out->canonical_request = request.method + "\n" + CanonicalPath(request.path, scope.normalize_path) + "\n" +
                           CanonicalQuery(request.query) + "\n" + canonical_headers + "\n" + signed_headers +
                           "\n" + request.payload_hash;

  std::string date = scope.amz_date.substr(0, 8);
  std::string credential_scope = date + "/" + scope.region + "/" + scope.service + "/aws4_request";
  out->string_to_sign = "AWS4-HMAC-SHA256\n" + scope.amz_date + "\n" + credential_scope + "\n" +
                        Sha256Hex(out->canonical_request);

  std::string key = HmacSha256("AWS4" + credentials.secret_access_key, date);
  key = HmacSha256(key, scope.region);
  key = HmacSha256(key, scope.service);
  key = HmacSha256(key, "aws4_request");
  std::string signature = HmacSha256(key, out->string_to_sign);
  out->signature = LowerHex({reinterpret_cast<const uint8_t*>(signature.data()), signature.size()});
  out->authorization = "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + credential_scope +
                       ", SignedHeaders=" + signed_headers + ", Signature=" + out->signature;
  return Status::OK();
}

Status CheckScope(const SigV4Request& request, const SigV4Scope& scope) {
  if (scope.amz_date.size() != 16 || scope.amz_date[8] != 'T' || scope.amz_date[15] != 'Z') {
    return Status::InvalidArgument("SigV4: x-amz-date must look like YYYYMMDDTHHMMSSZ, got '" +
                                   scope.amz_date + "'");
  }
  if (scope.region.empty() || scope.service.empty()) {
    return Status::InvalidArgument("SigV4: region and service must be set");
  }
  if (request.payload_hash.empty()) return Status::InvalidArgument("SigV4: payload hash missing");
  return Status::OK();
}

// Header names are case-insensitive; repeated headers join with ','.
std::map<std::string, std::string> CanonicalHeaders(const SigV4Request& request) {
  std::map<std::string, std::string> headers;
  for (const auto& [name, value] : request.headers) {
    std::string key = AsciiLower(CanonicalHeaderValue(name));
    std::string canonical = CanonicalHeaderValue(value);
    auto [it, inserted] = headers.emplace(key, canonical);
    if (!inserted) it->second += "," + canonical;
  }
  return headers;
}

}  // namespace

Result<SigV4Signature> SignV4(const SigV4Request& request, const SigV4Credentials& credentials,
                              const SigV4Scope& scope) {
  FLOE_RETURN_IF_ERROR(CheckScope(request, scope));
  const std::map<std::string, std::string> headers = CanonicalHeaders(request);
  if (!headers.count("host")) return Status::InvalidArgument("SigV4: the signed headers must include host");
  if (!headers.count("x-amz-date")) {
    return Status::InvalidArgument("SigV4: the signed headers must include x-amz-date");
  }
  SigV4Signature out;
  FLOE_RETURN_IF_ERROR(Sign(request, credentials, scope, headers, &out));
  return out;
}

Result<SigV4Presigned> PresignV4(const SigV4Request& request, const SigV4Credentials& credentials,
                                 const SigV4Scope& scope, int64_t expires_seconds) {
  FLOE_RETURN_IF_ERROR(CheckScope(request, scope));
  // AWS accepts 1 second to 7 days.
  if (expires_seconds < 1 || expires_seconds > 604800) {
    return Status::InvalidArgument("SigV4: a presigned request expires after 1 to 604800 seconds, not " +
                                   std::to_string(expires_seconds));
  }
  const std::map<std::string, std::string> headers = CanonicalHeaders(request);
  if (!headers.count("host")) return Status::InvalidArgument("SigV4: the signed headers must include host");
  if (headers.count("x-amz-date")) {
    return Status::InvalidArgument("SigV4: a presigned request carries its date in the query, not a header");
  }
  std::string signed_headers;
  for (const auto& [name, value] : headers) signed_headers += (signed_headers.empty() ? "" : ";") + name;
  SigV4Request presigned = request;
  presigned.query.emplace_back("X-Amz-Algorithm", "AWS4-HMAC-SHA256");
  presigned.query.emplace_back("X-Amz-Credential", credentials.access_key_id + "/" +
                                                       scope.amz_date.substr(0, 8) + "/" + scope.region +
                                                       "/" + scope.service + "/aws4_request");
  presigned.query.emplace_back("X-Amz-Date", scope.amz_date);
  presigned.query.emplace_back("X-Amz-Expires", std::to_string(expires_seconds));
  presigned.query.emplace_back("X-Amz-SignedHeaders", signed_headers);
  if (!credentials.session_token.empty()) {
    presigned.query.emplace_back("X-Amz-Security-Token", credentials.session_token);
  }
  SigV4Signature signature;
  FLOE_RETURN_IF_ERROR(Sign(presigned, credentials, scope, headers, &signature));
  SigV4Presigned out;
  out.query = std::move(presigned.query);
  out.query.emplace_back("X-Amz-Signature", signature.signature);
  out.canonical_request = std::move(signature.canonical_request);
  out.string_to_sign = std::move(signature.string_to_sign);
  out.signature = std::move(signature.signature);
  return out;
}

}  // namespace floe::aws
