// AwsJsonClient: one AWS service spoken over its JSON protocol
// (awsJson1_0 / awsJson1_1): POST / with X-Amz-Target "<prefix>.<Operation>",
// a JSON body and a JSON answer, signed with SigV4 for the service's signing
// name (Glue, Kinesis, SQS).
//
// Contract:
// - Open resolves credentials and region through aws/credentials.h and the
//   endpoint through aws/endpoint.h (config > AWS_ENDPOINT_URL_<SERVICE> >
//   AWS_ENDPOINT_URL > profile > the AWS default); no request is sent.
// - Call sends one operation and returns the answer's JSON object ({} for an
//   empty body). Every try is signed afresh. Throttling refusals (HTTP 429,
//   ThrottlingException, ProvisionedThroughputExceededException, ...) are
//   retried with full-jitter backoff within the RetryPolicy for every call:
//   the service did not process the request. kIdempotent calls are also
//   retried after 5xx answers and transport failures. A kMutation call whose
//   outcome cannot be known — a 5xx answer, a connection lost after the
//   request may have been sent, a 2xx answer that is not JSON — is not
//   retried and returns CommitStateUnknown: the caller must assume it may
//   have been applied. Other errors become Status by aws/aws_error.h with the
//   service and operation named ("Kinesis GetRecords: HTTP 400
//   ExpiredIteratorException: ... [after 3 attempts]"); *error_type, when
//   given, receives the AWS error type ("" for transport failures).
// - Answers are bounded by the HTTP transport (64 MiB) and parsed without
//   recursion; credentials never appear in messages.
// - SetCancelFlag: once the flag is true, calls in flight are abandoned
//   within about a second (a 20 s SQS long poll included) and new ones are
//   not sent: they return kCancelled, never retried.
// Thread-safe: Call may run concurrently from several threads (the HTTP
// transport pools one handle per request), and SetCancelFlag beside them.
// SetExchangeForTesting is not thread-safe and must be called before the
// client is shared.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "aws/credentials.h"
#include "aws/endpoint.h"
#include "aws/environment.h"
#include "aws/retry.h"
#include "common/json.h"
#include "common/status.h"
#include "io/http/http_transport.h"

namespace floe::aws {

struct AwsJsonService {
  std::string name;             // "Glue", for messages
  std::string signing_name;     // SigV4 service name: "glue"
  std::string service_id;       // AWS_ENDPOINT_URL_<service_id>: "GLUE"
  std::string hostname_prefix;  // default endpoint https://<prefix>.<region>.amazonaws.com
  std::string target_prefix;    // X-Amz-Target "<target_prefix>.<Operation>": "AWSGlue"
  std::string content_type;     // "application/x-amz-json-1.1"
};

// The services floe speaks.
const AwsJsonService& GlueService();
const AwsJsonService& KinesisService();
const AwsJsonService& SqsService();

struct AwsClientOptions {
  AwsCredentialOptions credentials;
  std::string endpoint;          // explicit endpoint (floe's config); empty: the SDK chain
  std::string default_endpoint;  // used instead of the AWS default (an SQS queue URL's host)
  RetryPolicy retry;
  int64_t connect_timeout_ms = 10000;
  int64_t request_timeout_ms = 70000;  // above SQS's 20 s long poll and Kinesis's slowest answers
};

enum class CallKind {
  kIdempotent,  // repeating it is harmless: retried after 5xx and transport failures too
  kMutation,    // may not be repeated blindly: an unknown outcome is CommitStateUnknown
};

class AwsJsonClient {
 public:
  static Result<std::unique_ptr<AwsJsonClient>> Open(const AwsJsonService& service,
                                                     const AwsClientOptions& options,
                                                     const EnvLookup& env = ProcessEnvironment());

  Result<json::Json> Call(std::string_view operation, const json::Json& request,
                          CallKind kind = CallKind::kIdempotent, std::string* error_type = nullptr);

  const AwsJsonService& service() const { return service_; }
  const Endpoint& endpoint() const { return endpoint_; }
  const std::string& region() const { return identity_.region; }
  bool anonymous() const { return identity_.anonymous(); }

  // The signed HTTP request Call sends for `operation` (exposed for tests).
  Result<http::HttpRequest> BuildRequest(std::string_view operation, const std::string& body,
                                         std::chrono::system_clock::time_point now) const;

  // Test seam: when set, every try goes to `exchange` instead of the
  // network; it may answer itself (an injected error) or forward through
  // `send`, the real transport.
  using Send = std::function<Result<http::HttpResponse>(const http::HttpRequest&)>;
  using Exchange = std::function<Result<http::HttpResponse>(std::string_view operation,
                                                            const http::HttpRequest&, const Send&)>;
  void SetExchangeForTesting(Exchange exchange) { exchange_ = std::move(exchange); }

  // A process's stop flag (nullptr: none); see the contract.
  void SetCancelFlag(const std::atomic<bool>* flag) { cancel_.store(flag); }

 private:
  AwsJsonClient(AwsJsonService service, AwsClientOptions options, AwsIdentity identity, Endpoint endpoint);

  AwsJsonService service_;
  AwsClientOptions options_;
  AwsIdentity identity_;
  Endpoint endpoint_;
  std::unique_ptr<http::HttpTransport> transport_;
  Exchange exchange_;
  std::atomic<const std::atomic<bool>*> cancel_{nullptr};
};

}  // namespace floe::aws
