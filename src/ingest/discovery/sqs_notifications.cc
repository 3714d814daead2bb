#include "ingest/discovery/sqs_notifications.h"

#include <algorithm>

#include "aws/sqs/s3_event.h"
#include "io/s3/s3_config.h"

namespace floe::ingest {

namespace sqs = aws::sqs;

namespace {

// "received 3 times" from the message's ApproximateReceiveCount.
std::string ReceiveCountText(const sqs::SqsMessage& message) {
  auto count = message.attributes.find("ApproximateReceiveCount");
  if (count == message.attributes.end()) return "";
  return " (received " + count->second + (count->second == "1" ? " time" : " times") + ")";
}

bool HandleNoLongerValid(const std::string& error) {
  return error.rfind("ReceiptHandleIsInvalid", 0) == 0 || error.rfind("InvalidParameterValue", 0) == 0 ||
         error.rfind("MessageNotInflight", 0) == 0 ||
         error.find("ReceiptHandleIsInvalid") != std::string::npos;
}

}  // namespace

Result<std::unique_ptr<SqsNotifications>> SqsNotifications::Open(const NotificationConfig& config,
                                                                 const s3::S3Options& s3,
                                                                 const aws::EnvLookup& env) {
  sqs::SqsClientOptions options;
  options.queue_url = config.queue_url;
  options.client.credentials = s3::CredentialOptionsOf(s3);
  // The queue's own region wins over [s3] region (a bucket and its queue
  // share a region, but the [s3] key may name the warehouse's).
  if (const std::string region = sqs::RegionOfQueueUrl(config.queue_url); !region.empty()) {
    options.client.credentials.region = region;
  }
  options.client.endpoint = config.sqs_endpoint;
  options.client.retry = s3::RetryPolicyOf(s3);
  options.client.connect_timeout_ms = s3.connect_timeout_ms;
  auto client = sqs::SqsClient::Open(options, env);
  if (!client.ok()) return client.status().WithContext("[source] queue_url " + config.queue_url);
  const int visibility_seconds =
      static_cast<int>(std::clamp<int64_t>((config.visibility_timeout_ms + 999) / 1000, 1, 43200));
  return std::unique_ptr<SqsNotifications>(new SqsNotifications(
      std::move(*client), visibility_seconds, std::clamp<int64_t>(config.wait_time_ms, 0, 20'000)));
}

SqsNotifications::SqsNotifications(std::unique_ptr<sqs::SqsClient> client, int visibility_seconds,
                                   int64_t wait_time_ms)
    : client_(std::move(client)),
      visibility_seconds_(visibility_seconds),
      wait_time_ms_(wait_time_ms),
      keeper_([this] { KeepHidden(); }) {}

SqsNotifications::~SqsNotifications() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  keeper_.join();
}

size_t SqsNotifications::held() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return held_.size();
}

void SqsNotifications::SetStopFlag(const std::atomic<bool>* stop) {
  client_->json().SetCancelFlag(stop);
}

Result<NotificationBatch> SqsNotifications::Receive(int64_t wait_ms) {
  const int wait_seconds =
      static_cast<int>(std::clamp<int64_t>((wait_ms + 999) / 1000, 0, wait_time_ms_ / 1000));
  const Clock::time_point asked = Clock::now();
  auto messages = client_->Receive({10, wait_seconds, visibility_seconds_});
  NotificationBatch batch;
  std::lock_guard<std::mutex> lock(mutex_);
  batch.warnings = std::exchange(keeper_warnings_, {});
  if (!messages.ok()) return messages.status();
  for (sqs::SqsMessage& message : *messages) {
    if (!message.body_error.empty()) {
      batch.unreadable.push_back(message.body_error + ReceiveCountText(message));
      continue;
    }
    auto parsed = sqs::ParseS3EventMessage(message.body, message.message_id);
    if (!parsed.ok()) {
      batch.unreadable.push_back(parsed.status().message() + ReceiveCountText(message));
      continue;
    }
    // The visibility counts from the request, which may have waited: the
    // earliest moment SQS could have handed it out.
    held_[message.message_id] = {message.receipt_handle, asked + std::chrono::seconds(visibility_seconds_)};
    Notification notification;
    notification.id = message.message_id;
    notification.test_event = parsed->test_event;
    for (const sqs::S3ObjectEvent& event : parsed->events) {
      FileEvent file;
      file.kind = event.kind == sqs::S3EventKind::kObjectRemoved ? FileEvent::Kind::kRemoved
                                                                 : FileEvent::Kind::kComplete;
      file.path = event.Uri();
      file.sequencer = event.sequencer;
      notification.events.push_back(std::move(file));
    }
    batch.notifications.push_back(std::move(notification));
  }
  if (!batch.notifications.empty()) wake_.notify_all();  // the keeper plans its next extension
  return batch;
}

Status SqsNotifications::Acknowledge(const std::vector<std::string>& ids) {
  std::vector<sqs::BatchEntry> entries;
  std::map<std::string, std::string> id_of_entry;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const std::string& id : ids) {
      auto held = held_.find(id);
      if (held == held_.end()) continue;
      const std::string entry = "m" + std::to_string(entries.size());
      entries.push_back({entry, held->second.receipt_handle, 0});
      id_of_entry[entry] = id;
    }
  }
  if (entries.empty()) return Status::OK();
  auto outcomes = client_->DeleteBatch(entries);
  if (!outcomes.ok()) return outcomes.status();
  std::string refused;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const sqs::BatchOutcome& outcome : *outcomes) {
    const std::string& id = id_of_entry[outcome.id];
    if (outcome.ok || HandleNoLongerValid(outcome.error)) {
      held_.erase(id);
    } else {
      refused += (refused.empty() ? "" : "; ") + id + ": " + outcome.error;
    }
  }
  if (!refused.empty()) {
    return Status::IOError(name() + ": DeleteMessageBatch refused " + refused + " (tried again later)", true);
  }
  return Status::OK();
}

void SqsNotifications::Release(const std::vector<std::string>& ids) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const std::string& id : ids) held_.erase(id);
}

void SqsNotifications::KeepHidden() {
  const auto visibility = std::chrono::seconds(visibility_seconds_);
  // Extend when less than half is left; look often enough to meet that.
  const auto period =
      std::clamp<Clock::duration>(visibility / 4, std::chrono::milliseconds(100), std::chrono::seconds(1));
  std::unique_lock<std::mutex> lock(mutex_);
  while (!stopping_) {
    wake_.wait_for(lock, period);
    if (stopping_) break;
    const Clock::time_point now = Clock::now();
    std::vector<sqs::BatchEntry> entries;
    std::map<std::string, std::pair<std::string, std::string>> held_of_entry;  // entry -> id, handle
    for (const auto& [id, held] : held_) {
      if (held.visible_at - now > visibility / 2) continue;
      const std::string entry = "m" + std::to_string(entries.size());
      entries.push_back({entry, held.receipt_handle, visibility_seconds_});
      held_of_entry[entry] = {id, held.receipt_handle};
    }
    if (entries.empty()) continue;
    lock.unlock();
    auto outcomes = client_->ChangeVisibilityBatch(entries);
    lock.lock();
    if (!outcomes.ok()) {
      if (!keeper_failing_ && outcomes.status().kind() != ErrorKind::kCancelled) {
        keeper_warnings_.push_back(name() + ": the visibility of held messages could not be extended (" +
                                   outcomes.status().ToString() +
                                   "); they may be delivered again, which changes nothing (the ledger knows "
                                   "their files)");
      }
      keeper_failing_ = true;
      continue;
    }
    keeper_failing_ = false;
    for (const sqs::BatchOutcome& outcome : *outcomes) {
      const auto& [id, handle] = held_of_entry[outcome.id];
      auto held = held_.find(id);
      if (held == held_.end() || held->second.receipt_handle != handle)
        continue;  // acknowledged or received anew
      if (outcome.ok) {
        held->second.visible_at = now + visibility;
      } else {
        keeper_warnings_.push_back(
            name() + ": message " + id + " could not be kept hidden (" + outcome.error +
            "); it is delivered again, which changes nothing (the ledger knows its files)");
        held_.erase(held);
      }
    }
  }
}

}  // namespace floe::ingest
