// SqsNotifications: S3 event notifications read from an SQS queue — S3's own
// event records, the same wrapped by SNS, or S3 events EventBridge delivers
// (aws/sqs/s3_event.h) — as a NotificationSource.
//
// Contract (see NotificationSource):
// - The queue is [source] queue_url; requests are signed with the AWS chain
//   the [s3] settings start (s3::CredentialOptionsOf) and go to
//   [source] sqs_endpoint > AWS_ENDPOINT_URL_SQS > AWS_ENDPOINT_URL > the
//   profile's endpoint_url > the queue URL's own host.
// - Receive asks for up to 10 messages, long-polling up to the wait
//   (ceil to whole seconds, at most [source] wait_time), hidden for
//   [source] visibility_timeout. A message whose body fails its MD5 or is
//   not an S3 event notification is reported in `unreadable` with its id
//   and receive count and is not held: it comes back after the visibility
//   timeout until the queue's redrive policy moves it to a dead-letter
//   queue. Every other message is held: a keeper thread extends the
//   visibility of held messages when less than half of it is left, so a
//   message is not delivered again while floe works on its files (a batch
//   of any length). A message delivered again while held (SQS is
//   at-least-once) keeps one entry with its newest receipt handle.
// - Acknowledge deletes held messages (DeleteMessageBatch, ten per request);
//   an entry SQS refuses because its receipt handle is no longer valid is
//   forgotten (the message comes back and the ledger answers for it), other
//   refusals stay held and are named in the returned error. Release stops
//   extending a message, which comes back once its visibility ends.
// - Failures of the keeper (an extension refused or failing) are returned
//   as warnings by the next Receive; a message whose extension SQS refused
//   is forgotten the same way.
// Thread-safety: one caller at a time, beside the keeper thread, which
// shares only the held messages (under a mutex) and the thread-safe client.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "aws/sqs/sqs_client.h"
#include "ingest/config/config.h"
#include "ingest/discovery/notification_source.h"

namespace floe::ingest {

class SqsNotifications final : public NotificationSource {
 public:
  static Result<std::unique_ptr<SqsNotifications>> Open(
      const NotificationConfig& config, const s3::S3Options& s3,
      const aws::EnvLookup& env = aws::ProcessEnvironment());
  ~SqsNotifications() override;

  Result<NotificationBatch> Receive(int64_t wait_ms) override;
  Status Acknowledge(const std::vector<std::string>& ids) override;
  void Release(const std::vector<std::string>& ids) override;
  void SetStopFlag(const std::atomic<bool>* stop) override;
  int64_t max_wait_ms() const override { return wait_time_ms_; }
  std::string name() const override { return "SQS queue " + client_->queue_url(); }

  // How many messages are held (tests, diagnostics).
  size_t held() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Held {
    std::string receipt_handle;
    Clock::time_point visible_at;  // when SQS makes it visible again unless extended
  };

  SqsNotifications(std::unique_ptr<aws::sqs::SqsClient> client, int visibility_seconds, int64_t wait_time_ms);
  void KeepHidden();

  std::unique_ptr<aws::sqs::SqsClient> client_;
  const int visibility_seconds_;
  const int64_t wait_time_ms_;

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  bool stopping_ = false;
  std::map<std::string, Held> held_;  // by message id
  std::vector<std::string> keeper_warnings_;
  bool keeper_failing_ = false;  // its last call failed (warned once until one works)
  std::thread keeper_;           // last: started when everything above exists
};

}  // namespace floe::ingest
