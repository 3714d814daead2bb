#include "ingest/config/source_notifications.h"

#include "aws/endpoint.h"
#include "io/s3/s3_file_io.h"

namespace floe::ingest::config_internal {
namespace {

constexpr int64_t kMaxVisibilityMs = int64_t{43200} * 1000;  // SQS's limit: 12 hours
constexpr int64_t kMaxWaitMs = 20'000;                       // SQS's long-poll limit
constexpr int64_t kMaxHeldMessages = 100'000;                // below SQS's 120,000 in flight

// "http(s)://<host>/<account>/<queue name>" in shape (SqsClient checks the rest).
bool LooksLikeQueueUrl(const std::string& url) {
  const size_t scheme = url.find("://");
  if (scheme == std::string::npos) return false;
  const std::string prefix = url.substr(0, scheme);
  if (prefix != "http" && prefix != "https") return false;
  const size_t path = url.find('/', scheme + 3);
  if (path == std::string::npos || path == scheme + 3) return false;
  const size_t queue = url.find('/', path + 1);
  return queue != std::string::npos && queue > path + 1 && queue + 1 < url.size();
}

}  // namespace

const char* NotificationKeys::FirstGiven() const {
  if (notifications) return "notifications";
  if (queue_url) return "queue_url";
  if (sqs_endpoint) return "sqs_endpoint";
  if (backfill_interval_ms) return "backfill_interval";
  if (backfill_on_start) return "backfill_on_start";
  if (visibility_timeout_ms) return "visibility_timeout";
  if (wait_time_ms) return "wait_time";
  if (max_messages) return "max_messages";
  return nullptr;
}

Result<NotificationKeys> ReadNotificationKeys(SectionReader& section) {
  NotificationKeys keys;
  FLOE_ASSIGN_OR_RETURN(keys.notifications, section.String("notifications"));
  FLOE_ASSIGN_OR_RETURN(keys.queue_url, section.String("queue_url"));
  FLOE_ASSIGN_OR_RETURN(keys.sqs_endpoint, section.String("sqs_endpoint"));
  FLOE_ASSIGN_OR_RETURN(keys.backfill_interval_ms, section.Duration("backfill_interval"));
  FLOE_ASSIGN_OR_RETURN(keys.backfill_on_start, section.Bool("backfill_on_start"));
  FLOE_ASSIGN_OR_RETURN(keys.visibility_timeout_ms, section.Duration("visibility_timeout"));
  FLOE_ASSIGN_OR_RETURN(keys.wait_time_ms, section.Duration("wait_time"));
  FLOE_ASSIGN_OR_RETURN(keys.max_messages, section.Integer("max_messages", 1, kMaxHeldMessages));
  return keys;
}

Status ApplyNotificationKeys(const SectionReader& section, const NotificationKeys& keys,
                             SourceConfig* source) {
  NotificationConfig& out = source->notifications;
  std::string from_notifications;  // the queue URL an "sqs://" value spells
  if (keys.notifications) {
    const std::string& value = *keys.notifications;
    if (value == "none") {
      out.kind = NotificationKind::kNone;
    } else if (value == "inotify") {
      out.kind = NotificationKind::kInotify;
    } else if (value == "sqs") {
      out.kind = NotificationKind::kSqs;
    } else if (value.rfind("sqs://", 0) == 0) {
      out.kind = NotificationKind::kSqs;
      from_notifications = "https://" + value.substr(6);
      if (!LooksLikeQueueUrl(from_notifications)) {
        return section.Error("notifications",
                             "expected \"sqs://<host>/<account id>/<queue name>\" (the queue URL "
                             "with sqs:// for https://), got \"" +
                                 value + "\"");
      }
    } else {
      return section.Error("notifications",
                           "expected \"sqs://<host>/<account id>/<queue name>\", \"sqs\" (with queue_url), "
                           "\"inotify\" or \"none\", got \"" +
                               value + "\"");
    }
  }
  if (keys.queue_url) {
    if (!from_notifications.empty()) {
      return section.Error("queue_url",
                           "names the queue a second time; keep notifications = \"sqs://...\" or "
                           "queue_url, not both");
    }
    if (keys.notifications && out.kind != NotificationKind::kSqs) {
      return section.Error("queue_url",
                           "is an SQS queue, but notifications = \"" + *keys.notifications + "\"");
    }
    if (!LooksLikeQueueUrl(*keys.queue_url)) {
      return section.Error("queue_url",
                           "expected https://sqs.<region>.amazonaws.com/<account id>/<queue name>, "
                           "got \"" +
                               *keys.queue_url + "\"");
    }
    out.kind = NotificationKind::kSqs;
    out.queue_url = *keys.queue_url;
  } else if (!from_notifications.empty()) {
    out.queue_url = from_notifications;
  } else if (out.kind == NotificationKind::kSqs) {
    return section.Error("notifications",
                         "\"sqs\" needs the queue: set queue_url = \"https://sqs.<region>."
                         "amazonaws.com/<account id>/<queue name>\"");
  }

  const bool object_store = s3::IsS3Uri(source->uri);
  if (out.kind == NotificationKind::kSqs && !object_store) {
    return section.Error(keys.queue_url ? "queue_url" : "notifications",
                         "SQS notifications announce S3 objects, but uri \"" + source->uri +
                             "\" is a local directory (use notifications = \"inotify\" there)");
  }
  if (out.kind == NotificationKind::kInotify) {
    if (object_store) {
      return section.Error("notifications",
                           "\"inotify\" watches a local directory, but uri \"" + source->uri +
                               "\" is in an object store (use S3 event notifications through "
                               "SQS: notifications = \"sqs://...\")");
    }
#ifndef __linux__
    return section.Error("notifications", "\"inotify\" needs Linux");
#endif
  }

  const bool sqs = out.kind == NotificationKind::kSqs;
  const std::pair<const char*, bool> sqs_keys[] = {
      {"sqs_endpoint", keys.sqs_endpoint.has_value()},
      {"visibility_timeout", keys.visibility_timeout_ms.has_value()},
      {"wait_time", keys.wait_time_ms.has_value()},
      {"max_messages", keys.max_messages.has_value()}};
  for (const auto& [key, given] : sqs_keys) {
    if (given && !sqs) {
      return section.Error(key, "applies to SQS notifications (notifications = \"sqs://...\" or queue_url)");
    }
  }
  const std::pair<const char*, bool> notification_keys[] = {
      {"backfill_interval", keys.backfill_interval_ms.has_value()},
      {"backfill_on_start", keys.backfill_on_start.has_value()}};
  for (const auto& [key, given] : notification_keys) {
    if (given && out.kind == NotificationKind::kNone) {
      return section.Error(key,
                           "applies with notifications (\"sqs://...\", queue_url or \"inotify\"); "
                           "without them every poll lists the uri");
    }
  }

  if (keys.sqs_endpoint) {
    auto endpoint = aws::ParseEndpointUrl(*keys.sqs_endpoint, "sqs_endpoint");
    if (!endpoint.ok()) return section.Error("sqs_endpoint", endpoint.status().message());
    out.sqs_endpoint = endpoint->Url();
  }
  if (keys.backfill_interval_ms) out.backfill_interval_ms = *keys.backfill_interval_ms;
  if (keys.backfill_on_start) out.backfill_on_start = *keys.backfill_on_start;
  if (keys.visibility_timeout_ms) {
    if (*keys.visibility_timeout_ms < 1000 || *keys.visibility_timeout_ms > kMaxVisibilityMs) {
      return section.Error("visibility_timeout", "must be between 1s and 12h (SQS's limits), got " +
                                                     std::to_string(*keys.visibility_timeout_ms) + " ms");
    }
    out.visibility_timeout_ms = *keys.visibility_timeout_ms;
  }
  if (keys.wait_time_ms) {
    if (*keys.wait_time_ms > kMaxWaitMs) {
      return section.Error("wait_time", "must be at most 20s (SQS's long-poll limit), got " +
                                            std::to_string(*keys.wait_time_ms) + " ms");
    }
    out.wait_time_ms = *keys.wait_time_ms;
  }
  if (keys.max_messages) out.max_messages = *keys.max_messages;
  return Status::OK();
}

}  // namespace floe::ingest::config_internal
