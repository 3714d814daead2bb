// SigV4 signer: canonical request -> string to sign -> HMAC chain, with
// OpenSSL providing SHA-256 and HMAC.
#include "io/s3/sigv4.h"

#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/sha.h>

#include <algorithm>
#include <cctype>
#include <ctime>
#include <map>

namespace floe::s3 {
namespace {

constexpr char kHexDigits[] = "0123456789abcdef";

std::string HexOf(const unsigned char* bytes, size_t size) {
  std::string out;
  out.reserve(size * 2);
  for (size_t i = 0; i < size; ++i) {
    out.push_back(kHexDigits[bytes[i] >> 4]);
    out.push_back(kHexDigits[bytes[i] & 0xF]);
  }
  return out;
}

std::string Hmac(std::string_view key, std::string_view data) {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int out_len = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), out, &out_len);
  return std::string(reinterpret_cast<const char*>(out), out_len);
}

bool IsUnreserved(unsigned char c) {
  return std::isalnum(c) != 0 || c == '-' || c == '.' || c == '_' || c == '~';
}

std::string ToLower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

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

std::string UriEncode(std::string_view text, bool keep_slash) {
  static constexpr char kUpperHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (char ch : text) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (IsUnreserved(c) || (keep_slash && c == '/')) {
      out.push_back(ch);
    } else {
      out.push_back('%');
      out.push_back(kUpperHex[c >> 4]);
      out.push_back(kUpperHex[c & 0xF]);
    }
  }
  return out;
}

std::string CanonicalPath(std::string_view decoded_path, bool normalize) {
  if (decoded_path.empty()) return "/";
  if (normalize) return UriEncode(NormalizeSegments(decoded_path), true);
  return UriEncode(decoded_path, true);
}

std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query) {
  std::vector<std::pair<std::string, std::string>> encoded;
  encoded.reserve(query.size());
  for (const auto& [name, value] : query)
    encoded.emplace_back(UriEncode(name, false), UriEncode(value, false));
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

std::string Sha256Hex(std::span<const uint8_t> bytes) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(bytes.data(), bytes.size(), digest);
  return HexOf(digest, sizeof(digest));
}

std::string Sha256Hex(std::string_view text) {
  return Sha256Hex(std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

std::string Md5Base64(std::string_view text) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int digest_len = 0;
  EVP_Digest(text.data(), text.size(), digest, &digest_len, EVP_md5(), nullptr);
  unsigned char encoded[64];
  int encoded_len = EVP_EncodeBlock(encoded, digest, static_cast<int>(digest_len));
  return std::string(reinterpret_cast<const char*>(encoded), static_cast<size_t>(encoded_len));
}

std::string FormatAmzDate(std::chrono::system_clock::time_point time) {
  std::time_t seconds = std::chrono::system_clock::to_time_t(time);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y%m%dT%H%M%SZ", &utc);
  return buffer;
}

Result<SigV4Signature> SignV4(const SigV4Request& request, const SigV4Credentials& credentials,
                              const SigV4Scope& scope) {
  if (scope.amz_date.size() != 16 || scope.amz_date[8] != 'T' || scope.amz_date[15] != 'Z') {
    return Status::InvalidArgument("SigV4: x-amz-date must look like YYYYMMDDTHHMMSSZ, got '" +
                                   scope.amz_date + "'");
  }
  if (scope.region.empty() || scope.service.empty()) {
    return Status::InvalidArgument("SigV4: region and service must be set");
  }
  if (request.payload_hash.empty()) return Status::InvalidArgument("SigV4: payload hash missing");

  // Header names are case-insensitive; repeated headers join with ','.
  std::map<std::string, std::string> headers;
  for (const auto& [name, value] : request.headers) {
    std::string key = ToLower(CanonicalHeaderValue(name));
    std::string canonical = CanonicalHeaderValue(value);
    auto [it, inserted] = headers.emplace(key, canonical);
    if (!inserted) it->second += "," + canonical;
  }
  if (!headers.count("host")) return Status::InvalidArgument("SigV4: the signed headers must include host");
  if (!headers.count("x-amz-date")) {
    return Status::InvalidArgument("SigV4: the signed headers must include x-amz-date");
  }

  std::string canonical_headers;
  std::string signed_headers;
  for (const auto& [name, value] : headers) {
    canonical_headers += name + ":" + value + "\n";
    if (!signed_headers.empty()) signed_headers.push_back(';');
    signed_headers += name;
  }

  SigV4Signature out;
  out.signed_headers = signed_headers;
  out.canonical_request = request.method + "\n" + CanonicalPath(request.path, scope.normalize_path) + "\n" +
                          CanonicalQuery(request.query) + "\n" + canonical_headers + "\n" + signed_headers +
                          "\n" + request.payload_hash;

  std::string date = scope.amz_date.substr(0, 8);
  std::string credential_scope = date + "/" + scope.region + "/" + scope.service + "/aws4_request";
  out.string_to_sign = "AWS4-HMAC-SHA256\n" + scope.amz_date + "\n" + credential_scope + "\n" +
                       Sha256Hex(out.canonical_request);

  std::string key = Hmac("AWS4" + credentials.secret_access_key, date);
  key = Hmac(key, scope.region);
  key = Hmac(key, scope.service);
  key = Hmac(key, "aws4_request");
  std::string signature = Hmac(key, out.string_to_sign);
  out.signature = HexOf(reinterpret_cast<const unsigned char*>(signature.data()), signature.size());
  out.authorization = "AWS4-HMAC-SHA256 Credential=" + credentials.access_key_id + "/" + credential_scope +
                      ", SignedHeaders=" + signed_headers + ", Signature=" + out.signature;
  return out;
}

}  // namespace floe::s3
