// AWS error answers of the JSON protocols (awsJson1_0 / awsJson1_1) turned
// into Status.
//
// Contract: ParseAwsError reads the error type from the body's "__type"
// (or "code"), else the X-Amzn-ErrorType header, and strips the namespace
// ("com.amazonaws.kinesis#X" -> "X") and any ":..." suffix; the message from
// "message" or "Message". Bodies that are not JSON still yield the HTTP
// status and a bounded excerpt. Error text is taken from the answer only, so
// request headers (credentials) never reach a message.
//
// Kinds: throttling types and HTTP 429 are "throttled" (the request was
// refused before being processed, so retrying is always safe);
// not-found types -> NotFound; AlreadyExistsException -> AlreadyExists;
// ConcurrentModificationException -> CommitFailed (retryable);
// validation types -> InvalidArgument; authentication/authorization failures
// -> InvalidArgument saying so; other 4xx -> IOError; 5xx -> IOError
// retryable. Pure functions: thread-safe.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "common/status.h"

namespace floe::aws {

struct AwsError {
  long http_status = 0;
  std::string type;     // "ProvisionedThroughputExceededException"; "" when the answer names none
  std::string message;  // the service's message, bounded
};

AwsError ParseAwsError(long http_status, const std::map<std::string, std::string>& headers,
                       std::string_view body);

// Whether the error is a throttling refusal (retry with backoff, always safe).
bool IsThrottlingError(const AwsError& error);
// Whether the service failed transiently (5xx and the service-side failure types).
bool IsTransientServerError(const AwsError& error);

// The Status for `error`; `operation` names the call ("Kinesis GetRecords
// (stream orders, shard shardId-000000000001)").
Status AwsErrorStatus(const AwsError& error, const std::string& operation);

}  // namespace floe::aws
