// AWS Signature Version 4 (header-based) request signing, for any service
// (S3, Glue, Kinesis, SQS, REST catalogs behind API Gateway).
//
// Contract: SignV4 signs exactly the headers it is given (they must include
// `host` and `x-amz-date`), so the caller decides what is signed and sends the
// same header values. Paths and query values are given decoded; the signer
// encodes them (http::PercentEncode: RFC 3986 unreserved characters kept,
// other bytes as %XX with upper-case hex). The request line sent on the wire
// must use CanonicalPath and CanonicalQuery so it matches what was signed. The intermediate canonical request
// and string to sign are returned so tests can check each step against AWS's
// published vectors. Secrets never appear in any returned string except as
// the HMAC they key. Pure functions: safe from any thread.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "aws/digest.h"
#include "common/status.h"

namespace floe::aws {

inline constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";
// Hex SHA-256 of the empty string.
inline constexpr std::string_view kEmptyPayloadSha256 =
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

struct SigV4Credentials {
  std::string access_key_id;
  std::string secret_access_key;
  std::string session_token;  // empty unless temporary credentials
};

struct SigV4Request {
  std::string method;  // "GET", "PUT", ...
  std::string path;    // decoded, starts with '/': "/bucket/key with space"
  std::vector<std::pair<std::string, std::string>> query;    // decoded name/value; "" for a bare name
  std::vector<std::pair<std::string, std::string>> headers;  // any case; repeated names allowed
  std::string payload_hash;                                  // hex SHA-256 of the body, or UNSIGNED-PAYLOAD
};

struct SigV4Scope {
  std::string region;    // "us-east-1"
  std::string service;   // "s3"
  std::string amz_date;  // "YYYYMMDDTHHMMSSZ", the same value as the x-amz-date header
  // Remove "." and ".." segments and empty segments before encoding. Generic
  // AWS services do this; S3 does not (its keys are opaque), so it is off.
  bool normalize_path = false;
};

struct SigV4Signature {
  std::string canonical_request;
  std::string string_to_sign;
  std::string signed_headers;  // "host;range;x-amz-date"
  std::string signature;       // lower-case hex
  std::string authorization;   // value of the Authorization header
};

Result<SigV4Signature> SignV4(const SigV4Request& request, const SigV4Credentials& credentials,
                              const SigV4Scope& scope);

// Query-string signing (a presigned URL, AWS's "authenticating requests
// using query parameters"): the request's query gains X-Amz-Algorithm,
// X-Amz-Credential, X-Amz-Date (scope.amz_date), X-Amz-Expires,
// X-Amz-SignedHeaders and, with temporary credentials,
// X-Amz-Security-Token; those are signed with the query and the given
// headers (which must include `host`; no x-amz-date header), and `query`
// comes back with X-Amz-Signature last. Send it as CanonicalQuery(query).
struct SigV4Presigned {
  std::vector<std::pair<std::string, std::string>> query;  // decoded, X-Amz-Signature last
  std::string canonical_request;
  std::string string_to_sign;
  std::string signature;  // lower-case hex
};
Result<SigV4Presigned> PresignV4(const SigV4Request& request, const SigV4Credentials& credentials,
                                 const SigV4Scope& scope, int64_t expires_seconds);

// The canonical URI for a decoded path ("/" for an empty one).
std::string CanonicalPath(std::string_view decoded_path, bool normalize);
// "a=1&b=x%20y": names and values encoded, sorted by name then value.
std::string CanonicalQuery(const std::vector<std::pair<std::string, std::string>>& query);
// "YYYYMMDDTHHMMSSZ" in UTC.
std::string FormatAmzDate(std::chrono::system_clock::time_point time);

}  // namespace floe::aws
