// S3 REST calls over HttpTransport: URL building (path-style or virtual-hosted),
// SigV4 signing per attempt, the retry loop, and parsing of S3's XML answers.
#include "io/s3/s3_client.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <ctime>
#include <thread>

#include "aws/digest.h"
#include "aws/retry.h"
#include "aws/sigv4.h"
#include "common/strings.h"
#include "io/http/url_encoding.h"
#include "io/s3/s3_xml.h"

namespace floe::s3 {

using aws::CanonicalPath;
using aws::CanonicalQuery;
using http::HttpRequest;
using http::HttpResponse;

using Pairs = std::vector<std::pair<std::string, std::string>>;

struct S3Client::Call {
  const char* operation = "";
  std::string method;
  std::string bucket;
  std::string key;
  Pairs query;
  Pairs headers;  // signed and sent
  std::span<const uint8_t> body;
  uint8_t* into = nullptr;
  int64_t into_capacity = 0;
  bool conditional = false;  // 412 means "already exists"
};

namespace {

std::string ObjectUri(const std::string& bucket, const std::string& key) {
  return "s3://" + bucket + "/" + key;
}

// Transient S3 error codes. RequestTimeTooSkewed is not among them: resending
// with the same wrong clock fails the same way.
bool IsRetryableCode(const std::string& code) {
  return code == "SlowDown" || code == "RequestTimeout" || code == "InternalError" ||
         code == "ServiceUnavailable" || code == "ConditionalRequestConflict";
}

std::span<const uint8_t> AsBytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

Result<int64_t> ParseNonNegative(const std::string& text, const char* what) {
  if (text.empty() || text.size() > 18 || text.find_first_not_of("0123456789") != std::string::npos) {
    return Status::Corruption(std::string("S3 response: ") + what + " '" + text +
                              "' is not a non-negative integer");
  }
  return static_cast<int64_t>(std::stoll(text));
}

}  // namespace

S3Client::S3Client(S3Config config)
    : config_(std::move(config)),
      transport_(std::make_unique<http::HttpTransport>(config_.tuning.connect_timeout_ms,
                                                       config_.tuning.request_timeout_ms)) {}

HttpRequest S3Client::BuildRequest(const Call& call) {
  std::string host = config_.endpoint_authority;
  std::string path;
  // A dotted bucket name cannot be a TLS host label under *.amazonaws.com's
  // certificate, so such buckets fall back to path-style over https (as the AWS SDKs do).
  const bool path_style = config_.path_style ||
                          (config_.endpoint_scheme == "https" && call.bucket.find('.') != std::string::npos);
  if (path_style) {
    path = "/" + call.bucket;
    if (!call.key.empty()) path += "/" + call.key;
  } else {
    host = call.bucket + "." + host;
    path = "/" + call.key;
  }
  std::string query = CanonicalQuery(call.query);
  HttpRequest request;
  request.method = call.method;
  request.url = config_.endpoint_scheme + "://" + host + CanonicalPath(path, false) +
                (query.empty() ? "" : "?" + query);
  request.body = call.body;
  request.into = call.into;
  request.into_capacity = call.into_capacity;
  request.headers = call.headers;
  // Sent explicitly so the wire carries exactly the signed value (libcurl would
  // drop an explicit default port such as ":443" from its own Host header).
  request.headers.emplace_back("Host", host);
  if (config_.anonymous()) return request;

  std::string payload_hash = aws::Sha256Hex(call.body);
  std::string amz_date = aws::FormatAmzDate(std::chrono::system_clock::now());
  request.headers.emplace_back("x-amz-date", amz_date);
  request.headers.emplace_back("x-amz-content-sha256", payload_hash);
  if (!config_.session_token.empty())
    request.headers.emplace_back("x-amz-security-token", config_.session_token);
  aws::SigV4Request to_sign;
  to_sign.method = call.method;
  to_sign.path = path;
  to_sign.query = call.query;
  to_sign.headers = request.headers;
  to_sign.payload_hash = payload_hash;
  aws::SigV4Credentials credentials{config_.access_key_id, config_.secret_access_key, config_.session_token};
  Result<aws::SigV4Signature> signature =
      aws::SignV4(to_sign, credentials, aws::SigV4Scope{config_.region, "s3", amz_date, false});
  // SignV4 only fails on a malformed date or missing host, which BuildRequest always provides.
  if (signature.ok()) request.headers.emplace_back("Authorization", signature->authorization);
  return request;
}

Result<HttpResponse> S3Client::Send(Call& call) {
  const S3Options& tuning = config_.tuning;
  const std::string where =
      std::string("S3 ") + call.operation + " " + ObjectUri(call.bucket, call.key) + ": ";
  const auto start = std::chrono::steady_clock::now();
  for (int attempt = 1;; ++attempt) {
    Result<HttpResponse> result = transport_->Execute(BuildRequest(call));
    Status failure;
    if (!result.ok()) {
      failure = Status(ErrorKind::kIOError, where + result.status().message(), result.status().retryable());
    } else {
      HttpResponse& response = *result;
      if (response.status >= 200 && response.status < 300) return result;
      std::string described = DescribeErrorBody(response.body);
      std::string code = described.substr(0, described.find(':'));
      bool retryable = response.status >= 500 || response.status == 429 || IsRetryableCode(code);
      ErrorKind kind = ErrorKind::kIOError;
      if (response.status == 404) {
        kind = ErrorKind::kNotFound;
        if (described.empty()) described = call.key.empty() ? "NoSuchBucket" : "NoSuchKey";
      } else if (response.status == 412 && call.conditional) {
        kind = ErrorKind::kAlreadyExists;
        if (described.empty()) described = "PreconditionFailed: the object already exists";
      } else if (response.status == 416) {
        kind = ErrorKind::kOutOfRange;
      }
      failure = Status(kind,
                       where + "HTTP " + std::to_string(response.status) +
                           (described.empty() ? std::string() : " " + described),
                       retryable);
    }
    if (!failure.retryable()) {
      if (attempt > 1)
        failure =
            Status(failure.kind(), failure.message() + " (after " + std::to_string(attempt) + " attempts)",
                   failure.retryable());
      return failure;
    }
    const aws::RetryDecision next = aws::NextRetry(RetryPolicyOf(tuning), attempt, start);
    if (!next.retry) {
      if (next.exhausted.empty()) return failure;
      return Status(failure.kind(), failure.message() + " (" + next.exhausted + ")", failure.retryable());
    }
    const int64_t delay_ms = next.delay_ms;
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
  }
}

Status S3Client::GetObjectRange(const std::string& bucket, const std::string& key, int64_t offset,
                                int64_t length, uint8_t* out) {
  if (offset < 0 || length < 0)
    return Status::InvalidArgument(ObjectUri(bucket, key) + ": negative read range");
  if (length == 0) return Status::OK();
  Call call;
  call.operation = "GetObject";
  call.method = "GET";
  call.bucket = bucket;
  call.key = key;
  call.headers = {{"Range", "bytes=" + std::to_string(offset) + "-" + std::to_string(offset + length - 1)}};
  call.into = out;
  call.into_capacity = length;
  Result<HttpResponse> response = Send(call);
  const std::string range_text = "read of " + std::to_string(length) + " bytes at offset " +
                                 std::to_string(offset) + " of " + ObjectUri(bucket, key);
  if (!response.ok()) {
    if (response.status().kind() == ErrorKind::kOutOfRange) {
      return Status::OutOfRange(range_text + " goes past the end of the object (" +
                                response.status().message() + ")");
    }
    return response.status();
  }
  if (response->status == 200 && offset != 0) {
    return Status::IOError(range_text + ": the server ignored the Range header");
  }
  if (response->body_bytes != length) {
    return Status::OutOfRange(range_text + " goes past the end of the object (got " +
                              std::to_string(response->body_bytes) + " bytes)");
  }
  return Status::OK();
}

Result<std::string> S3Client::GetObject(const std::string& bucket, const std::string& key) {
  Call call;
  call.operation = "GetObject";
  call.method = "GET";
  call.bucket = bucket;
  call.key = key;
  FLOE_ASSIGN_OR_RETURN(HttpResponse response, Send(call));
  return std::move(response.body);
}

Result<S3ObjectInfo> S3Client::HeadObject(const std::string& bucket, const std::string& key) {
  Call call;
  call.operation = "HeadObject";
  call.method = "HEAD";
  call.bucket = bucket;
  call.key = key;
  FLOE_ASSIGN_OR_RETURN(HttpResponse response, Send(call));
  S3ObjectInfo info;
  info.key = key;
  auto length = response.headers.find("content-length");
  if (length == response.headers.end()) {
    return Status::Corruption("S3 HeadObject " + ObjectUri(bucket, key) +
                              ": no Content-Length in the answer");
  }
  FLOE_ASSIGN_OR_RETURN(info.size, ParseNonNegative(length->second, "Content-Length"));
  if (auto modified = response.headers.find("last-modified"); modified != response.headers.end()) {
    Result<int64_t> mtime = ParseHttpTime(modified->second);
    if (mtime.ok()) info.mtime_ms = *mtime;
  }
  if (auto etag = response.headers.find("etag"); etag != response.headers.end()) info.etag = etag->second;
  return info;
}

Status S3Client::PutObject(const std::string& bucket, const std::string& key, std::span<const uint8_t> body,
                           bool if_none_match) {
  Call call;
  call.operation = "PutObject";
  call.method = "PUT";
  call.bucket = bucket;
  call.key = key;
  call.body = body;
  call.headers = {{"Content-Type", "application/octet-stream"}};
  if (if_none_match) call.headers.emplace_back("If-None-Match", "*");
  call.conditional = if_none_match;
  return Send(call).status();
}

Status S3Client::DeleteObject(const std::string& bucket, const std::string& key) {
  Call call;
  call.operation = "DeleteObject";
  call.method = "DELETE";
  call.bucket = bucket;
  call.key = key;
  Result<HttpResponse> response = Send(call);
  if (!response.ok() && response.status().kind() == ErrorKind::kNotFound && !call.key.empty())
    return Status::OK();
  return response.status();
}

Status S3Client::DeleteObjects(const std::string& bucket, const std::vector<std::string>& keys) {
  constexpr size_t kBatch = 1000;  // S3's limit per request
  for (size_t begin = 0; begin < keys.size(); begin += kBatch) {
    size_t end = std::min(keys.size(), begin + kBatch);
    std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Delete><Quiet>true</Quiet>";
    for (size_t i = begin; i < end; ++i) xml += "<Object><Key>" + XmlEscape(keys[i]) + "</Key></Object>";
    xml += "</Delete>";
    Call call;
    call.operation = "DeleteObjects";
    call.method = "POST";
    call.bucket = bucket;
    call.query = {{"delete", ""}};
    call.body = AsBytes(xml);
    call.headers = {{"Content-Type", "application/xml"}, {"Content-MD5", aws::Md5Base64(xml)}};
    FLOE_ASSIGN_OR_RETURN(HttpResponse response, Send(call));
    if (response.body.empty()) continue;
    FLOE_ASSIGN_OR_RETURN(XmlElement root, ParseXml(response.body));
    for (const XmlElement& child : root.children) {
      if (child.name != "Error") continue;
      return Status::IOError("S3 DeleteObjects " + ObjectUri(bucket, child.ChildText("Key")) + ": " +
                             child.ChildText("Code") + ": " + child.ChildText("Message"));
    }
  }
  return Status::OK();
}

Result<S3ListPage> S3Client::ListObjectsV2(const std::string& bucket, const S3ListRequest& request) {
  Call call;
  call.operation = "ListObjectsV2";
  call.method = "GET";
  call.bucket = bucket;
  call.query = {{"list-type", "2"}, {"encoding-type", "url"}};
  if (!request.prefix.empty()) call.query.emplace_back("prefix", request.prefix);
  if (!request.delimiter.empty()) call.query.emplace_back("delimiter", request.delimiter);
  if (!request.start_after.empty()) call.query.emplace_back("start-after", request.start_after);
  if (!request.continuation_token.empty())
    call.query.emplace_back("continuation-token", request.continuation_token);
  if (request.max_keys > 0) call.query.emplace_back("max-keys", std::to_string(request.max_keys));
  FLOE_ASSIGN_OR_RETURN(HttpResponse response, Send(call));
  Result<S3ListPage> page = ParseListResult(response.body);
  if (!page.ok()) return page.status().WithContext("S3 ListObjectsV2 s3://" + bucket + "/" + request.prefix);
  return page;
}

Result<std::string> S3Client::CreateMultipartUpload(const std::string& bucket, const std::string& key) {
  Call call;
  call.operation = "CreateMultipartUpload";
  call.method = "POST";
  call.bucket = bucket;
  call.key = key;
  call.query = {{"uploads", ""}};
  call.headers = {{"Content-Type", "application/octet-stream"}};
  FLOE_ASSIGN_OR_RETURN(HttpResponse response, Send(call));
  FLOE_ASSIGN_OR_RETURN(XmlElement root, ParseXml(response.body));
  std::string upload_id = root.ChildText("UploadId");
  if (root.name != "InitiateMultipartUploadResult" || upload_id.empty()) {
    return Status::Corruption("S3 CreateMultipartUpload " + ObjectUri(bucket, key) +
                              ": no UploadId in the answer");
  }
  return upload_id;
}

Result<std::string> S3Client::UploadPart(const std::string& bucket, const std::string& key,
                                         const std::string& upload_id, int part_number,
                                         std::span<const uint8_t> body) {
  Call call;
  call.operation = "UploadPart";
  call.method = "PUT";
  call.bucket = bucket;
  call.key = key;
  call.query = {{"partNumber", std::to_string(part_number)}, {"uploadId", upload_id}};
  call.body = body;
  FLOE_ASSIGN_OR_RETURN(HttpResponse response, Send(call));
  auto etag = response.headers.find("etag");
  if (etag == response.headers.end() || etag->second.empty()) {
    return Status::Corruption("S3 UploadPart " + ObjectUri(bucket, key) + " part " +
                              std::to_string(part_number) + ": no ETag in the answer");
  }
  return etag->second;
}

Status S3Client::CompleteMultipartUpload(const std::string& bucket, const std::string& key,
                                         const std::string& upload_id,
                                         const std::vector<S3CompletedPart>& parts, bool if_none_match) {
  std::string xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CompleteMultipartUpload>";
  for (const S3CompletedPart& part : parts) {
    xml += "<Part><PartNumber>" + std::to_string(part.part_number) + "</PartNumber><ETag>" +
           XmlEscape(part.etag) + "</ETag></Part>";
  }
  xml += "</CompleteMultipartUpload>";
  Call call;
  call.operation = "CompleteMultipartUpload";
  call.method = "POST";
  call.bucket = bucket;
  call.key = key;
  call.query = {{"uploadId", upload_id}};
  call.body = AsBytes(xml);
  call.headers = {{"Content-Type", "application/xml"}};
  if (if_none_match) call.headers.emplace_back("If-None-Match", "*");
  call.conditional = if_none_match;
  FLOE_ASSIGN_OR_RETURN(HttpResponse response, Send(call));
  // S3 may answer 200 and report a failure in the body.
  if (!response.body.empty()) {
    FLOE_ASSIGN_OR_RETURN(XmlElement root, ParseXml(response.body));
    if (root.name == "Error") {
      return Status::IOError("S3 CompleteMultipartUpload " + ObjectUri(bucket, key) + ": " +
                             root.ChildText("Code") + ": " + root.ChildText("Message"));
    }
  }
  return Status::OK();
}

Status S3Client::AbortMultipartUpload(const std::string& bucket, const std::string& key,
                                      const std::string& upload_id) {
  Call call;
  call.operation = "AbortMultipartUpload";
  call.method = "DELETE";
  call.bucket = bucket;
  call.key = key;
  call.query = {{"uploadId", upload_id}};
  Result<HttpResponse> response = Send(call);
  if (!response.ok() && response.status().kind() == ErrorKind::kNotFound)
    return Status::OK();  // already gone
  return response.status();
}

std::string S3Client::DescribeErrorBody(const std::string& body) {
  if (body.empty()) return "";
  Result<XmlElement> root = ParseXml(body);
  if (!root.ok() || root->name != "Error") return "";
  std::string code = root->ChildText("Code");
  std::string message = root->ChildText("Message");
  if (code.empty()) return "";
  return message.empty() ? code : code + ": " + message;
}

Result<S3ListPage> S3Client::ParseListResult(const std::string& body) {
  FLOE_ASSIGN_OR_RETURN(XmlElement root, ParseXml(body));
  if (root.name != "ListBucketResult") {
    return Status::Corruption("S3 list answer has root <" + root.name + ">, expected <ListBucketResult>");
  }
  const bool url_encoded = root.ChildText("EncodingType") == "url";
  auto decode = [&](const std::string& text) -> Result<std::string> {
    if (!url_encoded) return text;
    auto decoded = http::PercentDecode(text, /*plus_is_space=*/true);
    if (!decoded.ok()) return Status::Corruption("S3 response: bad percent-encoding in '" + text + "'");
    return decoded;
  };
  S3ListPage page;
  for (const XmlElement& child : root.children) {
    if (child.name == "Contents") {
      S3ObjectInfo info;
      const XmlElement* key = child.Child("Key");
      if (!key || key->text.empty()) return Status::Corruption("S3 list answer: <Contents> without <Key>");
      FLOE_ASSIGN_OR_RETURN(info.key, decode(key->text));
      FLOE_ASSIGN_OR_RETURN(info.size, ParseNonNegative(child.ChildText("Size"), "Size"));
      std::string modified = child.ChildText("LastModified");
      if (!modified.empty()) {
        Result<int64_t> mtime = ParseHttpTime(modified);
        if (!mtime.ok()) return mtime.status().WithContext("S3 list answer, key " + info.key);
        info.mtime_ms = *mtime;
      }
      info.etag = child.ChildText("ETag");
      page.objects.push_back(std::move(info));
    } else if (child.name == "CommonPrefixes") {
      FLOE_ASSIGN_OR_RETURN(std::string prefix, decode(child.ChildText("Prefix")));
      page.common_prefixes.push_back(std::move(prefix));
    } else if (child.name == "IsTruncated") {
      if (child.text != "true" && child.text != "false") {
        return Status::Corruption("S3 list answer: IsTruncated is '" + child.text + "'");
      }
      page.truncated = child.text == "true";
    } else if (child.name == "NextContinuationToken") {
      page.next_continuation_token = child.text;
    }
  }
  if (page.truncated && page.next_continuation_token.empty()) {
    return Status::Corruption("S3 list answer is truncated but has no NextContinuationToken");
  }
  return page;
}

Result<int64_t> S3Client::ParseHttpTime(const std::string& text) {
  std::tm tm{};
  int64_t millis = 0;
  const char* end = nullptr;
  if (text.size() >= 19 && text[4] == '-' && text[10] == 'T') {
    end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
    if (end && *end == '.') {
      ++end;
      int digits = 0;
      while (*end >= '0' && *end <= '9') {
        if (digits < 3) millis = millis * 10 + (*end - '0');
        ++digits;
        ++end;
      }
      for (; digits < 3; ++digits) millis *= 10;
    }
    if (end && *end == 'Z') ++end;
  } else {
    end = strptime(text.c_str(), "%a, %d %b %Y %H:%M:%S GMT", &tm);
  }
  if (!end || *end != '\0') return Status::Corruption("S3 response: cannot parse time '" + text + "'");
  return static_cast<int64_t>(timegm(&tm)) * 1000 + millis;
}

}  // namespace floe::s3
