// SqsClient: the SQS calls a queue consumer needs — ReceiveMessage,
// DeleteMessageBatch, ChangeMessageVisibility(Batch) — over SQS's JSON
// protocol (awsJson1_0, AmazonSQS.<Operation>), bound to one queue.
//
// Contract:
// - The queue is its URL ("https://sqs.<region>.amazonaws.com/<account>/<name>",
//   or a local server's). Requests go to the endpoint the AWS SDK chain
//   picks (config > AWS_ENDPOINT_URL_SQS > AWS_ENDPOINT_URL > profile), else
//   to the queue URL's own scheme and host; the region, unless set, is read
//   from an sqs.<region>.amazonaws.com host, else from the AWS chain.
// - Receive asks for 1..10 messages, waiting up to 0..20 s (long polling)
//   and hiding them for the visibility timeout (0..43200 s; -1: the
//   queue's). Each message's MD5OfBody is checked against its body; a
//   message whose body does not match carries the problem in `body_error`
//   (naming the message id) and the others of the answer are read as usual,
//   so one damaged message does not hide its neighbours.
// - DeleteBatch / ChangeVisibilityBatch send up to 10 entries per request
//   (more are split) and report each entry's outcome; an entry that failed
//   because its receipt handle is no longer valid is reported, not an error
//   of the whole call. These calls are idempotent and retried on throttling,
//   5xx and transport failures.
// Thread-safe: calls may run concurrently.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "aws/json_client.h"
#include "common/status.h"

namespace floe::aws::sqs {

struct SqsMessage {
  std::string message_id;
  std::string receipt_handle;
  std::string body;
  std::map<std::string, std::string> attributes;  // ApproximateReceiveCount, SentTimestamp, ...
  std::string body_error;                         // non-empty: the body is not what was sent
};

struct ReceiveOptions {
  int max_messages = 10;
  int wait_seconds = 20;
  int visibility_timeout_seconds = -1;  // -1: the queue's default
};

struct BatchEntry {
  std::string id;  // unique within one call: [A-Za-z0-9_-]{1,80}
  std::string receipt_handle;
  int visibility_timeout_seconds = 0;  // ChangeVisibilityBatch only
};

struct BatchOutcome {
  std::string id;
  bool ok = false;
  std::string error;  // "ReceiptHandleIsInvalid: ..." when !ok
  bool sender_fault = false;
};

struct SqsClientOptions {
  std::string queue_url;
  AwsClientOptions client;
};

class SqsClient {
 public:
  static Result<std::unique_ptr<SqsClient>> Open(const SqsClientOptions& options,
                                                 const EnvLookup& env = ProcessEnvironment());

  Result<std::vector<SqsMessage>> Receive(const ReceiveOptions& options);
  Result<std::vector<BatchOutcome>> DeleteBatch(const std::vector<BatchEntry>& entries);
  Status ChangeVisibility(const std::string& receipt_handle, int visibility_timeout_seconds);
  Result<std::vector<BatchOutcome>> ChangeVisibilityBatch(const std::vector<BatchEntry>& entries);

  const std::string& queue_url() const { return queue_url_; }
  AwsJsonClient& json() { return *client_; }

 private:
  SqsClient(std::string queue_url, std::unique_ptr<AwsJsonClient> client)
      : queue_url_(std::move(queue_url)), client_(std::move(client)) {}

  Result<std::vector<BatchOutcome>> Batch(const char* operation, const std::vector<BatchEntry>& entries,
                                          bool with_timeout);

  std::string queue_url_;
  std::unique_ptr<AwsJsonClient> client_;
};

// "https://sqs.eu-west-1.amazonaws.com/123/q" -> "eu-west-1" ("" for other hosts).
std::string RegionOfQueueUrl(const std::string& queue_url);
// "https://host:port" of a queue URL, or InvalidArgument.
Result<std::string> QueueEndpoint(const std::string& queue_url);
// Parses one ReceiveMessage answer (exposed for tests and the fuzz target).
Result<std::vector<SqsMessage>> ParseReceiveAnswer(const json::Json& answer, const std::string& context);

}  // namespace floe::aws::sqs
