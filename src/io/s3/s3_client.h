// A small S3 REST client: the object, multipart and listing calls floe needs.
//
// Contract: every call signs with SigV4 (unless the config is anonymous),
// retries transient failures (5xx, 429, SlowDown, RequestTimeout, connection
// resets, timeouts, truncated bodies) with exponential backoff and full jitter
// within S3Options.max_attempts and retry_budget_ms, and returns any other
// error at once. Error messages read
//   "S3 <Method> s3://<bucket>/<key>: HTTP <status> <Code>: <Message> [after N attempts]"
// and never include credentials or the Authorization header. Kinds: 404 ->
// NotFound, 412 on a conditional write -> AlreadyExists, 416 -> OutOfRange,
// everything else IOError (retryable() tells whether it was transient).
// Safe for concurrent use from several threads.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "common/status.h"
#include "io/http/http_transport.h"
#include "io/s3/s3_config.h"

namespace floe::s3 {

struct S3ObjectInfo {
  std::string key;
  int64_t size = 0;
  int64_t mtime_ms = 0;
  std::string etag;
};

struct S3ListRequest {
  std::string prefix;
  std::string delimiter;
  std::string start_after;
  std::string continuation_token;
  int max_keys = 0;  // 0: server default (1000)
};

struct S3ListPage {
  std::vector<S3ObjectInfo> objects;
  std::vector<std::string> common_prefixes;
  bool truncated = false;
  std::string next_continuation_token;
};

struct S3CompletedPart {
  int part_number = 0;
  std::string etag;
};

class S3Client {
 public:
  explicit S3Client(S3Config config);

  const S3Config& config() const { return config_; }

  // Reads [offset, offset + length) into `out`; the object must have that many bytes.
  Status GetObjectRange(const std::string& bucket, const std::string& key, int64_t offset, int64_t length,
                        uint8_t* out);
  Result<std::string> GetObject(const std::string& bucket, const std::string& key);
  Result<S3ObjectInfo> HeadObject(const std::string& bucket, const std::string& key);
  // if_none_match sends "If-None-Match: *": the PUT fails with AlreadyExists
  // when the key exists (servers that ignore the header overwrite instead).
  Status PutObject(const std::string& bucket, const std::string& key, std::span<const uint8_t> body,
                   bool if_none_match = false);
  Status DeleteObject(const std::string& bucket, const std::string& key);
  // Batch delete in requests of up to 1000 keys; a per-key error fails the call.
  Status DeleteObjects(const std::string& bucket, const std::vector<std::string>& keys);
  Result<S3ListPage> ListObjectsV2(const std::string& bucket, const S3ListRequest& request);

  Result<std::string> CreateMultipartUpload(const std::string& bucket, const std::string& key);
  // Returns the part's ETag.
  Result<std::string> UploadPart(const std::string& bucket, const std::string& key,
                                 const std::string& upload_id, int part_number,
                                 std::span<const uint8_t> body);
  Status CompleteMultipartUpload(const std::string& bucket, const std::string& key,
                                 const std::string& upload_id, const std::vector<S3CompletedPart>& parts,
                                 bool if_none_match = false);
  Status AbortMultipartUpload(const std::string& bucket, const std::string& key,
                              const std::string& upload_id);

  // Parses an S3 <Error> body into "Code: Message" ("" if not an error document).
  static std::string DescribeErrorBody(const std::string& body);
  // Parses a ListObjectsV2 result document.
  static Result<S3ListPage> ParseListResult(const std::string& body);
  // "Wed, 12 Oct 2009 17:50:00 GMT" or "2009-10-12T17:50:30.000Z" -> ms since epoch.
  static Result<int64_t> ParseHttpTime(const std::string& text);

 private:
  struct Call;
  Result<http::HttpResponse> Send(Call& call);
  http::HttpRequest BuildRequest(const Call& call);

  S3Config config_;
  std::unique_ptr<http::HttpTransport> transport_;
};

}  // namespace floe::s3
