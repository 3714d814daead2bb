#include "aws/sqs/sqs_client.h"

#include <set>

#include "aws/digest.h"

namespace floe::aws::sqs {

using json::Json;

namespace {

constexpr size_t kMaxBatch = 10;

bool IsEntryId(const std::string& id) {
  if (id.empty() || id.size() > 80) return false;
  for (char c : id) {
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

std::string RegionOfQueueUrl(const std::string& queue_url) {
  const size_t scheme = queue_url.find("://");
  if (scheme == std::string::npos) return "";
  const size_t host_start = scheme + 3;
  const size_t host_end = queue_url.find_first_of("/:", host_start);
  const std::string host =
      queue_url.substr(host_start, host_end == std::string::npos ? std::string::npos : host_end - host_start);
  // sqs.<region>.amazonaws.com[.cn] or the legacy <region>.queue.amazonaws.com
  if (host.rfind("sqs.", 0) == 0) {
    const size_t dot = host.find('.', 4);
    if (dot != std::string::npos && host.find(".amazonaws.com", dot) == dot) return host.substr(4, dot - 4);
  }
  const size_t legacy = host.find(".queue.amazonaws.com");
  if (legacy != std::string::npos && legacy > 0) return host.substr(0, legacy);
  return "";
}

Result<std::string> QueueEndpoint(const std::string& queue_url) {
  const size_t scheme = queue_url.find("://");
  const std::string prefix = scheme == std::string::npos ? "" : queue_url.substr(0, scheme);
  if (prefix != "http" && prefix != "https") {
    return Status::InvalidArgument("SQS queue URL '" + queue_url + "' must start with http:// or https://");
  }
  const size_t path = queue_url.find('/', scheme + 3);
  if (path == std::string::npos || path + 1 >= queue_url.size() || path == scheme + 3) {
    return Status::InvalidArgument("SQS queue URL '" + queue_url +
                                   "' must be http(s)://<host>/<account>/<queue name>");
  }
  return queue_url.substr(0, path);
}

Result<std::vector<SqsMessage>> ParseReceiveAnswer(const Json& answer, const std::string& context) {
  std::vector<SqsMessage> messages;
  auto list = json::GetOptionalArray(answer, "Messages");
  if (!list.ok()) return list.status().WithContext(context);
  if (*list == nullptr) return messages;
  for (const Json& entry : **list) {
    if (!entry.is_object()) return Status::Corruption(context + ": a message is not an object");
    SqsMessage message;
    auto id = json::GetString(entry, "MessageId");
    if (!id.ok()) return id.status().WithContext(context);
    message.message_id = *id;
    const std::string where = context + ", message " + message.message_id;
    auto handle = json::GetString(entry, "ReceiptHandle");
    if (!handle.ok()) return handle.status().WithContext(where);
    message.receipt_handle = *handle;
    auto body = json::GetOptionalString(entry, "Body");
    if (!body.ok()) return body.status().WithContext(where);
    message.body = body->value_or("");
    auto md5 = json::GetOptionalString(entry, "MD5OfBody");
    if (!md5.ok()) return md5.status().WithContext(where);
    if (md5->has_value() && Md5Hex(message.body) != **md5) {
      message.body_error = where + ": the body does not match its MD5OfBody (" + **md5 + ")";
    }
    if (const Json* attributes = json::FindMember(entry, "Attributes");
        attributes != nullptr && !attributes->is_null()) {
      auto map = json::StringMapFromJson(*attributes, "Attributes");
      if (!map.ok()) return map.status().WithContext(where);
      message.attributes = std::move(*map);
    }
    messages.push_back(std::move(message));
  }
  return messages;
}

Result<std::unique_ptr<SqsClient>> SqsClient::Open(const SqsClientOptions& options, const EnvLookup& env) {
  FLOE_ASSIGN_OR_RETURN(std::string queue_host, QueueEndpoint(options.queue_url));
  AwsClientOptions client_options = options.client;
  client_options.default_endpoint = queue_host;
  if (client_options.credentials.region.empty()) {
    client_options.credentials.region = RegionOfQueueUrl(options.queue_url);
  }
  FLOE_ASSIGN_OR_RETURN(std::unique_ptr<AwsJsonClient> client,
                        AwsJsonClient::Open(SqsService(), client_options, env));
  return std::unique_ptr<SqsClient>(new SqsClient(options.queue_url, std::move(client)));
}

Result<std::vector<SqsMessage>> SqsClient::Receive(const ReceiveOptions& options) {
  const std::string where = "SQS ReceiveMessage from " + queue_url_;
  if (options.max_messages < 1 || options.max_messages > 10) {
    return Status::InvalidArgument(where + ": max_messages must be within 1..10");
  }
  if (options.wait_seconds < 0 || options.wait_seconds > 20) {
    return Status::InvalidArgument(where + ": wait_seconds must be within 0..20");
  }
  if (options.visibility_timeout_seconds < -1 || options.visibility_timeout_seconds > 43200) {
    return Status::InvalidArgument(where + ": the visibility timeout must be within 0..43200 s");
  }
  Json request = {{"QueueUrl", queue_url_},
                  {"MaxNumberOfMessages", options.max_messages},
                  {"WaitTimeSeconds", options.wait_seconds},
                  {"MessageSystemAttributeNames", {"ApproximateReceiveCount", "SentTimestamp"}}};
  if (options.visibility_timeout_seconds >= 0)
    request["VisibilityTimeout"] = options.visibility_timeout_seconds;
  auto answer = client_->Call("ReceiveMessage", request);
  if (!answer.ok()) return answer.status().WithContext(queue_url_);
  return ParseReceiveAnswer(*answer, where);
}

Result<std::vector<BatchOutcome>> SqsClient::Batch(const char* operation,
                                                   const std::vector<BatchEntry>& entries,
                                                   bool with_timeout) {
  const std::string where = std::string("SQS ") + operation + " on " + queue_url_;
  std::set<std::string> ids;
  for (const BatchEntry& entry : entries) {
    if (!IsEntryId(entry.id))
      return Status::InvalidArgument(where + ": entry id '" + entry.id + "' is not valid");
    if (!ids.insert(entry.id).second)
      return Status::InvalidArgument(where + ": entry id '" + entry.id + "' repeats");
    if (with_timeout && (entry.visibility_timeout_seconds < 0 || entry.visibility_timeout_seconds > 43200)) {
      return Status::InvalidArgument(where + ": the visibility timeout of entry " + entry.id +
                                     " must be within 0..43200 s");
    }
  }
  std::vector<BatchOutcome> outcomes;
  for (size_t start = 0; start < entries.size(); start += kMaxBatch) {
    Json list = Json::array();
    std::set<std::string> pending;
    for (size_t i = start; i < std::min(entries.size(), start + kMaxBatch); ++i) {
      Json entry = {{"Id", entries[i].id}, {"ReceiptHandle", entries[i].receipt_handle}};
      if (with_timeout) entry["VisibilityTimeout"] = entries[i].visibility_timeout_seconds;
      list.push_back(std::move(entry));
      pending.insert(entries[i].id);
    }
    auto answer = client_->Call(operation, Json{{"QueueUrl", queue_url_}, {"Entries", std::move(list)}});
    if (!answer.ok()) return answer.status().WithContext(queue_url_);
    auto successful = json::GetOptionalArray(*answer, "Successful");
    auto failed = json::GetOptionalArray(*answer, "Failed");
    if (!successful.ok()) return successful.status().WithContext(where);
    if (!failed.ok()) return failed.status().WithContext(where);
    for (const Json* group : {*successful, *failed}) {
      if (group == nullptr) continue;
      const bool ok = group == *successful;
      for (const Json& item : *group) {
        BatchOutcome outcome;
        auto id = json::GetString(item, "Id");
        if (!id.ok()) return id.status().WithContext(where);
        if (pending.erase(*id) == 0) {
          return Status::Corruption(where + ": the answer names entry '" + *id +
                                    "' twice or that was not sent");
        }
        outcome.id = *id;
        outcome.ok = ok;
        if (!ok) {
          auto code = json::GetOptionalString(item, "Code");
          auto message = json::GetOptionalString(item, "Message");
          auto sender = json::GetOptionalBool(item, "SenderFault");
          if (!code.ok() || !message.ok() || !sender.ok()) {
            return Status::Corruption(where + ": entry '" + *id + "' has a malformed failure");
          }
          outcome.error =
              code->value_or("") + (message->value_or("").empty() ? "" : ": " + message->value_or(""));
          outcome.sender_fault = sender->value_or(false);
        }
        outcomes.push_back(std::move(outcome));
      }
    }
    if (!pending.empty()) {
      return Status::Corruption(where + ": the answer says nothing about entry '" + *pending.begin() + "'");
    }
  }
  return outcomes;
}

Result<std::vector<BatchOutcome>> SqsClient::DeleteBatch(const std::vector<BatchEntry>& entries) {
  return Batch("DeleteMessageBatch", entries, false);
}

Result<std::vector<BatchOutcome>> SqsClient::ChangeVisibilityBatch(const std::vector<BatchEntry>& entries) {
  return Batch("ChangeMessageVisibilityBatch", entries, true);
}

Status SqsClient::ChangeVisibility(const std::string& receipt_handle, int visibility_timeout_seconds) {
  if (visibility_timeout_seconds < 0 || visibility_timeout_seconds > 43200) {
    return Status::InvalidArgument("SQS ChangeMessageVisibility on " + queue_url_ +
                                   ": the visibility timeout must be within 0..43200 s");
  }
  Json request = {{"QueueUrl", queue_url_},
                  {"ReceiptHandle", receipt_handle},
                  {"VisibilityTimeout", visibility_timeout_seconds}};
  auto answer = client_->Call("ChangeMessageVisibility", request);
  if (!answer.ok()) return answer.status().WithContext(queue_url_);
  return Status::OK();
}

}  // namespace floe::aws::sqs
