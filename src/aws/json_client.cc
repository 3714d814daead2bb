#include "aws/json_client.h"

#include <thread>

#include "aws/aws_error.h"
#include "aws/digest.h"
#include "aws/sigv4.h"

namespace floe::aws {
namespace {

std::span<const uint8_t> AsBytes(const std::string& text) {
  return {reinterpret_cast<const uint8_t*>(text.data()), text.size()};
}

Status WithAttempts(const Status& status, const std::string& suffix) {
  if (suffix.empty()) return status;
  return Status(status.kind(), status.message() + " (" + suffix + ")", status.retryable());
}

}  // namespace

const AwsJsonService& GlueService() {
  static const AwsJsonService service{"Glue", "glue",    "GLUE",
                                      "glue", "AWSGlue", "application/x-amz-json-1.1"};
  return service;
}

const AwsJsonService& KinesisService() {
  static const AwsJsonService service{"Kinesis", "kinesis",          "KINESIS",
                                      "kinesis", "Kinesis_20131202", "application/x-amz-json-1.1"};
  return service;
}

const AwsJsonService& SqsService() {
  static const AwsJsonService service{"SQS", "sqs", "SQS", "sqs", "AmazonSQS", "application/x-amz-json-1.0"};
  return service;
}

AwsJsonClient::AwsJsonClient(AwsJsonService service, AwsClientOptions options, AwsIdentity identity,
                             Endpoint endpoint)
    : service_(std::move(service)),
      options_(std::move(options)),
      identity_(std::move(identity)),
      endpoint_(std::move(endpoint)),
      transport_(
          std::make_unique<http::HttpTransport>(options_.connect_timeout_ms, options_.request_timeout_ms)) {}

Result<std::unique_ptr<AwsJsonClient>> AwsJsonClient::Open(const AwsJsonService& service,
                                                           const AwsClientOptions& options,
                                                           const EnvLookup& env) {
  const std::string what = service.name + " client";
  FLOE_RETURN_IF_ERROR(ValidateRetryPolicy(options.retry, what));
  if (options.connect_timeout_ms <= 0 || options.request_timeout_ms <= 0) {
    return Status::InvalidArgument(what + ": timeouts must be positive");
  }
  auto identity = ResolveAwsIdentity(options.credentials, env);
  if (!identity.ok()) return identity.status().WithContext(what);
  EndpointRequest request{service.service_id, service.hostname_prefix, options.endpoint,
                          options.default_endpoint};
  auto endpoint = ResolveEndpoint(request, *identity, env);
  if (!endpoint.ok()) return endpoint.status().WithContext(what);
  return std::unique_ptr<AwsJsonClient>(
      new AwsJsonClient(service, options, std::move(*identity), std::move(*endpoint)));
}

Result<http::HttpRequest> AwsJsonClient::BuildRequest(std::string_view operation, const std::string& body,
                                                      std::chrono::system_clock::time_point now) const {
  http::HttpRequest request;
  request.method = "POST";
  request.url = endpoint_.Url() + "/";
  request.headers = {{"Host", endpoint_.authority},
                     {"Content-Type", service_.content_type},
                     {"X-Amz-Target", service_.target_prefix + "." + std::string(operation)},
                     {"Accept", "application/json"},
                     {"User-Agent", "floe"}};
  request.body = AsBytes(body);
  if (identity_.anonymous()) return request;
  const std::string amz_date = FormatAmzDate(now);
  const std::string payload_hash = Sha256Hex(body);
  request.headers.emplace_back("X-Amz-Date", amz_date);
  // Not required outside S3, but it lets a verifying proxy check the body.
  request.headers.emplace_back("X-Amz-Content-Sha256", payload_hash);
  if (!identity_.credentials.session_token.empty()) {
    request.headers.emplace_back("X-Amz-Security-Token", identity_.credentials.session_token);
  }
  SigV4Request to_sign;
  to_sign.method = "POST";
  to_sign.path = "/";
  for (const auto& [name, value] : request.headers) {
    if (name != "Accept" && name != "User-Agent") to_sign.headers.emplace_back(name, value);
  }
  to_sign.payload_hash = payload_hash;
  FLOE_ASSIGN_OR_RETURN(SigV4Signature signature,
                        SignV4(to_sign, identity_.credentials,
                               SigV4Scope{identity_.region, service_.signing_name, amz_date, true}));
  request.headers.emplace_back("Authorization", signature.authorization);
  return request;
}

Result<json::Json> AwsJsonClient::Call(std::string_view operation, const json::Json& request_json,
                                       CallKind kind, std::string* error_type) {
  const std::string where = service_.name + " " + std::string(operation);
  const std::string body = request_json.dump();
  const Send send = [this](const http::HttpRequest& request) { return transport_->Execute(request); };
  const auto first_try = std::chrono::steady_clock::now();
  const std::atomic<bool>* cancel = cancel_.load();
  for (int attempt = 1;; ++attempt) {
    if (error_type != nullptr) error_type->clear();
    if (cancel != nullptr && cancel->load())
      return Status::Cancelled(where + ": not sent, the process is stopping");
    FLOE_ASSIGN_OR_RETURN(http::HttpRequest request,
                          BuildRequest(operation, body, std::chrono::system_clock::now()));
    request.cancel = cancel;
    bool may_have_reached_server = true;
    Result<http::HttpResponse> result = exchange_ ? exchange_(operation, request, send)
                                                  : transport_->Execute(request, &may_have_reached_server);
    Status failure;
    if (!result.ok() && result.status().kind() == ErrorKind::kCancelled) {
      if (kind == CallKind::kMutation) {
        return Status::CommitStateUnknown(where +
                                          ": abandoned while the process stops; it may have been applied");
      }
      return result.status().WithContext(where);
    }
    if (!result.ok()) {
      failure =
          Status(ErrorKind::kIOError, where + ": " + result.status().message(), result.status().retryable());
      if (kind == CallKind::kMutation && may_have_reached_server) {
        return Status::CommitStateUnknown(
            where + ": outcome unknown, the request may have been applied: " + result.status().message());
      }
    } else if (result->status >= 200 && result->status < 300) {
      if (result->body.empty()) return json::Json::object();
      auto parsed = json::ParseJson(result->body);
      if (parsed.ok() && parsed->is_object()) return parsed;
      const std::string problem = parsed.ok() ? "the answer is not a JSON object" : parsed.status().message();
      if (kind == CallKind::kMutation) {
        return Status::CommitStateUnknown(where +
                                          ": the service accepted the request but its answer is "
                                          "unreadable (" +
                                          problem + ")");
      }
      return Status::Corruption(where + ": " + problem);
    } else {
      const AwsError error = ParseAwsError(result->status, result->headers, result->body);
      if (error_type != nullptr) *error_type = error.type;
      failure = AwsErrorStatus(error, where);
      const bool throttled = IsThrottlingError(error);
      if (!throttled && kind == CallKind::kMutation && IsTransientServerError(error)) {
        return Status::CommitStateUnknown(
            where + ": outcome unknown, the request may have been applied: " + failure.message());
      }
      if (!throttled && !IsTransientServerError(error)) {
        return WithAttempts(failure, attempt > 1 ? "after " + std::to_string(attempt) + " attempts" : "");
      }
    }
    if (!failure.retryable()) {
      return WithAttempts(failure, attempt > 1 ? "after " + std::to_string(attempt) + " attempts" : "");
    }
    const RetryDecision next = NextRetry(options_.retry, attempt, first_try);
    if (!next.retry) return WithAttempts(failure, next.exhausted);
    std::this_thread::sleep_for(std::chrono::milliseconds(next.delay_ms));
  }
}

}  // namespace floe::aws
