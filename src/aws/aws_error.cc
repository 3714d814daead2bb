#include "aws/aws_error.h"

#include <set>

#include "common/json.h"

namespace floe::aws {
namespace {

constexpr size_t kMaxMessageBytes = 1000;

std::string Bounded(std::string_view text) {
  if (text.size() <= kMaxMessageBytes) return std::string(text);
  return std::string(text.substr(0, kMaxMessageBytes)) + "...";
}

// "com.amazonaws.kinesis.v20131202#ResourceNotFoundException" and
// "ResourceNotFoundException:http://internal.amazon.com/..." -> the bare name.
std::string BareType(std::string type) {
  if (size_t hash = type.rfind('#'); hash != std::string::npos) type = type.substr(hash + 1);
  if (size_t colon = type.find(':'); colon != std::string::npos) type = type.substr(0, colon);
  return type;
}

bool OneOf(const std::string& type, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (type == name) return true;
  }
  return false;
}

}  // namespace

AwsError ParseAwsError(long http_status, const std::map<std::string, std::string>& headers,
                       std::string_view body) {
  AwsError error;
  error.http_status = http_status;
  auto parsed = json::ParseJson(body);
  if (parsed.ok() && parsed->is_object()) {
    for (const char* key : {"__type", "code", "Code"}) {
      const json::Json* type = json::FindMember(*parsed, key);
      if (type != nullptr && type->is_string() && !type->get<std::string>().empty()) {
        error.type = BareType(type->get<std::string>());
        break;
      }
    }
    for (const char* key : {"message", "Message", "errorMessage"}) {
      const json::Json* message = json::FindMember(*parsed, key);
      if (message != nullptr && message->is_string()) {
        error.message = Bounded(message->get<std::string>());
        break;
      }
    }
  } else if (!body.empty()) {
    error.message = Bounded(body);
  }
  if (error.type.empty()) {
    auto header = headers.find("x-amzn-errortype");
    if (header != headers.end()) error.type = BareType(header->second);
  }
  return error;
}

bool IsThrottlingError(const AwsError& error) {
  // botocore's throttling codes, which every AWS SDK retries.
  return error.http_status == 429 ||
         OneOf(error.type,
               {"Throttling", "ThrottlingException", "ThrottledException", "RequestThrottledException",
                "TooManyRequestsException", "ProvisionedThroughputExceededException",
                "TransactionInProgressException", "RequestLimitExceeded", "BandwidthLimitExceeded",
                "LimitExceededException", "RequestThrottled", "SlowDown", "PriorRequestNotComplete",
                "EC2ThrottledException", "KMSThrottlingException"});
}

bool IsTransientServerError(const AwsError& error) {
  return error.http_status >= 500 ||
         OneOf(error.type, {"RequestTimeout", "RequestTimeoutException", "InternalFailure", "InternalError",
                            "InternalServiceException", "InternalServerError", "ServiceUnavailable",
                            "ServiceUnavailableException"});
}

Status AwsErrorStatus(const AwsError& error, const std::string& operation) {
  std::string text = operation + ": HTTP " + std::to_string(error.http_status);
  if (!error.type.empty()) text += " " + error.type;
  if (!error.message.empty()) text += ": " + error.message;
  const std::string& t = error.type;
  if (IsThrottlingError(error)) return Status::IOError(text + " (throttled)", true);
  if (OneOf(t, {"ResourceNotFoundException", "EntityNotFoundException", "QueueDoesNotExist",
                "AWS.SimpleQueueService.NonExistentQueue", "NotFoundException"})) {
    return Status::NotFound(text);
  }
  if (OneOf(t, {"AlreadyExistsException", "QueueNameExists", "QueueAlreadyExists"})) {
    return Status::AlreadyExists(text);
  }
  if (t == "ConcurrentModificationException") return Status::CommitFailed(text);
  if (OneOf(t, {"UnrecognizedClientException", "InvalidSignatureException", "SignatureDoesNotMatch",
                "IncompleteSignature", "MissingAuthenticationToken", "InvalidClientTokenId", "ExpiredToken",
                "ExpiredTokenException", "AccessDeniedException", "AccessDenied", "NotAuthorized"}) ||
      error.http_status == 401 || error.http_status == 403) {
    return Status::InvalidArgument(text +
                                   " (authentication or authorization failed: check the AWS "
                                   "credentials and the IAM permissions)");
  }
  if (OneOf(t, {"ValidationException", "InvalidInputException", "InvalidArgumentException",
                "InvalidParameterException", "InvalidParameterValue", "InvalidParameterValueException",
                "MissingParameter", "SerializationException", "InvalidAttributeName", "InvalidAttributeValue",
                "ReceiptHandleIsInvalid", "InvalidIdFormat", "BatchEntryIdsNotDistinct",
                "TooManyEntriesInBatchRequest", "EmptyBatchRequest", "InvalidBatchEntryId"})) {
    return Status::InvalidArgument(text);
  }
  return Status::IOError(text, IsTransientServerError(error));
}

}  // namespace floe::aws
